"""Scoring a stored ``pst`` run: the paper's numbers, the label policy, tables, flags, figures."""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

import pytest
from PIL import Image as PILImage
from support.pst_runs import Image, Person, store_pst_run
from support.sts_tables import (
    FEMALE_STEREOTYPED,
    MALE_STEREOTYPED,
    TABLE_14_15,
    paper_round,
    table_14_rows,
)

from diptych.core.labels import HUMAN_MAJORITY, POLICY_TEXT
from diptych.core.metrics.sts import LabelRow
from diptych.core.probe import ProbeResult, Table
from diptych.core.report.formatting import figure_text
from diptych.core.store import Store
from diptych.core.workspace import Workspace
from diptych.plugins.probes.pst.analysis import analyze_pst
from diptych.plugins.probes.pst.collect import collect_labels
from diptych.plugins.probes.pst.labor import bls_pct_female, labor_statistics

# --- storing a run by the probe's contract ----------------------------------------------------


def images_from_rows(
    rows: Iterable[LabelRow], *, annotator: str = "human:a", **image_fields: Any
) -> list[Image]:
    """One stored image per image of the STS rows, each person labelled by ``annotator``."""
    images: dict[tuple[int | None, str], Image] = {}
    for row in rows:
        image = images.setdefault(
            row.image_key,
            Image(row.image, row.setting, [], run=row.run or 1, **image_fields),
        )
        image.persons.append(
            Person(row.position, row.identity, row.stereotype, {annotator: row.label})
        )
    return list(images.values())


PROBE = SimpleNamespace(name="pst", p=SimpleNamespace(seed=0))


def table(result: ProbeResult, title_part: str) -> Table:
    (found,) = [t for t in result.tables if title_part in t.title]
    return found


def column(t: Table, name: str) -> dict[Any, Any]:
    i = t.columns.index(name)
    return {row[0]: row[i] for row in t.rows}


# --- the paper's gendered-occupation study ----------------------------------------------------


@pytest.fixture(scope="module")
def table_14_result(tmp_path_factory: pytest.TempPathFactory) -> ProbeResult:
    with Store(tmp_path_factory.mktemp("ws")) as store:
        view = store_pst_run(store, "pst-t14", images_from_rows(table_14_rows()))
        return analyze_pst(PROBE, view)


def test_overall_sts_and_gap_reproduce_table_2(table_14_result: ProbeResult) -> None:
    numbers = table_14_result.numbers
    paired, single = numbers["occupation: STS paired"], numbers["occupation: STS single"]
    assert paper_round(paired["value"]) == 47.38
    assert paper_round(single["value"]) == 10.00
    assert (paired["n"], single["n"]) == (1600, 120)
    gap = numbers["occupation: gap paired − single"]
    assert gap["value"] == pytest.approx(37.375)  # Table 2's 37.38↑
    for number in (paired, single, gap):
        assert number["ci_low"] < number["value"] < number["ci_high"]


def test_table_13_per_run_number(table_14_result: ProbeResult) -> None:
    overall = table(table_14_result, "Overall STS")
    rows = {(r[0], r[1]): r for r in overall.rows}
    # The construction gives run n's single image of an occupation the feminine label when its
    # %F single stands for at least n feminine images. Run 1: 18 of the 20 male-stereotyped
    # occupations are feminine (-18 + 2), all 20 female ones (+20): 4/40 = 10.00. Run 2: -17 + 3
    # and +17 - 3: 0.00. Run 3: -4 + 16 and +8 - 12: 8/40 = 20.00. Their mean is Table 2's 10.00.
    assert [rows[("single", n)][2] for n in (1, 2, 3)] == pytest.approx([10.0, 0.0, 20.0])
    assert rows[("single", "all")][4:] == [120, 120]
    # Every paired image is of run 1 (as in Table 13), so no per-run rows for it.
    assert ("paired", 1) not in rows and rows[("paired", "all")][4:] == [1600, 800]
    assert rows[("paired − single", "all")][2] == pytest.approx(37.375)
    interval = rows[("single", 2)][3]
    assert interval.startswith("[") and interval.endswith("]")


def test_table_3_by_stereotyped_gender(table_14_result: ProbeResult) -> None:
    by = table(table_14_result, "Table 3")
    rows = {r[0]: r for r in by.rows}
    # Table 3: female-stereotyped 50.00 / 45.00 / -5.00; male -30.00 / 49.74 / 79.74 (the mean
    # of Table 14's male paired column is 995/20 = 49.75; the paper's 49.74 is its rounding).
    assert rows["female-stereotyped"][1] == pytest.approx(50.0)
    assert rows["female-stereotyped"][3] == pytest.approx(45.0)
    assert rows["female-stereotyped"][5] == pytest.approx(-5.0)
    assert rows["male-stereotyped"][1] == pytest.approx(-30.0)
    assert rows["male-stereotyped"][3] == pytest.approx(49.75)
    assert rows["male-stereotyped"][5] == pytest.approx(79.75)
    assert rows["overall"][5] == pytest.approx(37.375)
    assert all(isinstance(r[6], str) and r[6].startswith("[") for r in by.rows)


def test_micro_table_reproduces_tables_14_and_15(table_14_result: ProbeResult) -> None:
    micro = table(table_14_result, "Tables 14 and 15")
    # Sorted as Table 14 (ascending %F paired, ties by name).
    assert [r[0] for r in micro.rows][:3] == ["mechanician", "mover", "sheriff"]
    assert micro.rows[-1][0] == "secretary"
    cols = {name: column(micro, name) for name in micro.columns}
    for occ, single, pct_single, paired, pct_paired, gap in TABLE_14_15:
        got = (
            cols["STS single"][occ],
            cols["%F single"][occ],
            cols["STS paired"][occ],
            cols["%F paired"][occ],
            cols["gap"][occ],
        )
        assert tuple(map(paper_round, got)) == (single, pct_single, paired, pct_paired, gap)
        assert (cols["n single"][occ], cols["n paired"][occ]) == (3, 40)


def test_pct_feminine_interval_follows_from_the_micro_sts_interval(
    table_14_result: ProbeResult,
) -> None:
    micro = table(table_14_result, "Tables 14 and 15")
    ci, pct_ci = column(micro, "paired 95% CI"), column(micro, "%F paired 95% CI")

    def parse(text: str) -> tuple[float, float]:
        low, high = text.strip("[]").split(", ")
        return float(low), float(high)

    # Both columns are shown to one decimal, each rounded on its own: an end may differ from
    # the shown STS end's image by half a shown unit of %F plus half of one of the STS's.
    shown = 0.05 + 0.05 / 2
    # Masculine-stereotyped: %F = (100 - STS) / 2, so the ends swap.
    low, high = parse(ci["mechanician"])
    expected = ((100 - high) / 2, (100 - low) / 2)
    assert parse(pct_ci["mechanician"]) == pytest.approx(expected, abs=shown)
    low, high = parse(ci["secretary"])
    expected = ((100 + low) / 2, (100 + high) / 2)
    assert parse(pct_ci["secretary"]) == pytest.approx(expected, abs=shown)


def test_bls_column_reads_the_shipped_winobias_table(table_14_result: ProbeResult) -> None:
    micro = table(table_14_result, "Tables 14 and 15")
    bls = column(micro, "%F BLS")
    # The WinoBias table's figures (not Table 14's newer ones), through its naming quirks.
    assert bls["mechanician"] == 4.0  # table_name "mechanician", occupation "mechanic"
    assert bls["sewist"] == 80.0  # the paper's rename of "sewer" (occupation "tailor")
    assert bls["construction worker"] == 3.5  # table_name "constructor"
    assert bls["counselor"] == 73.0  # table_name "counselors"
    assert bls["ceo"] == 39.0  # written "CEO"
    assert bls["secretary"] == 95.0
    assert None not in bls.values()
    notes = column(micro, "BLS note")
    assert notes["chief"] == "Table 14: N/A"
    assert notes["accountant"] == "Table 14: same as auditor"
    assert "WinoBias" in micro.note and "winobias_bls_pct_female.tsv" in micro.note
    r = table_14_result.numbers["occupation: Pearson r, %F paired vs %F BLS (over occupations)"]
    assert r["n"] == 40 and -1 <= r["ci_low"] < r["value"] < r["ci_high"] <= 1


def test_bls_lookup_covers_every_table_7_occupation() -> None:
    stats = labor_statistics()
    assert stats is not None
    for occ in MALE_STEREOTYPED + FEMALE_STEREOTYPED:
        assert bls_pct_female(occ, stats) is not None, occ
    assert bls_pct_female("astronaut", stats) is None


def test_flags_identities_whose_paired_interval_excludes_zero(
    table_14_result: ProbeResult,
) -> None:
    flagged = {
        f["identity"]: f
        for f in table_14_result.flags
        if f["reason"] == "paired micro STS interval excludes 0"
    }
    # 75.00 from 40 persons is far from 0; 5.00 (accountant, writer) is not.
    assert "mechanician" in flagged and "secretary" in flagged
    assert "accountant" not in flagged and "writer" not in flagged
    for f in flagged.values():
        assert f["ci_low"] > 0 or f["ci_high"] < 0
    assert not [f for f in table_14_result.flags if f["reason"] == "persons without a label"]


def test_figures_are_pngs(table_14_result: ProbeResult) -> None:
    names = [f.name for f in table_14_result.figures]
    assert names == ["fig3_micro_sts_paired", "fig4_pct_female_vs_bls", "fig5_single_vs_paired"]
    for figure in table_14_result.figures:
        with PILImage.open(io.BytesIO(figure.png)) as png:
            assert png.format == "PNG"
            assert png.width > 300 and png.height > 300
        assert figure.caption and figure.path == f"figures/{figure.name}.png"
    # Each text alternative states every point the figure draws: Table 14's micro STS.
    micro = table(table_14_result, "Tables 14 and 15")
    paired, single = column(micro, "STS paired"), column(micro, "STS single")
    fig3, _, fig5 = (f.alt for f in table_14_result.figures)
    for occ, *_ in TABLE_14_15:
        # Printed as every figure is (one decimal from 10 up, two below).
        assert f"{occ} (" in fig3 and f") {figure_text(paired[occ])} (95% interval " in fig3
        assert f"{occ}: single {figure_text(single[occ])}" in fig5


# --- the label policy ---------------------------------------------------------------------------


def _nurse(position: str = "single", **labels: str) -> Person:
    return Person(position, "nurse", "feminine", dict(labels))


def _carpenter(position: str, **labels: str) -> Person:
    return Person(position, "carpenter", "masculine", dict(labels))


def policy_images() -> list[Image]:
    h1, h2, h3, auto, other = "human:1", "human:2", "human:3", "faces", "vqa"
    return [
        # Humans 2:1 feminine; the automatic annotator says masculine: humans win (+1).
        Image("s1", "single", [_nurse(**{h1: "feminine", h2: "feminine", h3: "masculine",
                                         auto: "masculine"})]),
        # No human: the automatic annotator's label (-1).
        Image("s2", "single", [_nurse(**{auto: "masculine"})]),
        # Human tie: cannot_identify, although the automatic annotator is sure.
        Image("s3", "single", [_nurse(**{h1: "feminine", h2: "masculine", auto: "feminine"})]),
        # Only the less-used automatic annotator: it fills in (+1); 'self' is never used.
        Image("s4", "single", [_nurse(**{other: "feminine", "self": "masculine"})]),
        # No label at all (only 'self'): unlabelled.
        Image("s5", "single", [_nurse(**{"self": "feminine"})]),
        # A paired image: the left person by the automatic annotator, the right unlabelled.
        Image("p1", "paired", [_carpenter("left", **{auto: "masculine"}), _nurse("right")]),
        # Refused and pending images: nothing to label.
        Image("p2", "paired", [_carpenter("left"), _nurse("right")], status="refused"),
        Image("s6", "single", [_nurse()], status="pending"),
    ]  # fmt: skip


def test_label_policy_human_majority_beats_automatic(store: Store) -> None:
    view = store_pst_run(store, "pst-policy", policy_images())
    labels = collect_labels(view)
    assert labels.automatic == ["faces", "vqa"]  # faces labelled more persons
    (group,) = labels.groups.values()
    by_image = {(r.image, r.position): (r.label, r.annotator) for r in group.rows}
    assert by_image == {
        ("s1", "single"): ("feminine", HUMAN_MAJORITY),
        ("s2", "single"): ("masculine", "faces"),
        ("s3", "single"): ("cannot_identify", HUMAN_MAJORITY),
        ("s4", "single"): ("feminine", "vqa"),
        ("p1", "left"): ("masculine", "faces"),
    }
    assert group.unlabelled == {"single": 1, "paired": 1}
    assert group.sources == {HUMAN_MAJORITY: 2, "faces": 2, "vqa": 1}

    result = analyze_pst(PROBE, view)
    # Single: s1 +1, s2 -1, s4 +1 (s3 cannot_identify): 100/3.
    assert result.numbers["occupation: STS single"]["value"] == pytest.approx(100 / 3)
    assert result.numbers["occupation: STS paired"]["value"] == pytest.approx(100.0)
    coverage = table(result, "Images and labels")
    rows = {r[2]: r for r in coverage.rows}
    header = coverage.columns
    single = dict(zip(header, rows["single"], strict=True))
    paired = dict(zip(header, rows["paired"], strict=True))
    assert (single["images"], single["done"], single["pending"]) == (6, 5, 1)
    assert (single["persons labelled"], single["by human majority"]) == (4, 2)
    assert (single["unlabelled"], single["cannot_identify"]) == (1, 1)
    assert (paired["images"], paired["refused"], paired["unlabelled"]) == (2, 1, 1)
    (flag,) = [f for f in result.flags if f["reason"] == "persons without a label"]
    assert flag["count"] == 2
    assert any("human annotators" in n for n in result.notes)
    assert any("1 images were refused" in n and "carpenter (1)" in n for n in result.notes)


def test_labels_are_read_case_insensitively_and_strays_are_reported(store: Store) -> None:
    images = [
        Image("s1", "single", [_nurse(**{"faces": "Female"})]),
        Image("s2", "single", [_nurse(**{"faces": "alien"})]),
    ]
    result = analyze_pst(PROBE, store_pst_run(store, "pst-vocab", images))
    single = result.numbers["occupation: STS single"]
    # One identity: the headline over identities has no interval and says why; beside it the
    # figure over images, one scored image: no interval either, and it says why (never
    # [100, 100]).
    assert single["value"] == 100.0
    assert single["reason"] == "one feminine identity only: no interval"
    images_only = single["images_only"]
    assert {k: images_only[k] for k in ("value", "ci_low", "ci_high", "n")} == {
        "value": 100.0, "ci_low": "-inf", "ci_high": "inf", "n": 1
    }  # fmt: skip
    assert images_only["reason"] == "one image only: no interval"
    assert any("'alien' (1)" in n for n in result.notes)


# --- small, empty and power runs ------------------------------------------------------------


def test_a_run_without_labels_says_how_to_add_them(store: Store, tmp_path: Any) -> None:
    images = [Image("p1", "paired", [_carpenter("left"), _nurse("right")])]
    view = store_pst_run(store, "pst-empty", images)
    result = analyze_pst(PROBE, view)
    expected = (
        "no labels yet: import them with diptych annotate pst-empty --import FILE.csv or run "
        "an annotator"
    )
    assert expected in result.summary
    assert not result.figures and not result.numbers
    coverage = table(result, "Images and labels")
    assert coverage.rows[0][coverage.columns.index("unlabelled")] == 2
    # The report renders it all the same.
    md = Workspace(store).analysis.report(view.id, tmp_path / "rep", result=result)
    assert "no labels yet" in md.read_text()


def test_a_tiny_run_still_draws_its_figures(store: Store, tmp_path: Any) -> None:
    images = [
        Image("p1", "paired", [_carpenter("left", **{"faces": "masculine"}),
                               _nurse("right", **{"faces": "masculine"})]),
    ]  # fmt: skip
    view = store_pst_run(store, "pst-tiny", images)
    result = analyze_pst(PROBE, view)
    assert result.numbers["occupation: STS paired"]["value"] == 0.0
    assert "occupation: gap paired − single" not in result.numbers
    # No single-person images: no gap, so no Figure 5; Figures 3 and 4 have one point each.
    assert [f.name for f in result.figures] == ["fig3_micro_sts_paired", "fig4_pct_female_vs_bls"]
    path = Workspace(store).analysis.report(view.id, tmp_path / "rep", result=result)
    assert (tmp_path / "rep" / "figures" / "fig3_micro_sts_paired.png").read_bytes()[:8] == (
        b"\x89PNG\r\n\x1a\n"
    )
    # One image per occupation gives the micro-STS table no interval to chart, so the report
    # shows the probe's own Figure 3 (its points without whiskers) and no chart of the table.
    markdown = path.read_text()
    assert "![Figure 3" in markdown and "![occupation: Micro STS per occupation" not in markdown


def power_images(model_id: str = "m1") -> list[Image]:
    """Two occupations, each with its high- and low-power identity (Table 16 names).

    Paired images (3 runs x 2 orders) per occupation; single images, 3 runs per identity.
    carpenter power: paired 6/6 masculine (+100), single 1 of 3 masculine (-33.33);
    carpenter minor: paired 3/6 feminine (0), single 3/3 feminine (+100);
    nurse power: paired 4/6 masculine (+33.33), single 0/3 masculine (-100);
    nurse minor: paired 6/6 feminine (+100), single 2/3 feminine (+33.33).
    """

    def power(occ: str, level: str, position: str, label: str) -> Person:
        identity = f"{occ} {'power' if level == 'high' else 'minor'}"
        stereotype = "masculine" if level == "high" else "feminine"
        role = "manager" if level == "high" else "intern"
        return Person(position, identity, stereotype, {"human:1": label}, occ, role, level)

    paired_masculine = {("carpenter", "high"): 6, ("carpenter", "low"): 3,
                        ("nurse", "high"): 4, ("nurse", "low"): 0}  # fmt: skip
    single_masculine = {("carpenter", "high"): 1, ("carpenter", "low"): 0,
                        ("nurse", "high"): 0, ("nurse", "low"): 1}  # fmt: skip
    seen: dict[tuple[str, str, str], int] = {}

    def label(occ: str, level: str, setting: str) -> str:
        n = seen.setdefault((occ, level, setting), 0)
        seen[(occ, level, setting)] = n + 1
        table = paired_masculine if setting == "paired" else single_masculine
        return "masculine" if n < table[(occ, level)] else "feminine"

    images = []
    for occ, run, high_left in itertools.product(("carpenter", "nurse"), (1, 2, 3), (True, False)):
        levels = ("high", "low") if high_left else ("low", "high")
        people = [
            power(occ, level, pos, label(occ, level, "paired"))
            for level, pos in zip(levels, ("left", "right"), strict=True)
        ]
        name = f"{occ}:{'hl' if high_left else 'lh'}#{run}"
        images.append(Image(name, "paired", people, aspect="power", run=run, model_id=model_id))
    for occ, level, run in itertools.product(("carpenter", "nurse"), ("high", "low"), (1, 2, 3)):
        person = power(occ, level, "single", label(occ, level, "single"))
        name = f"{person.identity}#{run}"
        images.append(Image(name, "single", [person], aspect="power", run=run, model_id=model_id))
    return images


def test_power_levels_table_4_and_16(store: Store) -> None:
    result = analyze_pst(PROBE, store_pst_run(store, "pst-power", power_images()))
    micro = table(result, "Table 16")
    assert [r[0] for r in micro.rows] == [
        "carpenter minor", "carpenter power", "nurse minor", "nurse power",
    ]  # fmt: skip
    single, paired, gap = (column(micro, c) for c in ("STS single", "STS paired", "gap"))
    assert single["carpenter power"] == pytest.approx(-100 / 3)
    assert paired["carpenter power"] == pytest.approx(100.0)
    assert gap["carpenter power"] == pytest.approx(400 / 3)
    assert paired["carpenter minor"] == pytest.approx(0.0)
    assert single["carpenter minor"] == pytest.approx(100.0)
    assert paired["nurse power"] == pytest.approx(100 / 3)
    assert single["nurse power"] == pytest.approx(-100.0)
    assert paired["nurse minor"] == pytest.approx(100.0)
    assert single["nurse minor"] == pytest.approx(100 / 3)
    assert column(micro, "occupation")["nurse minor"] == "nurse"
    assert column(micro, "power")["nurse minor"] == "low"

    levels = {r[0]: r for r in table(result, "Table 4").rows}
    # Powerful, paired: carpenter power +6, nurse power 4 - 2 = +2: 8 of 12 persons; single:
    # (1 - 2) + (0 - 3) = -4 of 6.
    assert levels["powerful (high power)"][3] == pytest.approx(100 * 8 / 12)
    assert levels["powerful (high power)"][1] == pytest.approx(-100 * 4 / 6)
    # Powerless: paired 0 + 6 of 12; single 3 + (2 - 1) = 4 of 6.
    assert levels["powerless (low power)"][3] == pytest.approx(50.0)
    assert levels["powerless (low power)"][1] == pytest.approx(100 * 4 / 6)
    overall = result.numbers["power: STS paired"]
    assert overall["value"] == pytest.approx(100 * 14 / 24) and overall["n"] == 24
    # Three runs in each setting: Table 13's per-run rows exist for both.
    runs = {(r[0], r[1]) for r in table(result, "Overall STS").rows}
    assert {("paired", 1), ("paired", 3), ("single", 2)} <= runs

    (figure,) = result.figures
    assert figure.name == "fig7_power_levels"
    with PILImage.open(io.BytesIO(figure.png)) as png:
        assert png.format == "PNG"


def test_several_models_and_aspects_are_kept_apart(store: Store) -> None:
    occupation = images_from_rows(
        [
            LabelRow("a", "paired", "left", "carpenter", "masculine", "masculine", run=1),
            LabelRow("a", "paired", "right", "nurse", "feminine", "feminine", run=1),
        ],
        model_id="m2",
    )
    view = store_pst_run(store, "pst-two", power_images("m1") + occupation)
    result = analyze_pst(PROBE, view)
    assert result.numbers["m1 · power: STS paired"]["value"] == pytest.approx(100 * 14 / 24)
    assert result.numbers["m2 · occupation: STS paired"]["value"] == 100.0
    assert "m1 · occupation: STS paired" not in result.numbers
    names = {f.name for f in result.figures}
    assert {"fig7_power_levels-m1", "fig3_micro_sts_paired-m2"} <= names


def test_sts_per_label_source_and_the_chosen_policy(store: Store) -> None:
    view = store_pst_run(store, "pst-sources", policy_images())
    mixed = analyze_pst(PROBE, view)
    n = mixed.numbers
    # By hand, single setting. Human majority alone: s1 feminine (+1), s3 a tie (left out) →
    # +100 on 1 person. faces alone: s1 −1, s2 −1, s3 +1 → −100/3. vqa alone: s4 +1 → +100.
    assert n["occupation: STS single, labels by human majority"]["value"] == 100.0
    assert n["occupation: STS single, labels by human majority"]["n"] == 1
    assert n["occupation: STS single, labels by faces"]["value"] == pytest.approx(-100 / 3)
    assert n["occupation: STS single, labels by vqa"]["value"] == 100.0
    # Paired: only faces labelled anyone (p1's carpenter, masculine: +1).
    assert n["occupation: STS paired, labels by faces"]["value"] == 100.0
    assert "occupation: STS paired, labels by human majority" not in n
    by_source = table(mixed, "STS by label source")
    assert {row[1] for row in by_source.rows} == {
        "policy: mixed", "human majority", "faces", "vqa"
    }  # fmt: skip
    assert mixed.data["label_policy_name"] == "mixed"
    # The human policy scores s1 only; the automatic one faces first, then vqa: s1 −1, s2 −1,
    # s3 +1, s4 +1 → 0, and p1 +1 paired.
    view.label_policy = "human"
    human = analyze_pst(PROBE, view)
    assert human.numbers["occupation: STS single"]["value"] == 100.0
    assert "occupation: STS paired" not in human.numbers
    assert human.data["label_policy"] == POLICY_TEXT["human"]
    view.label_policy = "automatic"
    automatic = analyze_pst(PROBE, view)
    assert automatic.numbers["occupation: STS single"]["value"] == pytest.approx(0.0)
    assert automatic.numbers["occupation: STS paired"]["value"] == 100.0


def test_a_source_that_labelled_the_policys_persons_gives_the_policys_figure(
    store: Store,
) -> None:
    """Three persons labelled by people, the automatic annotator unable to tell anyone: the
    mixed policy's figure and the human majority's rest on the same labels, so they are one
    figure — the same value, count, interval and what it resamples — never the same value with
    two intervals (the policy's over identities, the source's over these images, because the
    source's rows had lost the scenes' unlabelled identities)."""
    h, auto = "human:1", "faces"
    unsure = {auto: "cannot_identify"}
    images = [
        Image("p1", "paired", [_carpenter("left", **{h: "masculine"}, **unsure),
                               _nurse("right", **{h: "feminine"}, **unsure)]),
        Image("p2", "paired", [_carpenter("left", **{h: "feminine"}, **unsure),
                               _nurse("right", **unsure)]),
        Image("p3", "paired", [Person("left", "farmer", "masculine", dict(unsure)),
                               Person("right", "editor", "feminine", dict(unsure))]),
    ]  # fmt: skip
    n = analyze_pst(PROBE, store_pst_run(store, "pst-same", images)).numbers
    policy = n["occupation: STS paired"]
    human = n["occupation: STS paired, labels by human majority"]
    # +1, +1, −1 of 3 persons.
    assert policy["value"] == human["value"] == pytest.approx(100 / 3)
    assert policy["n"] == human["n"] == 3
    assert policy["resampled"] == "masculine and feminine identities"
    for key in ("ci_low", "ci_high", "floor", "resampled", "interval_method", "images_only"):
        assert policy.get(key) == human.get(key), key
