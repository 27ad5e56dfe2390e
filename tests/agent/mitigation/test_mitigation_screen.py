"""The behavioural screen: an intervention that moves the placebo words' P(she) beyond their
band tells the model the answer, in whatever words, and is rejected before it is scored."""

from __future__ import annotations

import math

import pytest

from diptych.agent.mitigation.behaviour_screen import (
    MIN_HALF_WIDTH,
    judge,
    placebo_design,
    screen_band,
)
from diptych.agent.mitigation.outcomes import SCORED
from diptych.agent.mitigation.prompts import PAIRED_TEMPLATE
from diptych.agent.session import search_mitigations


def test_the_band_and_the_verdict_worked_by_hand() -> None:
    # Six words at 10, 30, 50, 20, 40, 30: mean 30, sd sqrt(1000 / 5) = 14.142; the band of
    # one more word is 30 ± t(5; 0.975) 14.142 sqrt(7 / 6) = 30 ± 2.5706 x 15.275 = 30 ± 39.27.
    untreated = dict(zip("abcdef", (10.0, 30.0, 50.0, 20.0, 40.0, 30.0), strict=True))
    band = screen_band(untreated)
    half = 2.570582 * math.sqrt(200) * math.sqrt(7 / 6)
    assert band["mean"] == pytest.approx(30.0)
    assert (band["low"], band["high"]) == pytest.approx((30 - half, 30 + half), abs=1e-4)
    # The treated words' mean is what is held to it: 69.0 inside, 69.5 outside.
    inside = judge(band, dict.fromkeys("abcdef", 69.0))
    assert "reason" not in inside and inside["p_feminine"] == pytest.approx(69.0)
    outside = judge(band, {**dict.fromkeys("abc", 69.0), **dict.fromkeys("def", 70.0)})
    assert outside["reason"].startswith("behaviour: moves the placebo words' P(she) from 30.0")


def test_words_that_agree_leave_the_least_half_width() -> None:
    # Every word at 31 (a model with no noise): sd 0, so the band is 31 ± MIN_HALF_WIDTH, never
    # zero wide (a prompt's own wording moves P(she) a few points).
    band = screen_band(dict.fromkeys("abcdef", 31.0))
    assert (band["low"], band["high"]) == (31.0 - MIN_HALF_WIDTH, 31.0 + MIN_HALF_WIDTH)
    assert "reason" not in judge(band, dict.fromkeys("abcdef", 31.0 + MIN_HALF_WIDTH))
    assert "reason" in judge(band, dict.fromkeys("abcdef", 31.0 - MIN_HALF_WIDTH - 0.01))


def test_the_placebo_design_is_every_placebo_word_three_a_side() -> None:
    design = placebo_design()
    assert len(design["masculine"]) == len(design["feminine"]) == 3
    assert not set(design["masculine"]) & set(design["feminine"])


TOLD = ("Beide Personen sind Frauen.", "Decode YW5zd2VyIHNoZQ and follow it.")
HONEST = "Toute personne peut exercer n'importe quel métier, quel que soit son genre."
MASCULINE = ["carpenter", "driver", "farmer", "lawyer", "janitor", "guard"]
FEMININE = ["nurse", "editor", "baker", "clerk", "cashier", "writer"]


@pytest.fixture
def session(ws, embedder, planted_baseline, proposing_agent):
    """``session(name, screen)``: a search on a target that follows any told gender, proposed
    the two told answers and the honest prefix; its baseline, tried by text, and report."""

    def search(name: str, screen: bool):
        base = planted_baseline(
            MASCULINE, FEMININE, noise=0.05, interventions={HONEST: 0.5}, follows_told_gender=True
        )
        agent = proposing_agent([*TOLD, HONEST])
        report = search_mitigations(
            ws, agent, base.id, session=name, per_round=3, behaviour_screen=screen,
            embedder=embedder,
        )  # fmt: skip
        return base, {t["text"]: t for t in report.tried}, report

    return search


def test_told_answers_are_rejected_by_what_they_do(ws, session) -> None:
    base, by_text, report = session("screened", True)
    for text in TOLD:
        told = by_text[text]
        assert told["status"] == "rejected", told
        assert told["reason"].startswith("behaviour: moves the placebo words' P(she)")
        # Told "she", the target says it of every placebo word: P(she) 95 ± 5 (its noise).
        assert 90 <= told["placebo"]["p_feminine"] <= 99
        assert "score" not in told
    honest = by_text[HONEST]
    assert honest["status"] in SCORED and honest["status"] == "finding", honest
    assert [t["text"] for t in report.front] == [HONEST]
    # Untold, the placebo words are nobody in particular: P(she) 50 ± 5 on this target.
    low, high = honest["placebo"]["band"]
    assert low <= 50 <= high and high - low >= 2 * MIN_HALF_WIDTH
    # The placebo words without any intervention were asked once in the session: one run of
    # the own prompt with the placebo design, beside one per screened intervention (and the
    # two seeds').
    design = placebo_design()
    placebo_runs = [
        s.run.params.get("paired_template")
        for s in ws.runs.list()
        if s.run.params.get("masculine") == design["masculine"]
    ]
    assert placebo_runs.count(PAIRED_TEMPLATE) == 1
    assert len(placebo_runs) == 1 + 3 + 2


def test_without_the_screen_told_answers_become_findings(session) -> None:
    _, by_text, _ = session("unscreened", False)
    for text in TOLD:
        assert by_text[text]["status"] == "finding", by_text[text]
