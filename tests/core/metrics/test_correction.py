"""Rogan–Gladen correction of an annotator's labels, back to STS, with calibration uncertainty."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from support.pst_runs import Image, Person, store_pst_run

from diptych.core.metrics.correction import (
    ErrorCounts,
    corrected_stereotype_test_score,
    expected_stereo,
    jeffreys_interval,
    rogan_gladen,
    rogan_gladen_array,
)
from diptych.core.store import Store
from diptych.plugins.probes.pst.analysis import analyze_pst
from diptych.plugins.probes.pst.corrected import CORRECTED_LABEL_POLICY

# --- the formulas -------------------------------------------------------------------------------


def test_rogan_gladen_inverts_the_annotators_errors() -> None:
    # True share 0.25, Se 0.8, Sp 0.85: observed 0.25·0.8 + 0.75·0.15 = 0.3125, and back:
    # (0.3125 + 0.85 − 1) / (0.8 + 0.85 − 1) = 0.1625 / 0.65 = 0.25.
    assert rogan_gladen(0.3125, 0.8, 0.85) == pytest.approx(0.25)
    # A perfect annotator needs no correction.
    assert rogan_gladen(0.4, 1.0, 1.0) == pytest.approx(0.4)
    # Observed shares the errors alone cannot produce are clipped: below 1 − Sp to 0, above Se
    # to 1.
    assert rogan_gladen(0.1, 0.8, 0.85) == 0.0
    assert rogan_gladen(0.9, 0.8, 0.85) == 1.0
    with pytest.raises(ValueError, match="no better than chance"):
        rogan_gladen(0.5, 0.5, 0.5)
    with pytest.raises(ValueError, match="must lie in"):
        rogan_gladen(1.2, 0.8, 0.8)
    out = rogan_gladen_array([0.3125, 0.5], [0.8, 0.4], [0.85, 0.5])
    assert out[0] == pytest.approx(0.25) and math.isnan(out[1])


def test_expected_stereo_and_counts() -> None:
    assert expected_stereo(0.75, "feminine") == pytest.approx(0.5)
    assert expected_stereo(0.75, "masculine") == pytest.approx(-0.5)
    with pytest.raises(ValueError):
        expected_stereo(0.5, "neither")
    counts = ErrorCounts.from_pairs(
        [("feminine", "feminine")] * 8 + [("feminine", "masculine")] * 2
        + [("masculine", "masculine")] * 9 + [("masculine", "feminine")]
        + [("feminine", "cannot_identify"), ("cannot_identify", "masculine")]
    )  # fmt: skip
    assert counts == ErrorCounts(8, 10, 9, 10)
    assert (counts.sensitivity, counts.specificity) == (0.8, 0.9)
    assert counts.youden == pytest.approx(0.7)
    assert ErrorCounts.from_dict(counts.to_dict()) == counts
    assert ErrorCounts(0, 0, 1, 1).sensitivity is None
    with pytest.raises(ValueError, match="correct of"):
        ErrorCounts(3, 2, 0, 0)


def test_jeffreys_interval() -> None:
    from scipy.stats import beta

    low, high = jeffreys_interval(8, 10) or (0, 0)
    assert (low, high) == pytest.approx((beta.ppf(0.025, 8.5, 2.5), beta.ppf(0.975, 8.5, 2.5)))
    assert jeffreys_interval(0, 10) == (0.0, pytest.approx(beta.ppf(0.975, 0.5, 10.5)))
    assert (jeffreys_interval(10, 10) or (0, 0))[1] == 1.0
    assert jeffreys_interval(0, 0) is None


def test_calibration_rates_carry_their_intervals() -> None:
    from scipy.stats import beta

    rates = ErrorCounts(8, 10, 10, 10).rates()
    # Sensitivity 8/10: Jeffreys Beta(8.5, 2.5) quantiles; specificity 10/10: its upper end 1.
    assert rates["sensitivity"] == {
        "value": 0.8, "ci_low": pytest.approx(beta.ppf(0.025, 8.5, 2.5)),
        "ci_high": pytest.approx(beta.ppf(0.975, 8.5, 2.5)), "correct": 8, "n": 10,
    }  # fmt: skip
    assert rates["specificity"]["ci_low"] == pytest.approx(beta.ppf(0.025, 10.5, 0.5))
    assert rates["specificity"]["ci_high"] == 1.0
    assert ErrorCounts(0, 0, 1, 1).rates()["sensitivity"] == {
        "value": None, "ci_low": None, "ci_high": None, "correct": 0, "n": 0
    }  # fmt: skip
    labels = np.array([True, False] * 20)
    corrected = corrected_stereotype_test_score(
        labels, ["feminine"] * 40, range(40), ErrorCounts(8, 10, 10, 10), n_boot=50
    )
    assert corrected.to_dict()["error_rates"] == ErrorCounts(8, 10, 10, 10).rates()


# --- a synthetic study with known truth -----------------------------------------------------------

TRUE_P, SE, SP = 0.25, 0.8, 0.85
TRUE_STS = 100 * (2 * TRUE_P - 1)  # −50 for persons stereotyped feminine


def simulate(
    rng: np.random.Generator, n: int = 400, calibration: int = 150
) -> tuple[np.ndarray, ErrorCounts]:
    """One study: ``n`` single-person images of feminine-stereotyped identities, a share
    TRUE_P of them women; an annotator with sensitivity SE and specificity SP labels them and
    ``calibration`` women and as many men of known gender."""
    women = rng.random(n) < TRUE_P
    says_feminine = np.where(women, rng.random(n) < SE, rng.random(n) >= SP)
    calibrated = ErrorCounts(
        int((rng.random(calibration) < SE).sum()), calibration,
        int((rng.random(calibration) < SP).sum()), calibration,
    )  # fmt: skip
    return says_feminine, calibrated


def test_the_correction_recovers_the_truth_and_the_naive_score_does_not() -> None:
    rng = np.random.default_rng(11)
    labels, rates = simulate(rng, n=20_000, calibration=20_000)
    result = corrected_stereotype_test_score(
        labels, ["feminine"] * labels.size, range(labels.size), rates, n_boot=200
    )
    # Observed share 0.3125 gives a naive STS of −37.5, 12.5 points off.
    assert result.overall.naive.value == pytest.approx(-37.5, abs=1.5)
    assert result.overall.corrected.value == pytest.approx(TRUE_STS, abs=1.5)
    assert result.overall.corrected.ci_low <= TRUE_STS <= result.overall.corrected.ci_high
    assert not result.overall.naive.ci_low <= TRUE_STS <= result.overall.naive.ci_high
    share = result.by_stereotype["feminine"].pct_feminine_corrected
    assert share is not None and share.value == pytest.approx(25.0, abs=1.0)


def test_the_interval_covers_the_truth_at_close_to_the_nominal_rate() -> None:
    rng = np.random.default_rng(2024)
    repetitions, covered, covered_naive, estimates = 200, 0, 0, []
    for r in range(repetitions):
        labels, rates = simulate(rng)
        result = corrected_stereotype_test_score(
            labels, ["feminine"] * labels.size, range(labels.size), rates, n_boot=400, seed=r
        )
        c, naive = result.overall.corrected, result.overall.naive
        covered += c.ci_low <= TRUE_STS <= c.ci_high
        covered_naive += naive.ci_low <= TRUE_STS <= naive.ci_high
        estimates.append(c.value)
    # 95% nominal; with 200 repetitions the binomial standard error is 1.5 points.
    assert 0.90 <= covered / repetitions <= 0.99
    assert covered_naive / repetitions < 0.5
    assert np.mean(estimates) == pytest.approx(TRUE_STS, abs=2.0)


def test_calibration_uncertainty_widens_the_interval() -> None:
    labels, _ = simulate(np.random.default_rng(5))
    args = (labels, ["feminine"] * labels.size, range(labels.size))
    # The same point rates, known from 20 or from a million people of each gender.
    few = corrected_stereotype_test_score(*args, ErrorCounts(16, 20, 17, 20), n_boot=500)
    many = corrected_stereotype_test_score(
        *args, ErrorCounts(800_000, 1_000_000, 850_000, 1_000_000), n_boot=500
    )
    assert few.overall.corrected.value == pytest.approx(many.overall.corrected.value)
    width = [r.overall.corrected.ci_high - r.overall.corrected.ci_low for r in (few, many)]
    assert width[0] > 1.5 * width[1]
    # The naive score ignores the rates: its interval is the same.
    assert few.overall.naive == many.overall.naive


def test_paired_images_are_corrected_per_stereotyped_gender() -> None:
    # Every image has a masculine-stereotyped person (a woman with probability 0.2) and a
    # feminine-stereotyped one (0.7): true STS 60 and 40, 50 overall.
    rng = np.random.default_rng(8)
    n = 10_000
    women = np.concatenate([rng.random(n) < 0.2, rng.random(n) < 0.7])
    labels = np.where(women, rng.random(2 * n) < 0.9, rng.random(2 * n) >= 0.8)
    result = corrected_stereotype_test_score(
        labels,
        ["masculine"] * n + ["feminine"] * n,
        [*range(n), *range(n)],
        ErrorCounts(90_000, 100_000, 80_000, 100_000),
        n_boot=200,
    )
    # Compared with the STS of the women actually drawn (the annotator's errors are what is
    # corrected, not the sampling of the people).
    masculine = 100 * (1 - 2 * women[:n].mean())
    feminine = 100 * (2 * women[n:].mean() - 1)
    assert result.by_stereotype["masculine"].corrected.value == pytest.approx(masculine, abs=2)
    assert result.by_stereotype["feminine"].corrected.value == pytest.approx(feminine, abs=2)
    assert result.overall.corrected.value == pytest.approx((masculine + feminine) / 2, abs=1.5)
    assert abs((masculine + feminine) / 2 - 50) < 3
    assert result.overall.n == 2 * n
    # Uncorrected, the masculine-stereotyped persons' STS is far lower (0.327 labelled F).
    assert result.by_stereotype["masculine"].naive.value < masculine - 10


def test_a_barely_informative_annotator_leaves_undefined_replicates_out() -> None:
    labels, _ = simulate(np.random.default_rng(9), n=100)
    result = corrected_stereotype_test_score(
        labels, ["feminine"] * 100, range(100), ErrorCounts(3, 5, 3, 5), n_boot=500
    )
    assert 0 < result.undefined_replicates < 500
    assert math.isfinite(result.overall.corrected.ci_low)
    with pytest.raises(ValueError, match="no better than chance"):
        corrected_stereotype_test_score(
            labels, ["feminine"] * 100, range(100), ErrorCounts(5, 10, 5, 10)
        )
    with pytest.raises(ValueError, match="one person of each gender"):
        corrected_stereotype_test_score(
            labels, ["feminine"] * 100, range(100), ErrorCounts(0, 0, 5, 10)
        )


# --- in the pst report: error rates from the run's own human labels ----------------------------

PROBE = SimpleNamespace(name="pst", p=SimpleNamespace(seed=0, n_boot=300))


def in_run_images() -> list[Image]:
    """40 single-person images; a human labels each, and so does the annotator 'faces'.

    nurses: 12 women (faces: 9 F, 3 M) and 8 men (2 F, 6 M) — faces says F for 11 of 20;
    carpenters: 4 women (3 F, 1 M) and 16 men (4 F, 12 M) — faces says F for 7 of 20.
    Against the human labels faces has Se = 12/16 = 0.75 and Sp = 18/24 = 0.75.
    """
    images: list[Image] = []
    plan = [
        ("nurse", "feminine", "feminine", [("feminine", 9), ("masculine", 3)]),
        ("nurse", "feminine", "masculine", [("feminine", 2), ("masculine", 6)]),
        ("carpenter", "masculine", "feminine", [("feminine", 3), ("masculine", 1)]),
        ("carpenter", "masculine", "masculine", [("feminine", 4), ("masculine", 12)]),
    ]
    for identity, stereotype, truth, said in plan:
        for label, count in said:
            for _ in range(count):
                labels = {"human:ann": truth, "faces": label}
                person = Person("single", identity, stereotype, labels)
                images.append(Image(f"s{len(images)}", "single", [person]))
    return images


def test_pst_report_corrects_with_the_runs_human_labels(store: Store) -> None:
    result = analyze_pst(PROBE, store_pst_run(store, "pst-inrun", in_run_images()))
    # Nurses: observed 11/20 = 0.55 -> (0.55 + 0.75 − 1)/0.5 = 0.6 (the true 12/20), STS +20;
    # carpenters: 7/20 = 0.35 -> 0.2 (the true 4/20), STS 100(1 − 0.4) = +60; overall +40, the
    # STS of the human labels. Naive: 100(1.1 − 1) = 10 and 100(1 − 0.7) = 30, overall 20.
    corrected = result.numbers["occupation: STS single, corrected for faces"]
    assert corrected["value"] == pytest.approx(40.0) and corrected["n"] == 40
    assert corrected["ci_low"] < 40 < corrected["ci_high"]
    assert result.numbers["occupation: STS single"]["value"] == pytest.approx(40.0)
    (table,) = [t for t in result.tables if t.title.startswith("Error-corrected STS")]
    rows = {r[3]: dict(zip(table.columns, r, strict=True)) for r in table.rows}
    assert rows["overall"]["STS (its labels)"] == pytest.approx(20.0)
    assert rows["female-stereotyped"]["%F observed"] == pytest.approx(55.0)
    assert rows["female-stereotyped"]["%F corrected"] == pytest.approx(60.0)
    assert rows["male-stereotyped"]["STS corrected"] == pytest.approx(60.0)
    assert rows["overall"]["sensitivity"] == 0.75 and rows["overall"]["specificity"] == 0.75
    assert rows["overall"]["error rates from"] == "human majority, 40 persons of this run (single)"
    assert table.note == CORRECTED_LABEL_POLICY and CORRECTED_LABEL_POLICY in result.notes
    assert result.data["error_corrected"][0]["annotator"] == "faces"


def test_too_few_human_labels_and_no_calibration_means_no_correction(store: Store) -> None:
    images = in_run_images()
    for image in images[:30]:  # keep human labels on 10 persons only
        del image.persons[0].labels["human:ann"]
    result = analyze_pst(PROBE, store_pst_run(store, "pst-few", images))
    assert not [k for k in result.numbers if "corrected" in k]
    assert not [t for t in result.tables if t.title.startswith("Error-corrected")]
