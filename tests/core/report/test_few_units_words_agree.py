""" "Too few units" is said one way on every surface. A release gate tests a look from 3 units of
each kind (on the t interval of those units); a figure's own interval makes a finding from 4 a
side. On 2 a side both refuse and the words say it decides nothing; on 3 a gate tests, so the
plan's warning and the quick look say the design is enough for a gate's test but not for a
finding — never "too few to decide anything"; on 4 neither warns."""

from __future__ import annotations

import pytest

from diptych.core.audit.gates import GateFigure
from diptych.core.audit.sequential import look_interval
from diptych.core.metrics.uncertainty.intervals import STS_RANGE, IntervalRecipe
from diptych.core.metrics.uncertainty.precision import (
    FINDING_MIN_UNITS,
    LOOK_MIN_UNITS,
    Components,
    PlannedDesign,
    PlannedFigure,
    few_units_warning,
)
from diptych.core.report.quick_look import quick_look

SIDES = {"masculine identity": 0, "feminine identity": 0}


def _gate_figure(a_side: int) -> GateFigure:
    recipe = IntervalRecipe.t(60.0, 4.0, 30.0, bounds=STS_RANGE)
    units = dict.fromkeys(SIDES, a_side)
    return GateFigure(60.0, 4.0, 30.0, "t", 4 * a_side * a_side, recipe, units)


def _number(a_side: int) -> dict[str, object]:
    """A figure far from 0 (60 [50, 70]) whose interval resamples ``a_side`` identities a side."""
    return {"value": 60.0, "ci_low": 50.0, "ci_high": 70.0, "units": dict.fromkeys(SIDES, a_side)}


def _planned(a_side: int) -> PlannedFigure:
    design = PlannedDesign("grid", tuple(SIDES), (a_side, a_side), 4, "identities")
    return PlannedFigure("STS", design, Components(6.0, 6.0, 0.0, 90.0, "a test"), *STS_RANGE)


def test_the_two_thresholds_are_a_gates_test_and_a_finding() -> None:
    assert (LOOK_MIN_UNITS, FINDING_MIN_UNITS) == (3, 4)


def test_two_a_side_decides_nothing_for_a_gate_or_a_quick_look() -> None:
    assert look_interval(_gate_figure(2)) is None
    assert quick_look(_number(2)) == (
        "its interval rests on 2 identities a side, too few to decide anything; a finding "
        "needs at least 4 a side"
    )
    warning = few_units_warning([_planned(2)])
    assert warning is not None
    assert warning.endswith("(t 12.7): too wide to say anything; use at least 4 per list")


def test_three_a_side_a_gate_tests_and_the_words_say_so() -> None:
    # The gate reads a look of 3 a side: its t interval, 2 degrees of freedom.
    made = look_interval(_gate_figure(3))
    assert made is not None and made.df == 2.0
    quick = quick_look(_number(3))
    assert quick == (
        "its interval rests on 3 identities a side, enough for a gate's test but too few for "
        "a finding; a finding needs at least 4 a side"
    )
    warning = few_units_warning([_planned(3)])
    assert warning is not None
    assert warning.endswith(
        "a t interval with 2 degrees of freedom (t 4.30): enough for a gate's test but too "
        "wide for a finding; use at least 4 per list"
    )
    for said in (quick, warning):
        assert "decide anything" not in said and "say anything" not in said


@pytest.mark.parametrize("a_side", [4, 5])
def test_four_a_side_is_neither_warned_nor_a_quick_look(a_side: int) -> None:
    assert look_interval(_gate_figure(a_side)) is not None
    assert quick_look(_number(a_side)) == ""
    assert few_units_warning([_planned(a_side)]) is None
