"""The PAIRS association score's paired t-test, by hand and against scipy: the image as the unit
by default, answers paired by key, unpaired answers, no spread, and the levels' order."""

from __future__ import annotations

import math
import random

import pytest
from scipy import stats
from support.bounded import logit_t, logit_t_p
from support.pairs_responses import HAND_PAIRS, TINY, hand_rows, r, share_interval

from diptych.core.metrics.pairs.association import Response, association_score, levels_of, pair_key


def test_t_by_hand_on_a_tiny_case() -> None:
    result = association_score(TINY, "gender", n_boot=200)
    t = result.t_test
    assert t.t == pytest.approx(math.sqrt(3))
    assert t.df == 2 and t.n_pairs == 3 and t.unpaired == 0
    assert t.p == pytest.approx(1 - math.sqrt(3) / math.sqrt(5))
    assert t.mean_difference == pytest.approx(1.0)
    # The t interval of the mean difference would be 1 ± q / sqrt 3, where q solves the same
    # closed form for p = 0.05: q / sqrt(2 + q²) = 0.95, so q² = 2 · 0.95² / (1 − 0.95²)
    # (q = 4.3027): up to 3.48, past what a difference of two scores can be. The test's se and
    # df on the logit scale of [−2, 2] keep it inside.
    q = math.sqrt(2 * 0.95**2 / (1 - 0.95**2))
    assert q == pytest.approx(stats.t.ppf(0.975, 2)) and 1 + q / math.sqrt(3) > 2
    inside = logit_t(1.0, 1 / math.sqrt(3), 2, -2.0, 2.0)
    assert (t.ci_low, t.ci_high) == pytest.approx(inside)
    # Means, difference and refusal rates: man (1 + 1 + 0)/3, woman (0 − 1 + 0)/3.
    assert result.mean["man"].value == pytest.approx(2 / 3)
    assert result.mean["woman"].value == pytest.approx(-1 / 3)
    assert result.difference.value == pytest.approx(1.0)
    # The difference is the t-test's: same value, se, df and interval; its p is the t-test on
    # the same logit scale (the paper's p stays the t-test's own figure).
    d = result.difference
    assert (d.ci_low, d.ci_high) == pytest.approx(inside)
    assert d.p_value == pytest.approx(logit_t_p(1.0, 1 / math.sqrt(3), 2, -2.0, 2.0, 0.0))
    assert d.df == 2 and d.units == {"image pair": 3}
    assert d.se == pytest.approx(1 / math.sqrt(3))
    # Without an outcome column a 0 is "no choice": refusal and neither not told apart. Each
    # rate's interval is the t interval on the angular scale over the three scenarios (men: 0,
    # 0, 1; se √(1/3)/√3 = 1/3 up to the bootstrap's noise).
    men = result.refusal_rate["man"]
    assert men.to_dict() == {
        "value": 1 / 3, "ci_low": men.ci_low, "ci_high": men.ci_high, "of": "no choice",
        "n_refused": 1, "n_neither": None, "n": 3, "neither_rate": None,
    }  # fmt: skip
    assert men.interval is not None and men.interval.se == pytest.approx(1 / 3, rel=0.2)
    assert (men.ci_low, men.ci_high) == share_interval(1 / 3, men.interval.se, 2)
    women = result.refusal_rate["woman"]
    assert (women.value, women.n_refused, women.of) == (2 / 3, 2, "no choice")
    assert women.interval is not None
    assert (women.ci_low, women.ci_high) == share_interval(2 / 3, women.interval.se, 2)
    # One answer per image: the image and the answer unit are the same test.
    assert association_score(TINY, "gender", unit="answer", n_boot=200).t_test.t == t.t
    assert t.unit == "image" and result.to_dict()["t_test"]["unit"] == "image"


# HAND_PAIRS (support.pairs_responses) by image: each image's score is the mean of its 2
# questions x 2 runs.
#   bus man     white (1, 1, -1, 1) = 1/2      black (-1, 1, -1, -1) = -1/2    difference 1
#   bus woman   white (0, 1, 0, -1) = 0        black (-1, 0, 0, 1) = 0         difference 0
#   tent man    white (1, 1, 1, -1) = 1/2      black (0, -1, 1, -1) = -1/4     difference 3/4
#   tent woman  white (1, 0, 1, 0) = 1/2       black (1, -1, 0, -1) = -1/4     difference 3/4
# Mean difference 5/8; squared deviations 9/64 + 25/64 + 1/64 + 1/64 = 36/64, variance 3/16,
# so t = (5/8) / (sqrt(3)/4 / 2) = 5/sqrt 3 with df = 3. For df = 3 the t distribution has
# the closed form P(|T| > t) = 1 − (2/π)(θ + sin θ cos θ) with θ = atan(t/sqrt 3) = atan(5/3),
# and sin θ cos θ = (5/3) / (1 + 25/9) = 15/34.
IMAGE_MEANS = {
    # (scenario, gender): (white image, black image)
    ("bus", "man"): (0.5, -0.5),
    ("bus", "woman"): (0.0, 0.0),
    ("tent", "man"): (0.5, -0.25),
    ("tent", "woman"): (0.5, -0.25),
}


def test_the_image_is_the_unit_by_default_by_hand_and_against_scipy() -> None:
    rows = hand_rows()
    random.Random(3).shuffle(rows)
    result = association_score(rows, "race", n_boot=200)
    t = result.t_test
    assert result.unit == t.unit == "image"
    assert result.paired_on == ("scenario", "gender")
    # 16 answers per race, but 4 images per race: 4 pairs, not 16.
    assert (t.n_pairs, t.df, t.unpaired) == (4, 3, 0)
    assert t.t == pytest.approx(5 / math.sqrt(3))
    assert t.p == pytest.approx(1 - 2 / math.pi * (math.atan(5 / 3) + 15 / 34))
    assert t.mean_difference == pytest.approx(5 / 8)
    expected = stats.ttest_rel(
        [w for w, _ in IMAGE_MEANS.values()], [b for _, b in IMAGE_MEANS.values()]
    )
    assert (t.t, t.p) == (pytest.approx(expected.statistic), pytest.approx(expected.pvalue))
    # The difference is the mean paired difference, 5/8 (every image has 4 answers and a
    # partner, so it is also the difference of the means, 10/16), with the test's se √3/8 on
    # t(3), its interval on the logit scale of [−2, 2]: p = (2 + 5/8)/4 = 0.656, se_u =
    # (√3/8)/(4·0.656·0.344) = 0.240.
    d = result.difference
    assert d.value == pytest.approx(10 / 16)
    assert d.se == pytest.approx(math.sqrt(3) / 8) and d.df == 3
    assert (d.ci_low, d.ci_high) == pytest.approx(logit_t(5 / 8, math.sqrt(3) / 8, 3, -2, 2))
    assert d.p_value == pytest.approx(logit_t_p(5 / 8, math.sqrt(3) / 8, 3, -2, 2, 0.0))
    # In the middle of the range the two scales nearly agree: the paper's p is 0.063.
    assert d.p_value == pytest.approx(t.p, abs=0.015)
    assert d.ci_low < 0 and d.p_value > 0.05  # the interval holds 0
    data = result.to_dict()["t_test"]
    assert {k: data[k] for k in ("unit", "n_pairs", "df")} == {
        "unit": "image", "n_pairs": 4, "df": 3
    }  # fmt: skip
    assert data["paired_on"] == ["scenario", "gender"]


def test_image_unit_with_repeated_runs_matches_scipy_on_image_means() -> None:
    # 3 runs of one question per image, 6 scenarios: the answer unit would make 18 pairs
    # of 3-fold repeated images; the image unit makes 6.
    rng = random.Random(11)
    rows, images = [], {}
    for scenario in "abcdef":
        for gender in ("man", "woman"):
            values = [rng.choice((1, 0, -1)) for _ in range(3)]
            images[(scenario, gender)] = sum(values) / 3
            rows += [r(scenario, gender, "white", run, v) for run, v in enumerate(values, 1)]
    result = association_score(rows, "gender", n_boot=50)
    expected = stats.ttest_rel(
        [images[(s, "man")] for s in "abcdef"], [images[(s, "woman")] for s in "abcdef"]
    )
    assert (result.t_test.n_pairs, result.t_test.df) == (6, 5)
    assert result.t_test.t == pytest.approx(expected.statistic)
    assert result.t_test.p == pytest.approx(expected.pvalue)
    by_answer = association_score(rows, "gender", unit="answer", n_boot=50).t_test
    assert (by_answer.unit, by_answer.n_pairs, by_answer.df) == ("answer", 18, 17)


def test_answer_unit_matches_scipy_and_pairs_by_key_not_by_row_order() -> None:
    whites = [w for w, _ in HAND_PAIRS.values()]
    blacks = [b for _, b in HAND_PAIRS.values()]
    expected = stats.ttest_rel(whites, blacks)
    rows = hand_rows()
    random.Random(7).shuffle(rows)  # pairing must come from the keys
    result = association_score(rows, "race", unit="answer", n_boot=200)
    assert result.levels == ("white", "black")
    assert result.unit == "answer"
    assert result.paired_on == ("scenario", "question", "gender", "run")
    assert result.t_test.t == pytest.approx(expected.statistic)
    assert result.t_test.p == pytest.approx(expected.pvalue)
    assert result.t_test.df == 15 and result.t_test.n_pairs == 16
    assert sum(whites) == 6 and sum(blacks) == -4  # counted by hand from HAND_PAIRS
    assert result.mean["white"].value == pytest.approx(6 / 16)
    assert result.mean["black"].value == pytest.approx(-4 / 16)
    assert result.difference.value == pytest.approx(10 / 16)
    # Pairing only on scenario, gender and run would mix the two questions' answers: it is
    # refused rather than silently averaged.
    without_question = [Response(x.scenario, x.gender, x.race, x.run, x.value) for x in rows]
    with pytest.raises(ValueError, match="two responses"):
        association_score(without_question, "race")


def test_unpaired_answers_count_in_the_means_but_not_in_the_test() -> None:
    rows = [*TINY, r("s4", "man", "black", 1, 1), r("s4", "man", "black", 2, -1)]
    result = association_score(rows, "gender", unit="answer", n_boot=100)
    assert result.t_test.n_pairs == 3 and result.t_test.unpaired == 2
    # By image: the two answers are about one image, which has no partner.
    by_image = association_score(rows, "gender", n_boot=100).t_test
    assert (by_image.n_pairs, by_image.unpaired) == (3, 1)
    assert result.t_test.t == pytest.approx(math.sqrt(3))
    assert result.mean["man"].value == pytest.approx(2 / 5)
    assert result.mean["man"].n == 5


def test_no_spread_gives_the_limit_or_nothing() -> None:
    same = [r(s, g, "white", 1, 1 if g == "man" else -1) for s in "abc" for g in ("man", "woman")]
    t = association_score(same, "gender", n_boot=50).t_test
    assert (t.t, t.p, t.df, t.mean_difference) == (math.inf, 0.0, 2, 2.0)
    assert association_score(same, "gender", n_boot=50).to_dict()["t_test"]["t"] == "inf"
    equal = [r(s, g, "white", 1, 0) for s in "abc" for g in ("man", "woman")]
    t = association_score(equal, "gender", n_boot=50).t_test
    assert (t.t, t.p, t.mean_difference) == (None, None, 0.0)
    one = association_score(TINY[:2], "gender", n_boot=50).t_test
    assert (one.t, one.p, one.n_pairs) == (None, None, 1)


def test_levels_order_and_pair_keys() -> None:
    assert levels_of(hand_rows(), "race") == ("white", "black")
    assert levels_of(TINY, "gender") == ("man", "woman")
    assert levels_of([r("s", "female", "x", 1, 0), r("s", "male", "x", 1, 0)], "gender") == (
        "male",
        "female",
    )
    # Unknown level names: alphabetical.
    assert levels_of([r("s", "g", "zeta", 1, 0), r("s", "g", "alpha", 1, 0)], "race") == (
        "alpha",
        "zeta",
    )
    row = r("bus", "man", "black", 2, 1, "q")
    assert pair_key(row, "race", "answer") == ("bus", "q", "man", "2")
    assert pair_key(row, "gender", "answer") == ("bus", "q", "black", "2")
    assert pair_key(row, "race") == ("bus", "man")
    assert pair_key(row, "gender") == ("bus", "black")
