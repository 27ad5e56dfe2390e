"""Comparing two ``pairs`` runs: how each experiment's association figures differ in run B.

Typical use: A is a plain run, B the same images asked with a changed prompt, or another model.
Per model pair and experiment, each level's association score and refusal share and the paired
difference between the levels are given as A, B and B − A with an interval and a p-value from
one resampling of the figure's units (:func:`diptych.core.metrics.compare.compare_association`):
matched per image when both runs asked the same images and questions, else independent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from diptych.core.digits import signed_text
from diptych.core.errors import UsageError
from diptych.core.probe import ProbeResult, Table
from diptych.core.runview import RunView
from diptych.plugins.probes.pairs.answers import Answer, collect_answers
from diptych.plugins.probes.pairs.questions import COMPARED, SUBSETS

if TYPE_CHECKING:
    from diptych.core.metrics.compare import AssociationComparison, RunDifference


def _answers(view: RunView) -> dict[tuple[str, str], list[Answer]]:
    if view.run.probe != "pairs":
        raise UsageError(
            f"run {view.id} is a '{view.run.probe}' run; diptych compare takes two pairs runs"
        )
    out: dict[tuple[str, str], list[Answer]] = {}
    for a in collect_answers(view).answers:
        out.setdefault((a.model_id, a.subset), []).append(a)
    return out


def _model_pairs(
    a: Sequence[str], b: Sequence[str], run_a: str, run_b: str
) -> list[tuple[str, str]]:
    shared = [m for m in a if m in b]
    if shared:
        return [(m, m) for m in shared]
    if len(a) == 1 and len(b) == 1:
        # Two one-model runs of different models: comparing the models is the point.
        return [(a[0], b[0])]
    raise UsageError(
        f"runs {run_a} and {run_b} share no model and have several each; compare one-model runs"
    )


def compare_pairs_runs(
    view_a: RunView, view_b: RunView, *, n_boot: int, seed: int
) -> list[dict[str, Any]]:
    """Every comparison of B with A, per model pair and experiment: the models, the
    experiment and the :class:`~diptych.core.metrics.compare.AssociationComparison`."""
    from diptych.core.metrics.compare import compare_association

    answers_a, answers_b = _answers(view_a), _answers(view_b)
    models_a = list(dict.fromkeys(m for m, _ in answers_a))
    models_b = list(dict.fromkeys(m for m, _ in answers_b))
    out: list[dict[str, Any]] = []
    for model_a, model_b in _model_pairs(models_a, models_b, view_a.id, view_b.id):
        for subset in SUBSETS:
            a, b = answers_a.get((model_a, subset)), answers_b.get((model_b, subset))
            if not a or not b:
                continue
            try:
                comparison = compare_association(
                    [x.response() for x in a], [x.response() for x in b], COMPARED[subset],
                    n_boot=n_boot, seed=seed,
                )  # fmt: skip
            except ValueError:
                continue  # a level missing in one run; said below if for every experiment
            out.append(
                {"model_a": model_a, "model_b": model_b, "subset": subset, "comparison": comparison}
            )
    if not out:
        raise UsageError(
            f"runs {view_a.id} and {view_b.id} share no experiment with both levels answered; "
            "compare runs of the same experiments"
        )
    return out


def _cells(d: RunDifference | None) -> list[Any]:
    if d is None:
        return [None] * 5
    interval = (
        f"[{signed_text(d.ci_low)}, {signed_text(d.ci_high)}]" if d.inference.has_interval else "—"
    )
    return [d.a.value, d.b.value, d.difference, interval, d.p_value]


def compare_pairs_result(
    view_a: RunView, view_b: RunView, *, n_boot: int, seed: int
) -> ProbeResult:
    """:func:`compare_pairs_runs` as a result: its list in ``data["comparisons"]`` and one
    table per model pair and experiment."""
    comparisons = compare_pairs_runs(view_a, view_b, n_boot=n_boot, seed=seed)
    first: AssociationComparison = comparisons[0]["comparison"]
    result = ProbeResult(
        title=f"PAIRS association of run B {view_b.id} minus run A {view_a.id}",
        summary=first.method,
        data={
            "run_a": view_a.id,
            "run_b": view_b.id,
            "n_boot": n_boot,
            "seed": seed,
            "comparisons": comparisons,
        },
    )
    for entry in comparisons:
        c: AssociationComparison = entry["comparison"]
        models = (
            entry["model_a"]
            if entry["model_a"] == entry["model_b"]
            else f"{entry['model_a']} → {entry['model_b']}"
        )
        first_level, second_level = c.levels
        rows: list[list[Any]] = []
        for level in c.levels:
            rows.append([f"association, {level}", *_cells(c.mean.get(level))])
        rows.append([f"{first_level} − {second_level}", *_cells(c.difference)])
        for level in c.levels:
            rows.append([f"refusal share, {level}", *_cells(c.refusal_rate.get(level))])
        design = "paired per image" if c.paired else "independent"
        result.tables.append(
            Table(
                f"{models} · {entry['subset']} ({design})",
                ["figure", "A", "B", "B − A", "95% CI", "p"],
                rows,
                note=c.method,
            )
        )
    return result
