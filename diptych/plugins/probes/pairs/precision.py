"""The planned precision of PAIRS' association scores: each level's score is a mean of answers
scored +1 / 0 / −1, its interval resampling scenarios with all their images and answers
(:func:`diptych.core.metrics.pairs.association.mean_over_scenarios`).

Before a run the spread is a bound: a score lies in [−1, 1], so neither a scenario's mean nor
an answer can vary with an SD above 1; the plan puts all of it on the scenarios (the bound on
the interval). An earlier PAIRS run in the workspace replaces the bound with its own
components."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from diptych.core.metrics.uncertainty.intervals import UNIT_SCORE_RANGE
from diptych.core.metrics.uncertainty.precision import (
    Components,
    PlannedDesign,
    PlannedFigure,
    components_of,
)
from diptych.datasets import pairs
from diptych.plugins.probes.pairs.questions import COMPARED, SUBSETS, PairsQuestion

if TYPE_CHECKING:
    from diptych.core.runview import RunView

BOUND = Components(
    1.0, source="a bound: scenarios spread over the whole range [−1, 1] (SD 1, kept in range)"
)


def _levels(subset: str) -> tuple[str, ...]:
    from diptych.core.metrics.pairs.association import FIRST_LEVEL

    compared = COMPARED[subset]
    values = pairs.GENDERS if compared == "gender" else pairs.RACES
    first = next(v for v in values if v in FIRST_LEVEL[compared])
    return (first, *(v for v in values if v != first))


def planned_scores(questions: Sequence[PairsQuestion], runs: int) -> list[PlannedFigure]:
    """Each subset's association score per level: the scenarios asked, and the answers one
    scenario gives at one level (its images of the level × its questions × ``runs``)."""
    out = []
    for subset in (s for s in SUBSETS if any(q.subset == s for q in questions)):
        asked = [q for q in questions if q.subset == subset]
        scenarios = sorted({q.scenario for q in asked})
        attribute = COMPARED[subset]
        for level in _levels(subset):
            shown = [
                img
                for s in scenarios
                for img in pairs.images(subset=subset, scenario=s)
                if getattr(img, attribute) == level
            ]
            n = max(len(scenarios), 1)
            # Per scenario: its images of the level × its questions × the runs.
            per = max(1, round(len(shown) / n * len(asked) / n * runs))
            design = PlannedDesign("clusters", ("scenario",), (len(scenarios),), per, "scenarios")
            dataset = len({img.scenario for img in pairs.images(subset=subset)})
            out.append(
                PlannedFigure(
                    f"{subset}: association score, {level}",
                    design,
                    BOUND,
                    *UNIT_SCORE_RANGE,
                    max_size=dataset,
                    grow="name more with -p scenarios=..., or all by leaving it out",
                )  # fmt: skip
            )
    return out


def observed_scores(run: RunView) -> dict[str, Components]:
    """The components of each association score in ``run`` (its first model's answers)."""
    from diptych.plugins.probes.pairs.answers import collect_answers

    answers = collect_answers(run).answers
    if not answers:
        return {}
    model = answers[0].model_id
    out: dict[str, Components] = {}
    for subset in SUBSETS:
        attribute = COMPARED[subset]
        for level in _levels(subset):
            chosen = [
                a
                for a in answers
                if a.model_id == model
                and a.subset == subset
                and getattr(a.response(), attribute) == level
            ]
            if len({a.scenario for a in chosen}) < 2:
                continue
            out[f"{subset}: association score, {level}"] = components_of(
                [float(a.value) for a in chosen],
                {"scenario": [a.scenario for a in chosen]},
                source=f"run {run.id} ({model}), {len(chosen):,} answers",
            )
    return out
