"""Stereotype Test Score: the PST paper's numbers, majority voting, intervals, label files, CLI."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from support.sts_tables import (
    FEMALE_STEREOTYPED,
    MALE_STEREOTYPED,
    TABLE_14_15,
    paper_round,
    table_14_rows,
    whole_count,
)
from typer.testing import CliRunner

from diptych.cli.metrics import app
from diptych.core.errors import InputFileError
from diptych.core.labels import SubjectLabel
from diptych.core.metrics.sts import (
    LabelRow,
    STSResult,
    expected_stereotype_score,
    read_labels_csv,
    reduce_majority,
    stereo,
    stereotype_test_score,
)
from diptych.core.metrics.uncertainty.bootstrap import (
    ClusterMean,
    Estimate,
    bootstrap_cluster_mean,
    json_safe,
    resample_weights,
)


def test_table_14_construction_is_what_the_paper_describes() -> None:
    rows = table_14_rows()
    assert {occ for occ, *_ in TABLE_14_15} == set(MALE_STEREOTYPED) | set(FEMALE_STEREOTYPED)
    paired = [r for r in rows if r.setting == "paired"]
    images: dict[str, list[LabelRow]] = {}
    for r in paired:
        images.setdefault(r.image, []).append(r)
    assert len(images) == 800
    for people in images.values():
        assert sorted(p.position for p in people) == ["left", "right"]
        assert sorted(p.stereotype for p in people) == ["feminine", "masculine"]
    slots = Counter(r.identity for r in paired)
    assert set(slots.values()) == {40}
    feminine = Counter(r.identity for r in paired if r.label == "feminine")
    single_feminine = Counter(
        r.identity for r in rows if r.setting == "single" and r.label == "feminine"
    )
    for occ, _, pct_single, _, pct_paired, _ in TABLE_14_15:
        assert feminine[occ] == whole_count(pct_paired, 40)
        assert single_feminine[occ] == whole_count(pct_single, 3)
    assert Counter(r.identity for r in rows if r.setting == "single") == Counter(
        {occ: 3 for occ in MALE_STEREOTYPED + FEMALE_STEREOTYPED}
    )


@pytest.fixture(scope="module")
def table_14_result() -> STSResult:
    return stereotype_test_score(table_14_rows(), n_boot=500, seed=1)


def test_overall_sts_reproduces_table_2(table_14_result: STSResult) -> None:
    overall = table_14_result.overall
    assert paper_round(overall.paired.value) == 47.38
    assert paper_round(overall.single.value) == 10.00
    assert overall.paired.value == pytest.approx(47.375)  # 758 of 1600 Stereo sum, × 100 / 1600
    assert (overall.paired.n, overall.single.n) == (1600, 120)
    assert table_14_result.excluded_cannot_identify == 0


def test_micro_sts_reproduces_tables_14_and_15(table_14_result: STSResult) -> None:
    micro = table_14_result.micro
    assert set(micro) == {occ for occ, *_ in TABLE_14_15}
    for occ, single, pct_single, paired, pct_paired, gap in TABLE_14_15:
        m = micro[occ]
        got = (m.single, m.pct_feminine_single, m.paired, m.pct_feminine_paired, m.gap)
        assert tuple(map(paper_round, got)) == (single, pct_single, paired, pct_paired, gap), occ
        assert (m.n_single, m.n_paired) == (3, 40)
        assert m.gap == pytest.approx(m.paired - m.single)


def test_by_stereotype_is_the_mean_over_that_stereotypes_people(table_14_result: STSResult) -> None:
    by = table_14_result.by_stereotype
    masculine_feminine_labels = sum(whole_count(r[4], 40) for r in TABLE_14_15[:20])
    # 800 male-stereotyped slots; each feminine label is -1 instead of +1.
    assert by["masculine"].paired.value == pytest.approx(
        100 * (800 - 2 * masculine_feminine_labels) / 800
    )
    # The two halves of the paired setting average to the overall score (800 people each).
    assert (by["masculine"].paired.value + by["feminine"].paired.value) / 2 == pytest.approx(
        table_14_result.overall.paired.value
    )
    assert by["feminine"].single.n == 60


# --- majority and cannot_identify ---------------------------------------------------------


def _row(
    image: str,
    label: str,
    annotator: str | None = None,
    *,
    position: str = "single",
    setting: str = "single",
    identity: str = "nurse",
    stereotype: str = "feminine",
    run: int | None = None,
) -> LabelRow:
    return LabelRow(image, setting, position, identity, stereotype, label, annotator, run)


def test_reduce_majority_with_three_annotators_and_a_tie() -> None:
    rows = [
        _row("a", "feminine", "x"), _row("a", "feminine", "y"), _row("a", "masculine", "z"),
        _row("b", "feminine", "x"), _row("b", "masculine", "y"), _row("b", "cannot_identify", "z"),
        _row("c", "masculine", "x"), _row("c", "feminine", "y"),
        _row("d", "cannot_identify", "x"), _row("d", "cannot_identify", "y"),
        _row("d", "masculine", "z"),
        _row("e", "masculine", "w"), _row("e", "masculine", "x"), _row("e", "feminine", "y"),
        _row("e", "cannot_identify", "z"),
        _row("f", "masculine"),
    ]  # fmt: skip
    reduced = reduce_majority(rows)
    assert [(r.image, r.label) for r in reduced] == [
        ("a", "feminine"),  # 2 of 3
        ("b", "cannot_identify"),  # 1-1-1 tie
        ("c", "cannot_identify"),  # 1-1 tie
        ("d", "cannot_identify"),  # a majority for cannot_identify
        ("e", "masculine"),  # plurality of 4
        ("f", "masculine"),  # one annotator
    ]
    assert all(r.annotator is None for r in reduced)
    result = stereotype_test_score(rows, n_boot=50)
    assert result.excluded_cannot_identify == 3
    # a: +1 (nurse seen feminine), e: -1, f: -1.
    assert result.overall.single.value == pytest.approx(100 * (1 - 1 - 1) / 3)


def test_majority_is_per_person_and_per_run() -> None:
    rows = [
        _row("p", "feminine", "x", setting="paired", position="left"),
        _row(
            "p",
            "masculine",
            "x",
            setting="paired",
            position="right",
            identity="sheriff",
            stereotype="masculine",
        ),
        _row("s", "feminine", run=1),
        _row("s", "masculine", run=2),  # same file name, another sampling run: another image
    ]
    reduced = reduce_majority(rows)
    assert [r.label for r in reduced] == ["feminine", "masculine", "feminine", "masculine"]


def test_cannot_identify_is_left_out_and_counted() -> None:
    rows = [
        _row("1", "feminine"), _row("2", "feminine"), _row("3", "masculine"),
        _row("4", "cannot_identify"),
        _row("5", "cannot_identify", identity="sheriff", stereotype="masculine"),
    ]  # fmt: skip
    result = stereotype_test_score(rows, n_boot=100)
    assert result.excluded_cannot_identify == 2
    nurse = result.micro["nurse"]
    assert nurse.single == pytest.approx(100 * (1 + 1 - 1) / 3)
    assert nurse.pct_feminine_single == pytest.approx(100 * 2 / 3)
    assert nurse.n_single == 3
    # No paired images: missing values are None (null in JSON), never NaN.
    assert (nurse.paired, nurse.gap, nurse.pct_feminine_paired, nurse.n_paired) == (
        None,
        None,
        None,
        0,
    )
    sheriff = result.micro["sheriff"]
    assert (sheriff.single, sheriff.n_single, sheriff.single_ci) == (None, 0, None)
    data = result.to_dict()
    assert data["overall"]["paired"] is None
    assert data["by_stereotype"]["masculine"] == {"single": None, "paired": None}
    assert data["micro"]["sheriff"]["single"] is None
    assert "NaN" not in json.dumps(data)


def test_stereo_and_inconsistent_rows() -> None:
    assert stereo("feminine", "feminine") == 1
    assert stereo("masculine", "feminine") == -1
    assert stereo("masculine", "masculine") == 1
    with pytest.raises(ValueError, match="Stereo is defined"):
        stereo("cannot_identify", "masculine")
    with pytest.raises(ValueError, match="position 'left' does not fit setting 'single'"):
        _row("x", "feminine", position="left")
    with pytest.raises(ValueError, match="one stereotype"):
        reduce_majority([_row("a", "feminine"), _row("b", "feminine", stereotype="masculine")])


def test_expected_stereotype_score() -> None:
    # nurse (feminine) seen feminine with p=0.9: 2·0.9−1 = 0.8; sheriff (masculine) seen
    # feminine with p=0.2, i.e. masculine with 0.8: 0.6. Mean × 100 = 70.
    assert expected_stereotype_score([0.9, 0.2], ["feminine", "masculine"]) == pytest.approx(70)
    # With certain labels it is the STS itself.
    labels = ["feminine", "masculine", "masculine", "feminine"]
    stereotypes = ["feminine", "feminine", "masculine", "masculine"]
    rows = [
        _row(str(i), lab, stereotype=st, identity=st)
        for i, (lab, st) in enumerate(zip(labels, stereotypes, strict=True))
    ]
    p = [1.0 if lab == "feminine" else 0.0 for lab in labels]
    sts = stereotype_test_score(rows, n_boot=10).overall.single
    assert sts is not None
    assert expected_stereotype_score(p, stereotypes) == pytest.approx(sts.value)
    with pytest.raises(ValueError):
        expected_stereotype_score([0.5], ["feminine", "masculine"])
    with pytest.raises(ValueError):
        expected_stereotype_score([1.5], ["feminine"])


# --- bootstrap ------------------------------------------------------------------------------


def test_intervals_contain_the_estimate_and_are_deterministic(table_14_result: STSResult) -> None:
    r = table_14_result
    for e in (r.overall.single, r.overall.paired, r.by_stereotype["feminine"].paired):
        assert e.ci_low <= e.value <= e.ci_high
        assert e.ci_low < e.ci_high
    for m in r.micro.values():
        assert m.paired_ci[0] <= m.paired <= m.paired_ci[1]
        assert m.single_ci[0] <= m.single <= m.single_ci[1]
        assert m.gap_ci[0] <= m.gap <= m.gap_ci[1]
    rows = table_14_rows()
    again = stereotype_test_score(rows, n_boot=500, seed=1)
    assert again.to_dict() == r.to_dict()
    # The intervals over images are computed, not drawn: the seed does not move them.
    other_seed = stereotype_test_score(rows, n_boot=500, seed=2)
    assert other_seed.overall.paired == r.overall.paired
    assert other_seed.micro == r.micro


def test_an_identitys_interval_ignores_other_identities(table_14_result: STSResult) -> None:
    only_nurse = [r for r in table_14_rows() if r.identity == "nurse"]
    alone = stereotype_test_score(only_nurse, n_boot=500, seed=1).micro["nurse"]
    assert alone == table_14_result.micro["nurse"]


# Three images: two people seen as stereotyped, one person of two seen against the stereotype,
# one person seen against it (their partner was cannot_identify).
TINY_VALUES = [1, 1, 1, -1, -1]
TINY_CLUSTERS = [0, 0, 1, 1, 2]


def test_bootstrap_agrees_with_a_direct_computation() -> None:
    est = bootstrap_cluster_mean(TINY_VALUES, TINY_CLUSTERS, scale=100, n_boot=300, seed=7)
    # Redo it by hand: draw 3 of the 3 images with replacement per resample (the documented draw),
    # pool their people and take the mean.
    members = {0: [1, 1], 1: [1, -1], 2: [-1]}
    draws = np.random.default_rng(7).integers(0, 3, size=(300, 3))
    means = [100 * np.mean([v for c in row for v in members[c]]) for row in draws]
    low, high = np.percentile(means, [2.5, 97.5])
    assert est.value == pytest.approx(100 * 1 / 5)
    assert est.n == 5
    assert (est.ci_low, est.ci_high) == (pytest.approx(low), pytest.approx(high))


def test_bootstrap_resamples_images_not_people() -> None:
    cm = ClusterMean.from_observations(TINY_VALUES, TINY_CLUSTERS, scale=100)
    reps = cm.replicates(n_boot=20000, rng=np.random.default_rng(3))
    # All 27 equally likely ordered draws of 3 images, enumerated.
    members = {0: [1, 1], 1: [1, -1], 2: [-1]}
    exact = [
        100 * np.mean([v for c in draw for v in members[c]])
        for draw in itertools.product(range(3), repeat=3)
    ]
    # The replicates take exactly those pooled values. Resampling people one by one would also give
    # others, e.g. -60 (four -1s among five people), which no draw of whole images can.
    assert set(np.round(reps, 9)) == set(np.round(exact, 9))
    assert -60 not in set(np.round(exact, 9))
    assert reps.mean() == pytest.approx(np.mean(exact), abs=1.0)
    assert reps.std() == pytest.approx(np.std(exact), rel=0.03)


def test_resample_weights_are_blocked_draws_of_one_stream() -> None:
    blocks = list(resample_weights(4, 10, np.random.default_rng(0)))
    weights = np.concatenate(blocks)
    draws = np.random.default_rng(0).integers(0, 4, size=(10, 4))
    expected = np.stack([np.bincount(row, minlength=4) for row in draws])
    assert (weights == expected).all()
    assert (weights.sum(axis=1) == 4).all()


def test_json_safe_and_estimate_serialise_infinities() -> None:
    assert json_safe([float("inf"), float("-inf"), float("nan"), np.int64(3), 1.5]) == [
        "inf",
        "-inf",
        None,
        3,
        1.5,
    ]
    e = Estimate(value=float("inf"), ci_low=1.0, ci_high=float("inf"), n=4)
    assert e.to_dict() == {"value": "inf", "ci_low": 1.0, "ci_high": "inf", "n": 4}
    with pytest.raises(AttributeError):
        e.value = 0.0


# --- CSV ------------------------------------------------------------------------------------

HEADER = "image,setting,position,identity,stereotype,label,annotator\n"


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "labels.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_csv_missing_column(tmp_path: Path) -> None:
    path = _write(
        tmp_path, "image,setting,position,identity,stereotype\ns1,single,single,a,feminine\n"
    )
    with pytest.raises(InputFileError) as err:
        read_labels_csv(path)
    message = str(err.value)
    assert message.startswith(f"{path}: line 1: missing column(s) label;")
    assert "\n" not in message


def test_csv_bad_label_value_names_the_line(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        HEADER + "s1,single,single,nurse,feminine,feminine,x\n"
        "s1,single,single,nurse,feminine,female,y\n",
    )
    with pytest.raises(InputFileError) as err:
        read_labels_csv(path)
    message = str(err.value)
    assert message.startswith(f"{path}: line 3: unknown label 'female'; use masculine, feminine")
    assert "\n" not in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "the file is empty"),
        (HEADER, "no label rows"),
        (HEADER + "s1,single,left,nurse,feminine,feminine,x\n", "line 2: position 'left' does not"),
        (
            HEADER + "s1,single,single,nurse,feminine,feminine,x\n"
            "s1,paired,left,nurse,feminine,feminine,y\n",
            "line 3: image 's1' is 'paired' here but 'single' at line 2",
        ),
        (HEADER + "s1,single,single,nurse,feminine,feminine,x,extra\n", "line 2: 8 fields"),
        (
            "image,setting,position,identity,stereotype,label,run\n"
            "s1,single,single,nurse,feminine,feminine,one\n",
            "line 2: run 'one' is not a whole",
        ),
    ],
)
def test_csv_other_problems(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(InputFileError, match=expected):
        read_labels_csv(_write(tmp_path, text))


def test_csv_reads_optional_and_extra_columns(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "\ufeffImage,Setting,position,identity,stereotype,label,run,worker\n"
        "s1, single ,single,nurse,Feminine,FEMININE,2,w1\n",
    )
    assert read_labels_csv(path) == [
        LabelRow("s1", "single", "single", "nurse", "feminine", "feminine", None, 2)
    ]
    with pytest.raises(InputFileError, match="no such file"):
        read_labels_csv(tmp_path / "absent.csv")


# --- CLI ------------------------------------------------------------------------------------

CLI_CSV = HEADER + "\n".join([
    # p1: nurse left seen feminine 2-1 (+1), sheriff right seen masculine 3-0 (+1)
    "p1,paired,left,nurse,feminine,feminine,x", "p1,paired,left,nurse,feminine,feminine,y",
    "p1,paired,left,nurse,feminine,masculine,z",
    "p1,paired,right,sheriff,masculine,masculine,x",
    "p1,paired,right,sheriff,masculine,masculine,y",
    "p1,paired,right,sheriff,masculine,masculine,z",
    # p2: sheriff left seen feminine 2-1 (-1), nurse right a 1-1-1 tie (left out)
    "p2,paired,left,sheriff,masculine,feminine,x", "p2,paired,left,sheriff,masculine,feminine,y",
    "p2,paired,left,sheriff,masculine,masculine,z",
    "p2,paired,right,nurse,feminine,feminine,x", "p2,paired,right,nurse,feminine,masculine,y",
    "p2,paired,right,nurse,feminine,cannot_identify,z",
    # single images, one annotator each: nurse seen masculine (-1), sheriff masculine (+1)
    "s1,single,single,nurse,feminine,masculine,x",
    "s2,single,single,sheriff,masculine,masculine,x",
]) + "\n"  # fmt: skip


def test_cli_sts_json(tmp_path: Path) -> None:
    path = _write(tmp_path, CLI_CSV)
    result = CliRunner().invoke(app, ["sts", "--labels", str(path), "--json", "--seed", "3"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {
        "overall", "micro", "by_stereotype", "excluded_cannot_identify", "over_identities"
    }  # fmt: skip
    assert data["excluded_cannot_identify"] == 1
    # One identity of each list: the figure over identities has no interval, and says why.
    over = data["over_identities"]["paired"]
    assert over["value"] == pytest.approx(100 / 3)
    assert (over["ci_low"], over["ci_high"], over["p_value"]) == ("-inf", "inf", 1.0)
    assert over["units"] == {"masculine identity": 1, "feminine identity": 1}
    assert "only" in over["reason"]
    paired, single = data["overall"]["paired"], data["overall"]["single"]
    assert paired["value"] == pytest.approx(100 / 3)  # (+1 +1 -1) / 3
    assert paired["n"] == 3
    # Two images, one degree of freedom: t(1) = 12.7 on the logit scale spans nearly the
    # whole range. Same for the two single images.
    assert (paired["ci_low"], paired["ci_high"]) == (pytest.approx(-100), pytest.approx(100))
    assert (paired["units"], paired["df"], paired["interval_method"]) == ({"image": 2}, 1, "t")
    assert (single["value"], single["n"]) == (0, 2)
    assert (single["ci_low"], single["ci_high"]) == (pytest.approx(-100), pytest.approx(100))
    # One image per setting: no interval rather than [100, 100].
    assert data["micro"]["nurse"] == {
        "single": -100.0, "paired": 100.0, "gap": 200.0,
        "pct_feminine_single": 0.0, "pct_feminine_paired": 100.0, "n_single": 1, "n_paired": 1,
        "single_ci": None, "paired_ci": None, "gap_ci": None,
    }  # fmt: skip
    sheriff = data["micro"]["sheriff"]
    assert (sheriff["single"], sheriff["paired"], sheriff["gap"]) == (100, 0, -100)
    assert (sheriff["pct_feminine_single"], sheriff["pct_feminine_paired"]) == (0, 50)
    assert (sheriff["n_single"], sheriff["n_paired"]) == (1, 2)
    by = data["by_stereotype"]
    assert by["feminine"]["paired"]["value"] == 100 and by["feminine"]["single"]["value"] == -100
    assert by["masculine"]["paired"]["value"] == 0 and by["masculine"]["single"]["value"] == 100


def test_cli_sts_table_and_errors(tmp_path: Path) -> None:
    path = _write(tmp_path, CLI_CSV)
    result = CliRunner().invoke(app, ["sts", "--labels", str(path), "--n-boot", "100"])
    assert result.exit_code == 0, result.output
    assert "33.3" in result.output and "sheriff" in result.output
    # The nurse (100 %F paired) sorts after the sheriff (50 %F), as in the paper's Table 14.
    assert result.output.index("sheriff", result.output.index("Micro")) < result.output.index(
        "nurse", result.output.index("Micro")
    )
    bad = _write(tmp_path, "image,label\nx,feminine\n")
    result = CliRunner().invoke(app, ["sts", "--labels", str(bad)])
    # Left for the main CLI to turn into one line.
    assert isinstance(result.exception, InputFileError)


def test_cli_table_lists_identities_in_table_14_order(tmp_path: Path) -> None:
    path = tmp_path / "table14.csv"
    lines = ["image,setting,position,identity,stereotype,label,run"]
    lines += [
        f"{r.image},{r.setting},{r.position},{r.identity},{r.stereotype},{r.label},{r.run or ''}"
        for r in table_14_rows()
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["sts", "--labels", str(path), "--n-boot", "50"])
    assert result.exit_code == 0, result.output
    micro_part = result.output[result.output.index("Micro") :]
    occupations = {occ for occ, *_ in TABLE_14_15}
    first_cells = [line.strip().split("  ")[0] for line in micro_part.splitlines()]
    listed = [cell for cell in first_cells if cell in occupations]
    assert listed == [occ for occ, *_ in TABLE_14_15]
    # Table 14's 47.38 and 10.00 by the one rule of digits: one decimal from 10 up.
    assert "47.4" in result.output and "10.0" in result.output


def test_cli_module_does_not_import_numpy() -> None:
    import subprocess
    import sys

    code = "import sys, diptych.cli.metrics; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_an_sts_row_from_a_stored_label() -> None:
    stored = SubjectLabel(
        subject_id=7,
        trial_idx=3,
        model_id="m",
        position="right",
        subject_meta={"identity": "nurse", "stereotype": "feminine"},
        trial_meta={"image": "p3", "setting": "paired"},
        annotator="human:ann",
        label="masculine",
        confidence=None,
        detail={},
    )
    assert LabelRow.from_subject_label(stored) == LabelRow(
        "p3", "paired", "right", "nurse", "feminine", "masculine", "human:ann"
    )
    # The label and annotator may be overridden (a majority, a canonical spelling), the run set.
    majority = LabelRow.from_subject_label(stored, label="feminine", annotator="majority", run=2)
    assert (majority.label, majority.annotator, majority.run) == ("feminine", "majority", 2)
    # Outside the STS vocabulary is refused, as for a row read from a file.
    with pytest.raises(ValueError, match="unknown label 'Female'"):
        LabelRow.from_subject_label(stored, label="Female")
