"""The precision a run would buy, as ``Workspace.runs.plan(..., precision=True)`` states it:
the probe's planned figures, each assumed to vary as an earlier run of the same probe in this
workspace varied (its variance components, where one can say) or else as the probe's stated
assumption (a paper's published values, or a bound), measured by
:mod:`diptych.core.metrics.uncertainty.precision`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from diptych.core.metrics.uncertainty.precision import (
    FINDING_MIN_UNITS,
    Components,
    PlannedFigure,
    PrecisionPlan,
    plan_precision,
)
from diptych.core.probe import Probe
from diptych.core.runview import RunView
from diptych.core.store import RunRecord, Store

#: How many of the latest finished runs of the probe are read for their components.
EARLIER_RUNS = 3


#: Statuses of a run whose stored answers can say how its figures vary: finished, or stopped
#: on purpose after a share of its design was bought (a sequential audit's decided or partial
#: run is the best guide to that very design).
READABLE = ("complete", "decided", "partial")


def earlier_runs(
    store: Store, probe: str, model_ids: Sequence[str], params: dict[str, Any] | None = None
) -> list[RunRecord]:
    """The latest readable runs of ``probe``: those of the same design (``params``) first,
    then those on the same models, then the rest."""
    runs = [r for r in store.list_runs() if r.probe == probe and r.status in READABLE]
    wanted = set(model_ids)

    def same_models(run: RunRecord) -> bool:
        return {str(m.get("model_id") or m.get("name")) for m in run.models} == wanted

    runs.sort(key=lambda r: (r.params == params, same_models(r), r.created_at), reverse=True)
    return runs[:EARLIER_RUNS]


def observed(
    store: Store, probe: Probe, model_ids: Sequence[str], chroma_url: str | None = None
) -> dict[str, Components]:
    """Per planned figure, the components of the latest earlier run that can say."""
    found: dict[str, Components] = {}
    design = probe.params.model_dump(mode="json")
    for run in earlier_runs(store, probe.name, model_ids, design):
        view = RunView(store, run, chroma_url=chroma_url)
        for name, comp in probe.observed_components(view).items():
            # A quick look's spread rests on too few units to plan a design by (its own
            # interval makes no finding): the next run, or the probe's stated assumption.
            if comp.fewest is not None and comp.fewest < FINDING_MIN_UNITS:
                continue
            if name not in found:
                found[name] = comp if run.params == design else _another_design(comp, run, design)
    return found


def _another_design(comp: Components, run: RunRecord, design: dict[str, Any]) -> Components:
    """``comp`` read from a run of another design, said so in its source: a variance taken
    from other identities or samples is an assumption the plan line must name."""
    keys = sorted(set(run.params) | set(design))
    differ = [k for k in keys if run.params.get(k) != design.get(k)]
    return replace(
        comp,
        source=f"assumed from run {run.id}, another design ({', '.join(differ)} differ): "
        f"{comp.source}",
    )


def precision_plan(
    store: Store,
    probe: Probe,
    model_ids: Sequence[str],
    *,
    target_width: float | None = None,
    chroma_url: str | None = None,
) -> PrecisionPlan:
    """The expected precision of ``probe``'s planned figures (the probe bound already)."""
    figures = probe.planned_figures()
    if figures:
        seen = observed(store, probe, model_ids, chroma_url)
        figures = [_with_observed(f, seen.get(f.name)) for f in figures]
    return plan_precision(figures, target_width=target_width)


def _with_observed(fig: PlannedFigure, comp: Components | None) -> PlannedFigure:
    return fig if comp is None else replace(fig, components=comp)
