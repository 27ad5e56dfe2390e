"""A dry run's expected precision reads the variance of an earlier run of the same design
first; one read from another design says so in the plan's line, never silently."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from diptych.core.metrics.uncertainty.components import Components
from diptych.core.workspace.precision import _another_design, earlier_runs

DESIGN = {"masculine": ["carpenter"], "samples_single": 3}


def _run(run_id: str, params: dict[str, Any], created: str) -> Any:
    return SimpleNamespace(
        id=run_id,
        probe="pst-text",
        status="complete",
        params=params,
        models=[{"model_id": "m"}],
        created_at=created,
    )


def test_the_same_design_comes_first_however_old() -> None:
    same = _run("same", DESIGN, "2026-01-01")
    other = _run("other", {**DESIGN, "samples_single": 1}, "2026-06-01")
    store = SimpleNamespace(list_runs=lambda: [other, same])
    assert [r.id for r in earlier_runs(store, "pst-text", ["m"], DESIGN)] == ["same", "other"]  # type: ignore[arg-type]


def test_a_variance_from_another_design_names_the_run_and_what_differs() -> None:
    other = _run("pst-text-1a", {**DESIGN, "samples_single": 1, "mode": "x"}, "2026-06-01")
    comp = _another_design(Components(2.0, source="run pst-text-1a, 40 prompts"), other, DESIGN)
    assert comp.source == (
        "assumed from run pst-text-1a, another design (mode, samples_single differ): "
        "run pst-text-1a, 40 prompts"
    )
    assert comp.rows == 2.0
