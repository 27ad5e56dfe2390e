"""A quick look is not a finding: a figure whose own interval rests on fewer than
:data:`~diptych.core.metrics.uncertainty.precision.FINDING_MIN_UNITS` units a side (two
occupations a side, say, when its spread is over the identities) has a t interval of so few
degrees of freedom, or a percentile interval so short, that it makes no finding, however far
from 0 it lies. On fewer than
:data:`~diptych.core.metrics.uncertainty.precision.LOOK_MIN_UNITS` it decides nothing at all,
as a release gate says too ("no look yet holds 3 units"); on 3 a side a gate does test, on a
t interval made for few units, so the words say it is enough for a gate's test, not that it
decides nothing. Every surface that would state a finding — the report's verdict and
headlines, report.json, ``diptych run`` and ``diptych show`` — asks here, so that the
threshold and the words are one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from diptych.core.metrics.uncertainty.precision import (
    FINDING_MIN_UNITS,
    LOOK_MIN_UNITS,
    PrecisionPlan,
)
from diptych.core.report.formatting import floor_pairings, interval
from diptych.core.resampled_units import list_rank, plural

__all__ = [
    "FINDING_MIN_UNITS",
    "LOOK_MIN_UNITS",
    "QUICK_LOOK",
    "QUICK_LOOK_MARK",
    "planned_quick_look",
    "quick_look",
    "quick_look_of_units",
    "units_a_side",
]

#: What a quick look is called wherever it stands in place of a finding.
QUICK_LOOK = "quick look, not a finding"
#: A quick look's mark in a table with no room for the words beside it (the terminal app's
#: headline figures, the standings): a line under the table says them. ``†`` and ``‡`` are
#: taken (an interval at its floor, a design stopped early on its gates).
QUICK_LOOK_MARK = "§"


def units_a_side(number: Mapping[str, Any]) -> tuple[int, str, bool] | None:
    """The fewest units of a kind the figure's interval resamples, their noun ("identity") and
    whether there are two kinds (two sides); None where the figure records no counts."""
    units = number.get("units")
    if not isinstance(units, Mapping) or not units:
        return None
    counts = {str(k): v for k, v in units.items()}
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in counts.values()):
        return None
    name, fewest = min(counts.items(), key=lambda kv: kv[1])
    return int(fewest), name.rsplit(" ", 1)[-1], len(counts) > 1


def _rests_on(number: Mapping[str, Any]) -> str:
    """The units the interval rests on, each side as it is: "2 identities a side" where the
    sides are even, "1 masculine and 3 feminine identities" where they are not."""
    # The identity lists masculine first, as every surface names them (list_rank).
    units = {
        str(k): int(v)
        for k, v in sorted(number["units"].items(), key=lambda u: list_rank(str(u[0])))
    }
    counts = list(units.values())
    names = list(units)
    nouns = {name.rsplit(" ", 1)[-1] for name in names}
    if len(set(counts)) == 1:
        count, noun = counts[0], names[0].rsplit(" ", 1)[-1]
        return f"{count} {plural(noun, count)}" + (" a side" if len(counts) > 1 else "")
    if len(nouns) == 1:
        (noun,) = nouns
        kinds = [name.rsplit(" ", 1)[0] for name in names]
        said = [f"{n} {kind}" for n, kind in zip(counts, kinds, strict=True)]
        return f"{', '.join(said[:-1])} and {said[-1]} {plural(noun, counts[-1])}"
    said = [f"{n} {plural(name, n)}" for name, n in units.items()]
    return f"{', '.join(said[:-1])} and {said[-1]}"


def quick_look(number: Mapping[str, Any]) -> str:
    """Why the figure is a quick look and what a finding needs ("its interval rests on 2
    identities a side, too few to decide anything; a finding needs at least 4 a side"; on 3,
    "enough for a gate's test but too few for a finding"), or "" where it has enough units
    (or records none). A figure with no interval is no quick look:
    it already says why it has none. An interval at its floor rests on the pairings of those
    units, and is said to, in the unit its ``resamples`` counts ("4 pairings of 2 identities
    a side")."""
    if interval(dict(number)) == "—":
        return ""
    return quick_look_of_units(number.get("units"), floor_pairings(number))


def quick_look_of_units(units: Any, pairings: int | None = None) -> str:
    """:func:`quick_look`'s words for an interval over ``units`` (``{"masculine identity": 2,
    "feminine identity": 2}``), said before the run too, of the design it plans; "" where they
    are enough or unknown. ``pairings``: the interval fell to its floor, on that many."""
    number = {"units": units}
    fewest = units_a_side(number)
    if fewest is None or fewest[0] >= FINDING_MIN_UNITS:
        return ""
    where = " a side" if fewest[2] else ""
    too_few = (
        "enough for a gate's test but too few for a finding"
        if fewest[0] >= LOOK_MIN_UNITS
        else "too few to decide anything"
    )
    rests = _rests_on(number)
    if pairings is not None:
        rests = f"{pairings:,} {plural('pairing', pairings)} of {rests}"
    return (
        f"its interval rests on {rests}, {too_few}; a finding needs at least "
        f"{FINDING_MIN_UNITS}{where}"
    )


def planned_quick_look(plan: PrecisionPlan | None) -> str:
    """What a run of the plan's design would be, in :func:`quick_look`'s words: its first
    figure with an interval on too few units a side (the figures share the lists, as the
    design's warning says). A design under 2 a side gives no interval at all, and its warning
    says so: no quick look."""
    for figure in plan.figures if plan is not None else []:
        design = figure.design
        if design.smallest_side >= 2 and (why := quick_look_of_units(design.to_dict()["units"])):
            return why
    return ""
