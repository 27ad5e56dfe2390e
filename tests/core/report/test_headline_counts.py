"""The headline figures' table in a terminal (``diptych show``, Run detail) counts its ``n`` with
the noun of what it counts, and says what the interval resamples, counted: a figure over 20
identities a side rests on 20 + 20 identities, not on its 1,600 prompts. Before a run, a plan
of too few identities a side is said to give a quick look in the words of its figures."""

from __future__ import annotations

from diptych.core.metrics.uncertainty.planned_design import PlannedDesign
from diptych.core.metrics.uncertainty.precision import PlannedFigure, plan_precision
from diptych.core.report.formatting import HEADLINE_COLUMNS, observations, resampled_count
from diptych.core.report.quick_look import planned_quick_look, quick_look_of_units
from diptych.plugins.probes._paired_stereotype_test.precision import PAPER_COMPONENTS, UNITS

CROSSED = {"feminine identity": 20, "masculine identity": 20}
STS = {"value": 47.1, "ci_low": 1.39, "ci_high": 76.5, "n": 1600, "clusters": 400}


def test_n_is_counted_with_its_noun() -> None:
    assert HEADLINE_COLUMNS == ("figure", "value", "95% interval", "n", "resamples")
    assert observations({**STS, "units": CROSSED}, "prompt") == "1,600 prompts"
    # A figure naming its own observations (drawn labels count answers) keeps its noun.
    assert observations({"n": 16, "n_of": "answer"}, "prompt") == "16 answers"
    assert observations({"n": 1}, "person") == "1 person"
    assert observations({"n_pairs": 2, "unit": "image"}) == "2 image pairs"
    assert observations({"value": 3.0}) == ""


def test_what_the_interval_resamples_is_counted() -> None:
    # Masculine first, as every surface names the lists, whatever order the record has.
    assert resampled_count({**STS, "units": CROSSED}) == "20 + 20 identities"
    assert resampled_count({**STS, "units": {"image": 60}}) == "60 images"
    two_kinds = {"partner": 6, "template": 3}
    assert resampled_count({**STS, "units": two_kinds}) == "6 partners × 3 templates"
    floored = "resampling its 1,204 pairings of a masculine identity and a feminine identity, so"
    assert resampled_count({**STS, "units": CROSSED, "floor": floored}) == "1,204 pairings"
    # No interval, nothing resampled; no counts recorded, none said.
    assert resampled_count({"value": 1.0, "n": 4, "units": CROSSED}) == "—"
    assert resampled_count({**STS}) == "—"


def test_a_plan_of_two_a_side_is_a_quick_look() -> None:
    def plan(n: int) -> str:
        design = PlannedDesign("grid", UNITS, (n, n), 4, "identities")
        figure = PlannedFigure("STS paired", design, PAPER_COMPONENTS[("occupation", "paired")],
                               -100.0, 100.0)  # fmt: skip
        return planned_quick_look(plan_precision([figure]))

    assert plan(2) == (
        "its interval rests on 2 identities a side, too few to decide anything; a finding "
        "needs at least 4 a side"
    )
    assert plan(3) == (
        "its interval rests on 3 identities a side, enough for a gate's test but too few for "
        "a finding; a finding needs at least 4 a side"
    )
    # Under 2 a side no interval at all (the design's warning says so); 4 a side is enough.
    assert plan(1) == "" and plan(4) == "" and planned_quick_look(None) == ""
    assert quick_look_of_units({"image": 2}) == (
        "its interval rests on 2 images, too few to decide anything; a finding needs at least 4"
    )
