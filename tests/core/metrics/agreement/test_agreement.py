"""Cohen's κ, Fleiss' κ and Krippendorff's α against worked examples, and `diptych agreement`."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from support.pst_runs import Image, Person, store_pst_run

from diptych.cli.main import main
from diptych.core.labels import SubjectLabel, annotator_kind, canonical_label, majority
from diptych.core.metrics.agreement import (
    category_counts,
    cohen_kappa,
    cohen_kappa_estimate,
    fleiss_kappa,
    fleiss_kappa_estimate,
    krippendorff_alpha,
    krippendorff_alpha_estimate,
    labelled_subjects,
)
from diptych.core.store import open_store

# --- Cohen's κ ----------------------------------------------------------------------------------


def from_table(yy: int, yn: int, ny: int, nn: int) -> tuple[list[str], list[str]]:
    """Two raters' labels from a 2 × 2 table (rows: rater A yes / no; columns: rater B)."""
    a = ["yes"] * (yy + yn) + ["no"] * (ny + nn)
    b = ["yes"] * yy + ["no"] * yn + ["yes"] * ny + ["no"] * nn
    return a, b


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        # Wikipedia's worked example: p_o = 35/50 = 0.7; A says yes to 25, B to 30, so
        # p_e = 0.5·0.6 + 0.5·0.4 = 0.5 and κ = (0.7 − 0.5) / 0.5 = 0.4.
        ((20, 5, 10, 15), 0.4),
        # Same p_o = 0.6, different marginals: p_e = 0.6·0.7 + 0.4·0.3 = 0.54, κ = 0.06/0.46.
        ((45, 15, 25, 15), 0.06 / 0.46),
        # p_e = 0.6·0.3 + 0.4·0.7 = 0.46, κ = 0.14/0.54.
        ((25, 35, 5, 35), 0.14 / 0.54),
    ],
)
def test_cohen_kappa_worked_examples(table: tuple[int, int, int, int], expected: float) -> None:
    a, b = from_table(*table)
    assert cohen_kappa(a, b) == pytest.approx(expected)
    assert cohen_kappa(b, a) == pytest.approx(expected)  # symmetric


def test_cohen_kappa_of_three_categories_by_hand() -> None:
    # A: x x y y z z; B: x y y y z x. Agree on 4 of 6: p_o = 2/3. A's shares 1/3 each; B's
    # x 2/6, y 3/6, z 1/6: p_e = (1/3)(2/6 + 3/6 + 1/6) = 1/3. κ = (2/3 − 1/3) / (2/3) = 0.5.
    assert cohen_kappa(list("xxyyzz"), list("xyyyzx")) == pytest.approx(0.5)


def test_cohen_kappa_leaves_out_missing_and_is_nan_when_undefined() -> None:
    a, b = from_table(20, 5, 10, 15)
    assert cohen_kappa([*a, None, "yes"], [*b, "no", None]) == pytest.approx(0.4)
    # Both raters always say "yes": p_e = 1, κ = 0/0.
    assert math.isnan(cohen_kappa(["yes"] * 4, ["yes"] * 4))
    assert math.isnan(cohen_kappa([], []))
    with pytest.raises(ValueError, match="labels from one rater"):
        cohen_kappa(["a"], ["a", "b"])


def test_cohen_kappa_matches_statsmodels() -> None:
    from statsmodels.stats import inter_rater

    rng = np.random.default_rng(3)
    a = rng.integers(0, 3, 200)
    b = np.where(rng.random(200) < 0.7, a, rng.integers(0, 3, 200))
    table = np.zeros((3, 3))
    np.add.at(table, (a, b), 1)
    expected = inter_rater.cohens_kappa(table, return_results=False)
    assert cohen_kappa(list(a), list(b)) == pytest.approx(expected)


# --- Fleiss' κ ----------------------------------------------------------------------------------

# Wikipedia's "Fleiss' kappa" worked example: 10 subjects, 14 raters, 5 categories.
WIKIPEDIA_FLEISS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def fleiss_by_hand(counts: Sequence[Sequence[int]]) -> tuple[float, float, float]:
    """Fleiss (1971) step by step, as Wikipedia works it: (P̄, P̄_e, κ). Equal raters only."""
    n = sum(counts[0])
    total = n * len(counts)
    p_j = [sum(row[j] for row in counts) / total for j in range(len(counts[0]))]
    p_i = [(sum(x * x for x in row) - n) / (n * (n - 1)) for row in counts]
    p_bar = sum(p_i) / len(p_i)
    p_e = sum(p * p for p in p_j)
    return p_bar, p_e, (p_bar - p_e) / (1 - p_e)


def test_fleiss_kappa_wikipedia_example() -> None:
    p_bar, p_e, kappa = fleiss_by_hand(WIKIPEDIA_FLEISS)
    # The figures Wikipedia prints: P̄ = 0.378, P̄_e = 0.213, κ = 0.210.
    assert (round(p_bar, 3), round(p_e, 3), round(kappa, 3)) == (0.378, 0.213, 0.210)
    assert fleiss_kappa(WIKIPEDIA_FLEISS) == pytest.approx(kappa)
    assert fleiss_kappa(WIKIPEDIA_FLEISS, require_equal_raters=True) == pytest.approx(kappa)


def test_fleiss_kappa_matches_statsmodels() -> None:
    from statsmodels.stats import inter_rater

    assert fleiss_kappa(WIKIPEDIA_FLEISS) == pytest.approx(
        inter_rater.fleiss_kappa(np.array(WIKIPEDIA_FLEISS), method="fleiss")
    )


def test_fleiss_kappa_with_varying_numbers_of_raters() -> None:
    # Gwet's generalisation. Items (2 raters: a a), (2: a b), (3: a a a), (1: b).
    # p_a over the items with ≥ 2 ratings: (1 + 0 + 1) / 3 = 2/3.
    # π over all four items: a = (1 + 1/2 + 1 + 0)/4 = 5/8, b = 3/8: p_e = 34/64 = 17/32.
    # κ = (2/3 − 17/32) / (1 − 17/32) = (13/96) / (15/32) = 13/45.
    counts = [[2, 0], [1, 1], [3, 0], [0, 1]]
    assert fleiss_kappa(counts) == pytest.approx(13 / 45)
    # Without the single rating: π = (5/6, 1/6), p_e = 26/36, κ = (−2/36) / (10/36) = −0.2.
    assert fleiss_kappa(counts[:3]) == pytest.approx(-0.2)
    # A row nobody rated changes nothing.
    assert fleiss_kappa([*counts, [0, 0]]) == pytest.approx(13 / 45)
    with pytest.raises(ValueError, match="between 1 and 3 raters"):
        fleiss_kappa(counts, require_equal_raters=True)


def test_fleiss_kappa_rejects_what_is_not_counts() -> None:
    with pytest.raises(ValueError, match="whole numbers"):
        fleiss_kappa([[1.5, 0.5]])
    with pytest.raises(ValueError, match="items × categories"):
        fleiss_kappa([1, 2, 3])
    assert math.isnan(fleiss_kappa([[3, 0], [2, 0]]))  # one category only: p_e = 1


# --- Krippendorff's α ---------------------------------------------------------------------------

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the example of nominal data
# from four coders with missing values (None): 12 units, unit 12 has one value only.
N = None
KRIPPENDORFF_2011 = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    "C": [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
}


def units() -> list[list[int | None]]:
    return [list(u) for u in zip(*KRIPPENDORFF_2011.values(), strict=True)]


def test_krippendorff_alpha_2011_example() -> None:
    counts, categories = category_counts(units())
    assert categories == [1, 2, 3, 4, 5]
    # The paper's coincidence matrix sums to n = 40 pairable values with n_c = (9, 13, 10, 5, 3)
    # and its diagonal to 32 (o_11 = 7, o_22 = 10, o_33 = 8, o_44 = 4, o_55 = 3), so
    # α = 1 − (n − 1)(n − Σ o_cc) / (n² − Σ n_c²) = 1 − 39·8 / (1600 − 384) = 1 − 312/1216.
    assert counts[:11].sum() == 40 and list(counts[:11].sum(axis=0)) == [9, 13, 10, 5, 3]
    assert krippendorff_alpha(counts) == pytest.approx(1 - 312 / 1216)
    assert round(krippendorff_alpha(counts), 3) == 0.743


def test_krippendorff_alpha_binary_two_coders() -> None:
    # Krippendorff (2011)'s first example, binary data from two coders, α = 0.095:
    # n = 20 values, n_0 = 14, n_1 = 6; the 4 units where they differ give o_01 = o_10 = 4:
    # α = 1 − 19·8 / (2·14·6) = 1 − 152/168 = 0.0952.
    a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    counts, _ = category_counts([list(u) for u in zip(a, b, strict=True)])
    assert krippendorff_alpha(counts) == pytest.approx(1 - 152 / 168)
    assert round(krippendorff_alpha(counts), 3) == 0.095


def test_krippendorff_alpha_matches_the_krippendorff_package() -> None:
    import krippendorff

    data = np.array(
        [[np.nan if v is None else v for v in row] for row in KRIPPENDORFF_2011.values()]
    )
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert krippendorff_alpha(category_counts(units())[0]) == pytest.approx(expected)


def test_krippendorff_alpha_undefined_cases() -> None:
    assert math.isnan(krippendorff_alpha([[1, 0], [0, 1]]))  # no unit with two values
    assert math.isnan(krippendorff_alpha([[2, 0], [3, 0]]))  # one category only


# --- bootstrap ----------------------------------------------------------------------------------


def test_estimates_carry_an_interval_and_are_reproducible() -> None:
    a, b = from_table(20, 5, 10, 15)
    est = cohen_kappa_estimate(a, b, n_boot=500, seed=1)
    assert est.value == pytest.approx(0.4) and est.n == 50
    assert est.ci_low < 0.4 < est.ci_high
    assert est == cohen_kappa_estimate(a, b, n_boot=500, seed=1)
    assert est != cohen_kappa_estimate(a, b, n_boot=500, seed=2)
    fleiss = fleiss_kappa_estimate(WIKIPEDIA_FLEISS, n_boot=500)
    assert fleiss.ci_low < fleiss.value < fleiss.ci_high and fleiss.n == 10
    alpha = krippendorff_alpha_estimate(category_counts(units())[0], n_boot=500)
    assert alpha.n == 11  # unit 12 is not pairable
    assert alpha.ci_low < alpha.value <= alpha.ci_high <= 1.0


def test_clusters_are_resampled_whole() -> None:
    # Each item twice, the copies in one cluster: κ (a ratio of sums) and every resample's κ are
    # those of the items alone, so the interval is the same as without the copies.
    a, b = from_table(20, 5, 10, 15)
    single = cohen_kappa_estimate(a, b, n_boot=300, seed=4)
    twice = cohen_kappa_estimate(a + a, b + b, clusters=list(range(50)) * 2, n_boot=300, seed=4)
    assert (twice.value, twice.ci_low, twice.ci_high) == pytest.approx(
        (single.value, single.ci_low, single.ci_high)
    )
    assert twice.n == 100
    # Treated as 100 independent items instead, the interval is narrower.
    loose = cohen_kappa_estimate(a + a, b + b, n_boot=300, seed=4)
    assert loose.ci_high - loose.ci_low < twice.ci_high - twice.ci_low


# --- labels -------------------------------------------------------------------------------------


def test_labels_kinds_and_majority() -> None:
    assert canonical_label(" Female") == "feminine" and canonical_label("MAN") == "masculine"
    assert canonical_label("Cannot-Identify") == "cannot_identify"
    assert canonical_label("Nonbinary") == "nonbinary"  # a category of its own
    assert [annotator_kind(a) for a in ("human:ann", "self", "vqa:blip")] == [
        "human", "self", "automatic",
    ]  # fmt: skip
    assert majority(["feminine", "feminine", "masculine"]) == "feminine"
    assert majority(["feminine", "masculine"]) == "cannot_identify"
    assert majority([]) is None


# --- diptych agreement ----------------------------------------------------------------------------

H1, H2, H3, AUTO = "human:1", "human:2", "human:3", "faces"
F, M, CI = "feminine", "masculine", "cannot_identify"
# Eight persons, one per single-person image; labels by human 1, 2, 3 and the automatic one.
LABELS = [
    (F, F, F, F),
    (F, F, F, M),
    (M, M, M, M),
    (M, M, M, M),
    (F, F, M, F),
    (M, M, F, M),
    (F, F, F, CI),
    (M, M, M, F),
]


def agreement_run(ws: Path) -> str:
    images = []
    for i, labels in enumerate(LABELS):
        identity, stereotype = ("nurse", F) if i % 2 == 0 else ("carpenter", M)
        person = Person("single", identity, stereotype, dict(zip((H1, H2, H3, AUTO), labels,
                                                                 strict=True)))  # fmt: skip
        images.append(Image(f"s{i}", "single", [person]))
    with open_store(ws) as store:
        store_pst_run(store, "pst-agree", images)
    return "pst-agree"


def test_agreement_command_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = tmp_path / "ws"
    run = agreement_run(ws)
    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), "agreement", run, "--json", "--n-boot", "200"])
    assert done.value.code in (0, None)
    out = json.loads(capsys.readouterr().out)
    assert out["run"] == run and out["subjects"] == 8
    kinds = {a["annotator"]: (a["kind"], a["subjects"], a["cannot_identify"])
             for a in out["annotators"]}  # fmt: skip
    assert kinds == {H1: ("human", 8, 0), H2: ("human", 8, 0), H3: ("human", 8, 0),
                     AUTO: ("automatic", 8, 1)}  # fmt: skip

    kappa = {(p["a"], p["b"]): p for p in out["cohen_kappa"]}
    assert len(kappa) == 6  # every pair of the four
    # Humans 1 and 2 agree everywhere, each with four F and four M: κ = 1.
    assert kappa[(H1, H2)]["value"] == pytest.approx(1.0)
    # Human 3 differs from 1 on persons 5 and 6: p_o = 6/8, both 4 F / 4 M, p_e = 1/2: κ = 1/2.
    assert kappa[(H1, H3)]["value"] == pytest.approx(0.5)
    assert kappa[(H2, H3)]["value"] == pytest.approx(0.5)
    # faces vs human 1: agree on persons 1, 3, 4, 5, 6 (5/8). faces: F 3, M 4, CI 1; human 1:
    # F 4, M 4: p_e = (4·3 + 4·4 + 0·1)/64 = 28/64. κ = (40/64 − 28/64)/(36/64) = 1/3.
    assert kappa[(H1, AUTO)]["value"] == pytest.approx(1 / 3)
    assert kappa[(H1, AUTO)]["observed_agreement"] == pytest.approx(5 / 8)
    # faces vs human 3: agree on 1, 3, 4 (3/8), same p_e: κ = (24 − 28)/36 = −1/9.
    assert kappa[(H3, AUTO)]["value"] == pytest.approx(-1 / 9)
    assert all(p["n"] == 8 for p in out["cohen_kappa"])

    # Fleiss among the three people: six unanimous persons (P_i = 1) and two 2:1 (P_i = 1/3):
    # P̄ = (6 + 2/3)/8 = 5/6; F and M each half of the 24 labels: p_e = 1/2; κ = 2/3.
    fleiss = {g["stratum"]: g for g in out["fleiss_kappa_humans"]}
    assert set(fleiss) == {"all", "occupation/single"}
    assert fleiss["all"]["value"] == pytest.approx(2 / 3)
    assert fleiss["all"]["raters_per_subject"] == [3, 3] and fleiss["all"]["n"] == 8

    # α over all four: per-unit value counts (F, M, CI), m_u = 4: Σ o_cc = 22 of n = 32 values;
    # n_F = 15, n_M = 16, n_CI = 1: α = 1 − 31·10 / (32² − (225 + 256 + 1)) = 1 − 310/542.
    alpha = out["krippendorff_alpha"]
    assert alpha["all_annotators"]["value"] == pytest.approx(1 - 310 / 542)
    # Among the people: Σ o_cc = 20 of n = 24, n_F = n_M = 12: α = 1 − 23·4/288 = 49/72.
    assert alpha["humans"]["value"] == pytest.approx(49 / 72)

    # faces against the human majority (here human 1's labels): κ = 1/3 as above; accuracy 5/8;
    # it gave a gender for 7 of 8 (coverage); of the three majority-F persons it called a gender
    # it said F for two (sensitivity 2/3); majority M four, it said M for three (3/4).
    (auto, auto_slice) = out["against_human_majority"]
    assert {auto["stratum"], auto_slice["stratum"]} == {"all", "occupation/single"}
    assert auto["annotator"] == AUTO and auto["cohen_kappa"]["value"] == pytest.approx(1 / 3)
    assert auto["accuracy"] == pytest.approx(5 / 8) and auto["coverage"] == pytest.approx(7 / 8)
    assert auto["abstained"] == 1 and auto["both_labelled"] == 8
    assert auto["sensitivity"] == pytest.approx(2 / 3)
    assert auto["specificity"] == pytest.approx(3 / 4)
    assert out["human_majority_cannot_identify"] == 0
    assert out["bootstrap"] == {"n_boot": 200, "seed": 0, "resamples": "images"}


def test_agreement_command_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = tmp_path / "ws"
    run = agreement_run(ws)
    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), "agreement", run[:6], "--n-boot", "100"])
    assert done.value.code in (0, None)
    out = capsys.readouterr().out
    for title in ("Labels by annotator", "Cohen's κ", "Fleiss' κ", "human majority"):
        assert title in out
    assert "0.67" in out and "0.33" in out  # Fleiss' κ 2/3 and faces' κ 1/3


def test_agreement_command_without_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    with open_store(ws) as store:
        store_pst_run(store, "pst-none", [Image("s0", "single", [Person("single", "nurse", F)])])
    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), "agreement", "pst-none"])
    assert done.value.code == 2
    assert "has no labels yet" in capsys.readouterr().err


def test_labelled_subjects_pool_each_persons_labels() -> None:
    def stored(sid: int, trial: int, annotator: str, label: str) -> SubjectLabel:
        meta = {"aspect": "occupation", "setting": "paired"}
        return SubjectLabel(sid, trial, "m", "left", {}, meta, annotator, label, None, {})

    subjects = labelled_subjects(
        [
            stored(1, 0, "human:a", " Female"),
            stored(1, 0, "faces", "woman"),
            stored(2, 0, "human:a", "MAN"),
        ]
    )
    assert [(s.subject, s.cluster, s.stratum, dict(s.labels)) for s in subjects] == [
        (1, 0, "occupation/paired", {"human:a": "feminine", "faces": "feminine"}),
        (2, 0, "occupation/paired", {"human:a": "masculine"}),
    ]


def test_agreement_command_prints_counts_with_separators(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace

    from diptych.core.workspace.annotators import Annotators
    from tests.support.surfaces.text import printed_problems

    measured = Annotators.agreement

    def many(self: Annotators, run_id: str, **kw: int) -> object:
        # The persons' count as a large run has it: the summary and the table print it.
        return replace(measured(self, run_id, **kw), subjects=1424)

    monkeypatch.setattr(Annotators, "agreement", many)
    run = agreement_run(tmp_path / "ws")
    with pytest.raises(SystemExit) as done:
        main(["--store", str(tmp_path / "ws"), "agreement", run, "--n-boot", "100"])
    assert done.value.code in (0, None)
    out = capsys.readouterr().out
    words = " ".join(out.split())
    assert "1,424 labelled persons" in words
    assert [p for p in printed_problems(out) if "separator" in p] == []
