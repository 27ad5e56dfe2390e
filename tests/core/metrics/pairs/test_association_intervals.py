"""The PAIRS association score's intervals: each level's mean resamples scenarios, the
difference pairs images and agrees with the t-test; and responses it refuses."""

from __future__ import annotations

import math
import random

import pytest
from scipy import stats
from support.bounded import logit_t, open_ends_without_spread
from support.pairs_responses import TINY, r

from diptych.core.metrics.pairs.association import association_score, parse_value


def test_means_resample_scenarios_and_the_difference_pairs_images() -> None:
    # Every scenario's answers are constant, and each scenario's man − woman difference is 1,
    # while the levels' means vary a lot between scenarios. Every image pair differs by 1: no
    # spread, the difference's interval is open on both sides; each level's own interval resamples
    # the scenario means.
    rows = []
    for scenario, (man, woman) in {"a": (1, 0), "b": (0, -1), "c": (1, 0), "d": (0, -1)}.items():
        for run in (1, 2, 3):
            rows += [
                r(scenario, "man", "black", run, man),
                r(scenario, "woman", "black", run, woman),
            ]
    result = association_score(rows, "gender", n_boot=500, seed=3)
    d = result.difference
    # No spread, yet 4 image pairs (24 answers on 3 df) cannot show that other images would
    # differ alike: both ends open, Clopper–Pearson's for none differing, never the point.
    assert d.value == 1.0
    assert (d.ci_low, d.ci_high) == pytest.approx(open_ends_without_spread(1.0, 24, 3, -2, 2))
    # Its p is the level at which that open interval reaches 0: just under 0.05, as its
    # 95% interval stops short of 0.
    assert d.units == {"image pair": 4} and 0.0 < d.p_value < 0.05 < 1 - d.p_value
    assert d.ci_low > 0
    men = result.mean["man"]
    # Scenario means 1, 0, 1, 0: standard error √(1/3 / 4) = 0.289 (the bootstrap's, up to
    # its noise) on 3 df. 0.5 ± 3.18 · 0.289 would reach past 1; the interval is made on the
    # logit scale of the score's range [−1, 1] instead, and stays inside it.
    assert men.value == 0.5 and men.units == {"scenario": 4} and men.df == 3
    assert men.se == pytest.approx(math.sqrt(1 / 12), rel=0.1)
    q = stats.t.ppf(0.975, 3)
    assert 0.5 + q * men.se > 1.0
    assert (men.ci_low, men.ci_high) == pytest.approx(logit_t(0.5, men.se, 3, -1.0, 1.0))
    assert -1.0 < men.ci_low < 0.5 < men.ci_high < 1.0
    # Reproducible from the seed.
    assert association_score(rows, "gender", n_boot=500, seed=3).mean["man"] == men
    assert result.to_dict()["bootstrap"] == {
        "over": "scenario",
        "of": "each level's mean, refusal rate and neither rate",
        "n_boot": 500,
        "confidence": 0.95,
        "seed": 3,
    }


def test_a_level_mean_resamples_scenarios_not_images() -> None:
    # 8 scenarios whose four images all answer alike (scenario effects), 3 runs each: the
    # level mean's standard error is that of 8 scenario means (here ±1: sd √(8/7), se
    # √(1/7) = 0.378), not of 16 images or 48 answers.
    rows = []
    for i, v in enumerate([1, -1, 1, -1, 1, -1, 1, -1]):
        for gender in ("man", "woman"):
            for race in ("black", "white"):
                rows += [r(f"s{i}", gender, race, run, v) for run in (1, 2, 3)]
    men = association_score(rows, "gender", n_boot=4000, seed=1).mean["man"]
    assert men.value == 0.0 and men.units == {"scenario": 8} and men.df == 7
    assert men.se == pytest.approx(math.sqrt(1 / 7), rel=0.06)
    assert men.population == "scenarios like these"


def test_the_difference_interval_excludes_0_exactly_when_the_test_rejects() -> None:
    rng = random.Random(5)
    agreed = 0
    for _ in range(40):
        rows = []
        shift = rng.choice((0.0, 0.3, 0.6))
        for scenario in range(rng.randint(3, 9)):
            for race in ("black", "white"):
                for gender in ("man", "woman"):
                    p_plus = 0.5 + (shift / 2 if gender == "man" else -shift / 2)
                    for run in range(1, rng.randint(2, 4)):
                        value = 1 if rng.random() < p_plus else rng.choice((0, -1))
                        rows.append(r(f"s{scenario}", gender, race, run, value))
        result = association_score(rows, "gender", n_boot=20)
        t, d = result.t_test, result.difference
        if t.p is None or not math.isfinite(t.t or math.nan):
            continue
        assert d.value == pytest.approx(t.mean_difference)
        assert (d.se, d.df) == (pytest.approx(t.se), t.df)
        assert (d.ci_low, d.ci_high) == (pytest.approx(t.ci_low), pytest.approx(t.ci_high))
        assert -2 <= d.ci_low <= d.ci_high <= 2
        assert d.excludes_null == (d.p_value < 0.05)
        agreed += 1
    assert agreed >= 30


def test_with_unpaired_images_the_difference_is_over_the_pairs() -> None:
    # TINY plus one man's image with no woman beside it (s4, +1): the man's mean takes it
    # ((1 + 1 + 0 + 1)/4), the difference is the mean of the 3 pairs' differences, 1.
    rows = [*TINY, r("s4", "man", "black", 1, 1)]
    result = association_score(rows, "gender", n_boot=50)
    assert result.mean["man"].value == pytest.approx(3 / 4)
    assert result.difference.value == pytest.approx(1.0)
    assert result.difference.n == 6 and result.t_test.unpaired == 1


def test_bad_responses_are_refused() -> None:
    with pytest.raises(ValueError, match="1 level"):
        association_score([r("s", "man", "black", 1, 1)], "gender")
    with pytest.raises(ValueError, match="two responses"):
        association_score([*TINY, TINY[0]], "gender")
    with pytest.raises(ValueError, match="no responses"):
        association_score([], "race")
    with pytest.raises(ValueError, match="unknown attribute"):
        association_score(TINY, "age")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not \\+1, 0 or -1"):
        r("s", "man", "black", 1, 2)
    with pytest.raises(ValueError, match="empty scenario"):
        r("", "man", "black", 1, 1)
    assert [parse_value(v) for v in ("+1", "1", " 0 ", "-1", "\u22121", "1.0")] == [
        1,
        1,
        0,
        -1,
        -1,
        1,
    ]
    for bad in ("2", "yes", "", "0.5"):
        with pytest.raises(ValueError):
            parse_value(bad)
