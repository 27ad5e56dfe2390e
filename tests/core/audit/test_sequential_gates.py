"""Sequential gates in the core: the looks a gated part keeps, one gate's anytime-valid figure
over them, the notes and the sentence a sequential audit's gates carry, and the expected spend
before anything is bought."""

from __future__ import annotations

import math

import pytest

from diptych.core.audit.expected_spend import expected_spend
from diptych.core.audit.gates import GateFigure, GateRule, evaluate_gates
from diptych.core.audit.sequential import (
    Look,
    PartLooks,
    SequentialSummary,
    anytime_figure,
    undecided_note,
    with_sequential_notes,
)
from diptych.core.metrics.uncertainty.components import Components
from diptych.core.metrics.uncertainty.intervals import IntervalRecipe
from diptych.core.metrics.uncertainty.precision import PlannedDesign
from diptych.core.metrics.uncertainty.sequential import pocock_spending


def _fig(value: float, se: float) -> GateFigure:
    return GateFigure(value, se, math.inf, "t", recipe=IntervalRecipe.t(value, se, math.inf))


def test_part_looks_round_trip_through_a_parts_detail() -> None:
    looks = PartLooks(4, 7, [Look(1, 40, 160, {"STS": {"value": 3.0, "se": 1.0}})], "decided")
    detail = {"fingerprint": "f", PartLooks.KEY: looks.to_dict()}
    again = PartLooks.of(detail)
    assert again == looks
    assert again is not None and again.last is not None and again.last.fraction == 0.25
    assert PartLooks.of({"fingerprint": "f"}) is None
    # A stop reason it does not know is read as none rather than trusted.
    assert PartLooks.from_dict({**looks.to_dict(), "stop": "whatever"}).stop is None


def test_anytime_figure_spends_by_information_and_all_at_the_complete_design() -> None:
    looks = [
        (Look(1, 10, 100, {}), _fig(12.0, math.sqrt(14.0))),
        (Look(2, 20, 100, {}), _fig(11.0, 3.0)),
        (Look(3, 100, 100, {}), _fig(10.5, math.sqrt(5.0))),
    ]
    fig = anytime_figure(looks)
    assert fig is not None and fig.value == 10.5 and fig.method.startswith("anytime-valid")
    # The shares of test_sequential's worked example: V = 4 + 1/f.
    g = pocock_spending
    shares = [g(0.1), g(5 / 9) - g(0.1), 1 - g(5 / 9)]
    from scipy.stats import norm

    want_high = min(
        v + norm.ppf(1 - 0.025 * w) * se
        for (v, se), w in zip([(12.0, 14**0.5), (11.0, 3.0), (10.5, 5**0.5)], shares, strict=True)
    )
    assert fig.interval(0.95)[1] == pytest.approx(want_high, rel=1e-9)
    # No look with an interval: no figure. A first look without one spends nothing.
    assert anytime_figure([(Look(1, 1, 10, {}), None)]) is None
    late = anytime_figure([(Look(1, 1, 10, {}), None), (Look(2, 5, 10, {}), _fig(1.0, 1.0))])
    assert late is not None
    assert late.interval(0.95)[1] == pytest.approx(1.0 + norm.ppf(1 - 0.025 * g(0.5)))


def test_a_gate_on_looks_is_decided_by_the_gates_own_rules() -> None:
    rule = GateRule("g", "p", "f", "below", 25.0)
    looks = [(Look(1, 10, 100, {}), _fig(10.0, 2.0)), (Look(2, 20, 100, {}), _fig(10.0, 1.9))]
    fig = anytime_figure(looks)
    assert fig is not None
    (result,) = evaluate_gates([rule], {("p", "f", "below"): fig})
    assert result.verdict == "pass" and result.ci_high is not None and result.ci_high < 25.0
    # On the limit: undecided, and the note says after what, not "about N more units".
    on = anytime_figure([(Look(1, 10, 100, {}), _fig(25.0, 2.0))])
    assert on is not None
    (undecided,) = evaluate_gates([rule], {("p", "f", "below"): on})
    noted = with_sequential_notes([undecided], {"g": [Look(1, 10, 100, {})]})[0]
    assert noted.note == undecided_note([Look(1, 10, 100, {})])
    assert noted.note == (
        "not decided after 1 look (10 of 100 requests, 10.0%); another batch may decide it"
    )
    assert noted.more_trials is None
    assert "the design is complete" in undecided_note([Look(5, 100, 100, {})])


def test_the_summary_says_when_it_stopped_and_what_it_saved() -> None:
    parts = [
        PartLooks(10, 0, [Look(1, 160, 1600, {}), Look(2, 320, 1600, {})], "decided"),
        PartLooks(10, 0, [Look(1, 80, 800, {})], "decided", active=False),
    ]
    summary = SequentialSummary.of(parts)
    assert summary is not None
    assert (summary.bought, summary.planned, summary.saved, summary.looks) == (320, 1600, 1280, 2)
    assert summary.sentence().startswith(
        "The audit stopped early (every gate decided) after 320 of 1,600 requests (20.0%), at "
        "look 2 of 10; its intervals are the anytime-valid ones"
    )
    assert SequentialSummary.of([PartLooks(10, 0)]) is None
    budget = SequentialSummary.of([PartLooks(10, 0, [Look(3, 30, 100, {})], "max-cost")])
    assert budget is not None and "the budget (--max-cost) was reached" in budget.sentence()


def test_a_design_bought_whole_after_its_looks_says_so_once() -> None:
    """``audit gate`` of an audit bought whole since its gates stopped it: its complete design
    named once, never again in its stop's words ("the design was complete")."""
    whole = SequentialSummary("complete", 2, 10, 1600, 1600)
    assert whole.sentence().startswith(
        "The audit was looked at 2 times, the last at its complete design; its intervals"
    ), whole.sentence()
    decided = SequentialSummary("decided", 2, 10, 1600, 1600)
    assert "the last at its complete design (every gate decided);" in decided.sentence()
    # One look is said as a count of looks, never "looked at 1 time".
    once = SequentialSummary("complete", 1, 10, 1600, 1600)
    assert once.sentence().startswith(
        "The audit was looked at once, at its complete design; its intervals"
    ), once.sentence()
    failed = once.with_failed({"pst-text-1": 2}).sentence()
    assert failed.startswith("The audit was looked at once, and its design is not complete"), failed


DESIGN = PlannedDesign("grid", ("masculine identity", "feminine identity"), (10, 10), 4, "ids")
COMPONENTS = Components(5.0, 5.0, 0.0, 20.0, "stated", 0.0)


def test_expected_spend_far_from_the_limit_is_the_first_batch() -> None:
    rule = GateRule("g", "p", "f", "below", 25.0)
    # 85 points below a limit whose first look's interval (40 observations) is about ±15 wide:
    # always decided at the first look, after a tenth of the design.
    far = expected_spend(DESIGN, COMPONENTS, rule, -60.0, bounds=(-100.0, 100.0), replicates=30)
    assert far.decided == 1.0 and far.share == pytest.approx(0.1)
    assert far.mc_error == pytest.approx(0.0, abs=1e-12)
    # On the limit: seldom decided, nearly all of the design bought, never more than all.
    on = expected_spend(DESIGN, COMPONENTS, rule, 25.0, bounds=(-100.0, 100.0), replicates=40)
    assert on.decided <= 0.15 and 0.85 <= on.share <= 1.0


def test_a_run_bought_on_since_its_stop_never_promises_a_value_beside_each_gate() -> None:
    """Decided at look 1 of 10 (164 of 1,640 requests) and bought on to the end since: the gate
    lines every surface prints give the look's value and interval alone, so the sentence over
    them says so, and says where the value on all the trials since is printed (the runs'
    figures), never that it stands beside every gate."""
    bought_on = SequentialSummary("decided", 1, 10, 164, 1640, bought_now=1640, trials_now=6560)
    said = bought_on.sentence()
    assert said.startswith(
        "The audit stopped early (every gate decided) after 164 of 1,640 requests (10.0%), at "
        "look 1 of 10; it was bought on since (1,640 of 1,640 requests stored now, 6,560 trials "
        "its runs were asked); the gates below keep their reading at look 1 of 10, each gate's "
        "value and interval the look's; its runs' figures"
    ), said
    assert "every figure is read there" not in said, said
    assert bought_on.saved == 0
