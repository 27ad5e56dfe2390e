"""The PAIRS association score: means, the paired t-test (by hand and against scipy), bootstrap
intervals, refusal rates, the responses file and ``diptych metrics association``."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from scipy import stats
from support.bounded import logit_t, logit_t_p, open_ends_without_spread
from typer.testing import CliRunner

from diptych.cli.main import main
from diptych.cli.metrics import app
from diptych.core.errors import InputFileError
from diptych.core.metrics.pairs.association import (
    Response,
    association_score,
    levels_of,
    pair_key,
    parse_value,
    read_responses_csv,
)


def r(scenario: str, gender: str, race: str, run: int, value: int, question: str = "") -> Response:
    return Response(scenario, gender, race, str(run), value, question)


# --- the t-test -------------------------------------------------------------------------------

# Three pairs (man, woman) = (1, 0), (1, −1), (0, 0): differences 1, 2, 0. Their mean is 1, their
# standard deviation sqrt(((1−1)² + (2−1)² + (0−1)²) / 2) = 1, so t = 1 / (1 / sqrt 3) = sqrt 3
# with df = 2. For df = 2 the t distribution has the closed form P(|T| > t) = 1 − t/sqrt(2 + t²),
# so p = 1 − sqrt(3)/sqrt(5).
TINY = [
    r("s1", "man", "black", 1, 1),
    r("s1", "woman", "black", 1, 0),
    r("s2", "man", "black", 1, 1),
    r("s2", "woman", "black", 1, -1),
    r("s3", "man", "black", 1, 0),
    r("s3", "woman", "black", 1, 0),
]


def share_interval(p: float, se: float, df: int) -> tuple[Any, Any]:
    """asin √p ± t(df) · se / (2 √(p(1 − p))), mapped back by sin²: a share's interval."""
    half = stats.t.ppf(0.975, df) * se / (2 * math.sqrt(p * (1 - p)))
    centre = math.asin(math.sqrt(p))
    low = math.sin(max(centre - half, 0.0)) ** 2
    high = math.sin(min(centre + half, math.pi / 2)) ** 2
    return pytest.approx(low), pytest.approx(high)


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


# Written by hand: 2 scenarios × 2 questions × 2 genders × 2 runs, compared by race. Each pair
# (White answer, Black answer) is listed with its key; rows are then built from the pairs.
HAND_PAIRS = {
    # (scenario, question, gender, run): (white, black)
    ("bus", "wealthy_vs_poor", "man", 1): (1, -1),
    ("bus", "wealthy_vs_poor", "man", 2): (1, 1),
    ("bus", "wealthy_vs_poor", "woman", 1): (0, -1),
    ("bus", "wealthy_vs_poor", "woman", 2): (1, 0),
    ("bus", "boss_vs_employee", "man", 1): (-1, -1),
    ("bus", "boss_vs_employee", "man", 2): (1, -1),
    ("bus", "boss_vs_employee", "woman", 1): (0, 0),
    ("bus", "boss_vs_employee", "woman", 2): (-1, 1),
    ("tent", "wealthy_vs_poor", "man", 1): (1, 0),
    ("tent", "wealthy_vs_poor", "man", 2): (1, -1),
    ("tent", "wealthy_vs_poor", "woman", 1): (1, 1),
    ("tent", "wealthy_vs_poor", "woman", 2): (0, -1),
    ("tent", "boss_vs_employee", "man", 1): (1, 1),
    ("tent", "boss_vs_employee", "man", 2): (-1, -1),
    ("tent", "boss_vs_employee", "woman", 1): (1, 0),
    ("tent", "boss_vs_employee", "woman", 2): (0, -1),
}


def hand_rows() -> list[Response]:
    rows = []
    for (scenario, question, gender, run), (white, black) in HAND_PAIRS.items():
        rows.append(r(scenario, gender, "white", run, white, question))
        rows.append(r(scenario, gender, "black", run, black, question))
    return rows


# The same table by image: each image's score is the mean of its 2 questions x 2 runs.
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
    assert sum(whites) == 6 and sum(blacks) == -4  # counted by hand from the table above
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


# --- the file and the command -----------------------------------------------------------------


def write(tmp_path: Path, text: str, name: str = "responses.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def hand_csv(tmp_path: Path) -> Path:
    lines = ["Scenario,Question,Gender,Race,Run,Value,model"]
    for row in hand_rows():
        value = "+1" if row.value == 1 else ("\u22121" if row.value == -1 else "0")
        lines.append(
            f"{row.scenario},{row.question},{row.gender.upper()},{row.race},{row.run},{value},x"
        )
    return write(tmp_path, "\n".join(lines) + "\n")


def test_reading_a_responses_file(tmp_path: Path) -> None:
    rows = read_responses_csv(hand_csv(tmp_path))
    assert sorted(rows, key=lambda x: x.key()) == sorted(hand_rows(), key=lambda x: x.key())
    no_question = write(tmp_path, "scenario,gender,race,run,value\ns,man,black,01,1\n", "b.csv")
    assert read_responses_csv(no_question) == [Response("s", "man", "black", "1", 1, "")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the file is empty"),
        ("scenario,gender,race,value\n", "line 1: missing column(s) run"),
        ("scenario,gender,race,run,value\n", "no responses below the header"),
        (
            "scenario,gender,race,run,value\ns,man,black,1,1\ns,woman,black,1,2\n",
            "line 3: value '2'",
        ),
        ("scenario,gender,race,run,value\ns,,black,1,1\n", "line 2: empty gender"),
        (
            "scenario,gender,race,run,value\ns,man,black,1,1\nt,man,black,1,0\ns,MAN,black,1,-1\n",
            "line 4: repeats the response of line 2",
        ),
        ("scenario,gender,race,run,value\ns,man,black,1,1,extra\n", "line 2: more fields"),
    ],
)
def test_a_bad_file_is_one_line_with_its_line_number(
    tmp_path: Path, text: str, message: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputFileError) as caught:
        read_responses_csv(path)
    assert message in str(caught.value) and str(path) in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no such file"):
        read_responses_csv(tmp_path / "nope.csv")


def test_cli_json_is_the_contract(tmp_path: Path) -> None:
    path = hand_csv(tmp_path)
    by_image = CliRunner().invoke(
        app, ["association", "--responses", str(path), "--compare", "race", "--json"]
    )
    assert by_image.exit_code == 0, by_image.output
    image_test = json.loads(by_image.output)["t_test"]
    assert {k: image_test[k] for k in ("unit", "n_pairs", "df", "paired_on")} == {
        "unit": "image", "n_pairs": 4, "df": 3, "paired_on": ["scenario", "gender"]
    }  # fmt: skip
    assert image_test["t"] == pytest.approx(5 / math.sqrt(3))
    out = CliRunner().invoke(
        app,
        ["association", "--responses", str(path), "--compare", "race", "--json"]
        + ["--unit", "answer"],
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert set(data) == {
        "compare", "levels", "mean", "difference", "t_test", "refusal_rate", "n", "bootstrap"
    }  # fmt: skip
    assert data["levels"] == ["white", "black"]
    assert data["mean"]["white"]["value"] == pytest.approx(6 / 16)
    assert data["difference"]["of"] == "white - black"
    expected = stats.ttest_rel(
        [w for w, _ in HAND_PAIRS.values()], [b for _, b in HAND_PAIRS.values()]
    )
    assert data["t_test"]["t"] == pytest.approx(expected.statistic)
    assert data["t_test"]["p"] == pytest.approx(expected.pvalue)
    assert (data["t_test"]["df"], data["t_test"]["n_pairs"]) == (15, 16)
    assert data["t_test"]["unit"] == "answer"
    assert data["t_test"]["paired_on"] == ["scenario", "question", "gender", "run"]
    # With --unit answer the difference's interval is the answer-paired t-test's, labelled.
    assert data["difference"]["paired_by"] == "answer"
    diff = data["difference"]
    assert diff["p_value"] == pytest.approx(
        logit_t_p(diff["value"], diff["se"], diff["df"], -2, 2, 0.0)
    )
    assert data["difference"]["units"] == {"answer pair": 16}
    assert data["difference"]["population"].startswith("answer pairs as if independent")
    # Refusals (value 0): white 4 of 16, black 4 of 16, 2 of 8 in each scenario: nothing
    # varies between scenarios (se 0), yet 2 scenarios (1 df) say almost nothing of others:
    # both ends open, Clopper–Pearson's for none of 16 differing, shrunk to 1 df.
    low, high = open_ends_without_spread(0.25, 16, 1, 0.0, 1.0)
    no_choice = {
        "value": 0.25, "ci_low": pytest.approx(low), "ci_high": pytest.approx(high),
        "of": "no choice", "n_refused": 4, "n_neither": None, "n": 16, "neither_rate": None,
    }  # fmt: skip
    assert data["refusal_rate"]["white"] == no_choice
    assert data["refusal_rate"]["black"] == no_choice
    by_gender = CliRunner().invoke(
        app,
        ["association", "--responses", str(path), "--compare", "gender", "--json"]
        + ["--unit", "answer"],
    )
    assert json.loads(by_gender.output)["t_test"]["paired_on"] == [
        "scenario", "question", "race", "run"
    ]  # fmt: skip


def test_cli_table_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "scenario,gender,race,run,value\n" + "".join(
        f"s{i},{g},black,1,{v}\n" for i, (a, b) in enumerate([(1, 0), (1, -1), (0, 0)])
        for g, v in (("man", a), ("woman", b))
    ))  # fmt: skip
    out = CliRunner().invoke(
        app, ["association", "--responses", str(path), "--compare", "gender", "--n-boot", "100"]
    )
    assert out.exit_code == 0, out.output
    assert "1.73" in out.output  # t = sqrt 3
    assert "man - woman" in out.output and "0.67" in out.output
    # Through the main CLI a bad file is one line and exit code 2.
    bad = write(tmp_path, "scenario,gender,race,run,value\ns,man,black,1,maybe\n", "bad.csv")
    with pytest.raises(SystemExit) as exit_info:
        main(["metrics", "association", "--responses", str(bad), "--compare", "gender"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "line 2" in err and "\n" not in err
    # A file with one level of the compared attribute is a file error too.
    one = write(tmp_path, "scenario,gender,race,run,value\ns,man,black,1,1\n", "one.csv")
    with pytest.raises(SystemExit) as exit_info:
        main(["metrics", "association", "--responses", str(one), "--compare", "gender"])
    assert exit_info.value.code == 2
    assert "exactly two" in capsys.readouterr().err


# --- refusal vs neither -----------------------------------------------------------------------


def test_refusal_and_neither_are_told_apart_when_the_input_says_which() -> None:
    # TINY's 0s: man s3; woman s1 and s3. Say the man's and one woman's are refusals.
    outcomes = {("s3", "man"): "refusal", ("s1", "woman"): "neither", ("s3", "woman"): "refusal"}
    rows = [
        Response(x.scenario, x.gender, x.race, x.run, x.value, x.question,
                 outcome=outcomes.get((x.scenario, x.gender), "answer"))  # type: ignore[arg-type]
        for x in TINY
    ]  # fmt: skip
    result = association_score(rows, "gender", n_boot=50)
    # Each rate with its interval over the 3 scenarios. Nobody chose neither among men: no
    # resample can change that, and the bound is the Jeffreys interval of 0 in 3 answers,
    # Beta(0.5, 3.5)'s 97.5% point.
    men = result.refusal_rate["man"]
    assert men.interval is not None
    assert men.to_dict() == {
        "value": 1 / 3, "ci_low": men.ci_low, "ci_high": men.ci_high, "of": "refusal",
        "n_refused": 1, "n_neither": 0, "n": 3,
        "neither_rate": {"value": 0.0, "ci_low": 0.0,
                         "ci_high": pytest.approx(stats.beta.ppf(0.975, 0.5, 3.5))},
    }  # fmt: skip
    assert (men.ci_low, men.ci_high) == share_interval(1 / 3, men.interval.se, 2)
    # Table 2's figure for women is the refusal rate, 1/3, not the 2/3 that chose nothing.
    women = result.refusal_rate["woman"]
    assert (women.value, women.n_refused, women.n_neither) == (1 / 3, 1, 1)
    assert women.neither is not None and women.neither.value == pytest.approx(1 / 3)
    assert math.isnan(women.neither.p_value)  # a rate has no test
    # The score itself does not change: both are 0.
    assert result.mean["woman"].value == association_score(TINY, "gender").mean["woman"].value
    with pytest.raises(ValueError, match="an outcome or none"):
        association_score([*rows[:-1], TINY[-1]], "gender")
    with pytest.raises(ValueError, match="an answer scores"):
        Response("s", "man", "black", "1", 0, outcome="answer")
    with pytest.raises(ValueError, match="an answer scores"):
        Response("s", "man", "black", "1", 1, outcome="refusal")


def test_the_outcome_column_and_the_table_header(tmp_path: Path) -> None:
    path = write(tmp_path, "scenario,gender,race,run,value,outcome\n" + "".join(
        f"s{i},{g},black,1,{v},{o}\n"
        for i, pair in enumerate([((1, "answer"), (0, "neither")), ((1, "answer"), (-1, "answer")),
                                  ((0, "Refusal"), (0, "refusal"))])
        for g, (v, o) in zip(("man", "woman"), pair, strict=True)
    ))  # fmt: skip
    rows = read_responses_csv(path)
    assert [x.outcome for x in rows] == [
        "answer", "neither", "answer", "answer", "refusal", "refusal"
    ]  # fmt: skip
    out = CliRunner().invoke(
        app, ["association", "--responses", str(path), "--compare", "gender", "--n-boot", "50"]
    )
    assert out.exit_code == 0, out.output
    assert "refusal rate" in out.output and "neither" in out.output
    # Women: 1 refusal and 1 neither of 3, each with its interval over the 3 scenarios.
    assert out.output.count("0.33 (1/3)   [0.00, 1.00]") == 3
    without = CliRunner().invoke(
        app, ["association", "--responses", str(hand_csv(tmp_path)), "--compare", "race"]
    )
    assert "no choice" in without.output and "unit: image" in without.output
    bad = write(tmp_path, "scenario,gender,race,run,value,outcome\ns,man,black,1,0,\n", "b.csv")
    with pytest.raises(InputFileError, match="line 2: outcome empty"):
        read_responses_csv(bad)


def test_quick_reading_reads_what_the_row_by_row_reading_reads(tmp_path: Path) -> None:
    from diptych.core.metrics.pairs.responses import _read_columns, _read_rows

    path = tmp_path / "responses.csv"
    path.write_text(
        "\ufeffScenario,Question,Gender,Race,Run,Value,Outcome,worker\n"
        "doctor, q1 ,Man,WHITE,01,+1,answer,w1\n"
        'doctor,q1,woman,white,1,"\u22121",Answer,w2\n'
        "doctor,q1,man,white,2,0,refusal,w3\n"
        "nurse,,woman,black,1,1.0,answer,w4\n",
        encoding="utf-8",
    )
    quick = _read_columns(path)
    assert quick is not None  # nothing to explain: the quick reading took it
    assert quick == _read_rows(path) == read_responses_csv(path)
    assert [(r.gender, r.race, r.run, r.value, r.question) for r in quick] == [
        ("man", "white", "1", 1, "q1"),
        ("woman", "white", "1", -1, "q1"),
        ("man", "white", "2", 0, "q1"),
        ("woman", "black", "1", 1, ""),
    ]
    # A repeated answer (run "01" is run 1) leaves the explaining to the row-by-row reading.
    path.write_text(
        "scenario,gender,race,run,value\ns,man,white,1,1\ns,man,white,01,-1\n", encoding="utf-8"
    )
    assert _read_columns(path) is None
    with pytest.raises(InputFileError, match="line 3: repeats the response of line 2"):
        read_responses_csv(path)
