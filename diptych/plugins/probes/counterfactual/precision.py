"""The planned precision of counterfactual retrieval's headline figures: MaxSkew@K of each
attribute view and Bias@K of the gender view where gender is an attribute, over the units
their intervals resample (:mod:`diptych.core.metrics.retrieval.metrics`).

A figure's interval resamples the occupations, every wording of one together (a PAIRS answer
option is an occupation here). Where the occupations of a pool share its images — PAIRS: all
the options of a subset rank its scenarios' images — they are not independent: the interval
then rests on what the within-set permutation moves, the counterfactual sets, and the plan
counts those. The excess over the null is the mean less a computed expectation, so its
interval is the mean's shifted: one half-width for both, planned on the mean's range
(:func:`~diptych.core.metrics.retrieval.intervals.figure_ranges`: MaxSkew@K in [0, ln G] for G
equally desired groups, Bias@K in [−1, 1]).

Before any run the spread is a bound: a figure whose every unit may lie anywhere in its range
has an SD of at most half the range (Popoviciu), reached with the units at its two ends, the
mean in the middle; the plan takes that worst case. An earlier run of the probe in the
workspace replaces it with the spread it showed (its interval's standard error times the
square root of its units), centred on its value. The counts are those of the sets before the
run's filters, which can only remove sets.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from diptych.core.metrics.uncertainty.intervals import UNIT_SCORE_RANGE
from diptych.core.metrics.uncertainty.precision import Components, PlannedDesign, PlannedFigure
from diptych.plugins.probes.counterfactual.ranking import BIAS_VIEW, query_unit, views
from diptych.plugins.probes.counterfactual.templates import data

if TYPE_CHECKING:
    from diptych.plugins.probes.counterfactual.sets import CounterfactualSet

#: What the units are called in a planned design, by whether occupations share pools.
OCCUPATION, SET = "occupation", "counterfactual set"
MEASURES = ("max_skew", "bias")
LABELS = {"max_skew": "MaxSkew@K", "bias": "Bias@K"}


def bound(low: float, high: float) -> Components:
    """The widest spread a figure in [low, high] can have over its units: SD half the range,
    centred in it."""
    half = (high - low) / 2
    return Components(
        half,
        source="a bound: every unit's figure anywhere in its range (SD at most half of it)",
        centre=low + half,
    )


def planned_retrieval(
    sets: Sequence[CounterfactualSet], queries: Mapping[str, Sequence[str]]
) -> list[PlannedFigure]:
    """Each segment's planned figures: MaxSkew@K per attribute view and, where gender is one
    of its attributes, Bias@K of the gender view (the one it is scored in). ``queries`` holds
    each pool's neutral queries (every wording of every occupation or answer option)."""
    by_segment: dict[str, list[CounterfactualSet]] = defaultdict(list)
    for s in sets:
        by_segment[s.segment].append(s)
    out = []
    for segment, chosen in by_segment.items():
        design = _design(chosen, queries)
        grow = "add sets (more scenarios or occupations, or sets_per_caption)"
        types = chosen[0].attribute_types
        for view, view_types in views(types).items():
            groups = {image.group_of(view_types) for s in chosen for image in s.images}
            high = math.log(len(groups)) if len(groups) > 1 else 0.0
            if high <= 0:
                continue
            out.append(
                PlannedFigure(
                    f"{segment}.{view}.max_skew", design, bound(0.0, high), 0.0, high, grow=grow
                )
            )
        if BIAS_VIEW in types:
            out.append(
                PlannedFigure(
                    f"{segment}.{BIAS_VIEW}.bias",
                    design,
                    bound(*UNIT_SCORE_RANGE),
                    *UNIT_SCORE_RANGE,
                    grow=grow,
                )  # fmt: skip
            )
    return out


def _design(
    chosen: Sequence[CounterfactualSet], queries: Mapping[str, Sequence[str]]
) -> PlannedDesign:
    """The units one segment's intervals resample: its occupations (answer options), each
    with its wordings, or its counterfactual sets where occupations share a pool."""
    units_of_pool: dict[str, set[str]] = defaultdict(set)
    wordings: dict[str, int] = defaultdict(int)
    for s in chosen:
        if s.pool_id in units_of_pool:
            continue
        for text in queries.get(s.pool_id, ()):
            unit = query_unit(s.pool_id, s.subject, text)
            units_of_pool[s.pool_id].add(unit)
            wordings[unit] += 1
    if any(len(u) > 1 for u in units_of_pool.values()):
        return PlannedDesign("clusters", (SET,), (len(chosen),), 1, "counterfactual sets")
    per = max(wordings.values(), default=len(data().query_templates))
    return PlannedDesign("clusters", (OCCUPATION,), (len(wordings),), per, "occupations")


def observed_retrieval(
    numbers: Mapping[str, Mapping[str, Any]], source: str
) -> dict[str, Components]:
    """The spread each planned figure showed in an earlier run's ``numbers`` (its first
    model's): the interval's standard error times √units, centred on its value."""
    out: dict[str, Components] = {}
    for key, number in numbers.items():
        # model.segment.view.measure, the model's id free to hold dots of its own.
        parts = key.rsplit(".", 3)
        if len(parts) < 4 or parts[-1] not in MEASURES:
            continue
        model, rest = parts[0], ".".join(parts[1:])
        se, units, value = number.get("se"), number.get("units"), number.get("value")
        if not isinstance(se, float) or not math.isfinite(se) or not isinstance(units, dict):
            continue
        counted = units.get(SET) or units.get(OCCUPATION) or units.get("query")
        if not isinstance(counted, int) or counted < 2 or not isinstance(value, float):
            continue
        out.setdefault(
            rest,
            Components(se * math.sqrt(counted), source=f"{source} ({model})", centre=value),
        )
    return out
