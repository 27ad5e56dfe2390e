"""Stereotype Test Score: the PST paper's numbers (Tables 2, 14 and 15), majority voting and
cannot_identify, and the intervals of its image bootstrap."""

from __future__ import annotations

import itertools
import json
from collections import Counter

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

from diptych.core.metrics.sts import (
    LabelRow,
    STSResult,
    expected_stereotype_score,
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
