"""Comparing two ``pst`` runs (PST Table 6): how the STS of run B differs from run A's.

Typical use: A is a plain ``pst`` run, B the same probe with ``-p intervention=...`` (Section 5).
Every figure both runs have — overall per aspect and setting, micro per identity — is given as
A, B, B − A with a 95% bootstrap interval and a permutation p-value
(:mod:`diptych.core.metrics.compare`). Labels are taken by the same policy as the runs' reports.
Where both runs have an automatic annotator on every person and people's labels of a designed
sample, the same figures prediction-powered follow (:mod:`.prediction_powered.compare`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from diptych.core.errors import UsageError
from diptych.core.metrics.sts import LabelRow
from diptych.core.probe import ProbeResult, Table
from diptych.core.report.formatting import bounds
from diptych.core.runview import RunView
from diptych.plugins.probes.pst.collect import LABEL_POLICY, NO_LABELS, collect_labels

if TYPE_CHECKING:
    from diptych.core.metrics.compare import STSComparison, STSDifference

Rows = dict[tuple[str, str], list[LabelRow]]


def _rows_by_model_and_aspect(
    probe: str, view: RunView
) -> tuple[Rows, dict[tuple[str, str], str | None]]:
    if view.run.probe != probe:
        raise UsageError(
            f"run {view.id} is a '{view.run.probe}' run; diptych compare takes two {probe} runs"
        )
    labels = collect_labels(view)
    if labels.n_labelled == 0:
        raise UsageError(f"run {view.id} has " + NO_LABELS.format(run=view.id))
    rows: Rows = {}
    intervention: dict[tuple[str, str], str | None] = {}
    for key, group in labels.groups.items():
        if not group.rows:
            continue
        where = (key.model_id, key.aspect)
        if where in rows:
            # Pooling two prompts' images would compare a mixture; one run, one prompt.
            raise UsageError(
                f"run {view.id} mixes interventions for {key.model_id} {key.aspect}; "
                "compare runs made with one prompt each"
            )
        rows[where] = group.rows
        intervention[where] = key.intervention
    return rows, intervention


def _model_pairs(a: Rows, b: Rows, run_a: str, run_b: str) -> list[tuple[str, str]]:
    models_a = list(dict.fromkeys(m for m, _ in a))
    models_b = list(dict.fromkeys(m for m, _ in b))
    shared = [m for m in models_a if m in models_b]
    if shared:
        return [(m, m) for m in shared]
    if len(models_a) == 1 and len(models_b) == 1:
        # Two one-model runs of different models: comparing the models is the point.
        return [(models_a[0], models_b[0])]
    raise UsageError(
        f"runs {run_a} and {run_b} share no model and have several each; compare one-model runs"
    )


def compare_runs(
    view_a: RunView,
    view_b: RunView,
    *,
    probe: str = "pst",
    top: int | None = None,
    n_perm: int = 10_000,
    n_boot: int = 2000,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Every comparison of B with A, per model pair and aspect: the models, the aspect, each
    run's intervention, the identities ``top`` selected and the :class:`STSComparison`."""
    from diptych.core.metrics.compare import compare_sts, most_biased_identities
    from diptych.core.metrics.sts import stereotype_test_score

    rows_a, intervention_a = _rows_by_model_and_aspect(probe, view_a)
    rows_b, intervention_b = _rows_by_model_and_aspect(probe, view_b)
    out: list[dict[str, Any]] = []
    for model_a, model_b in _model_pairs(rows_a, rows_b, view_a.id, view_b.id):
        for (model, aspect), a in rows_a.items():
            b = rows_b.get((model_b, aspect))
            if model != model_a or b is None:
                continue
            selected = None
            if top is not None:
                # Only the point values rank identities, so a single resample is enough.
                scores = stereotype_test_score(a, n_boot=1, seed=seed)
                selected = most_biased_identities(scores, top)
            try:
                comparison = compare_sts(a, b, identities=selected, n_boot=n_boot, seed=seed)
            except ValueError:
                continue  # no identity in common for this aspect; said below if for none
            out.append(
                {
                    "model_a": model_a,
                    "model_b": model_b,
                    "aspect": aspect,
                    "intervention_a": intervention_a[(model, aspect)],
                    "intervention_b": intervention_b[(model_b, aspect)],
                    "selected": selected,
                    "comparison": comparison,
                }
            )
    if not out:
        raise UsageError(
            f"runs {view_a.id} and {view_b.id} share no identities (in any aspect, for any "
            "model); compare runs of the same identities"
        )
    return out


def compare_result(
    probe: str,
    view_a: RunView,
    view_b: RunView,
    *,
    top: int | None,
    n_boot: int,
    n_perm: int,
    seed: int,
) -> ProbeResult:
    """:func:`compare_runs` as a result: its list in ``data["comparisons"]``, and per model pair
    and aspect a table of the overall and one of the micro differences."""
    comparisons = compare_runs(
        view_a, view_b, probe=probe, top=top, n_perm=n_perm, n_boot=n_boot, seed=seed
    )
    first: STSComparison = comparisons[0]["comparison"]
    result = ProbeResult(
        title=f"STS of run B {view_b.id} minus run A {view_a.id} (PST Table 6)",
        summary=first.method,
        notes=[LABEL_POLICY],
        data={
            "run_a": view_a.id,
            "run_b": view_b.id,
            "top": top,
            "n_perm": n_perm,
            "n_boot": n_boot,
            "seed": seed,
            "comparisons": comparisons,
        },
    )
    for entry in comparisons:
        result.tables += _tables(entry, top)
    # Where both runs have a designed human sample, B − A prediction-powered beside it.
    from diptych.plugins.probes.pst.prediction_powered.compare import predicted_comparisons

    tables, records = predicted_comparisons(view_a, view_b, comparisons)
    if tables:
        result.tables += tables
        result.data["prediction_powered"] = records
    return result


_DIFFERENCE_COLUMNS = ["A", "B", "B − A", "95% CI", "p"]


def _cells(d: STSDifference) -> list[Any]:
    return [d.a.value, d.b.value, d.difference, bounds(d.ci_low, d.ci_high), d.p_value]


def _tables(entry: dict[str, Any], top: int | None) -> list[Table]:
    comparison: STSComparison = entry["comparison"]
    models = (
        entry["model_a"]
        if entry["model_a"] == entry["model_b"]
        else f"{entry['model_a']} → {entry['model_b']}"
    )
    prompts = ", ".join(
        f"{run} {entry[f'intervention_{run.lower()}'] or 'no intervention'}" for run in "AB"
    )
    scope = f", top {top} per stereotype of A" if top is not None else ""
    where = f"{models} · {entry['aspect']}"
    overall = Table(
        f"{where} ({prompts}{scope})",
        ["overall", *_DIFFERENCE_COLUMNS],
        [[setting, *_cells(d)] for setting, d in comparison.overall.items()],
    )
    micro = Table(
        f"{where}: micro STS per identity",
        ["identity", "setting", *_DIFFERENCE_COLUMNS],
        [
            [identity, setting, *_cells(d)]
            for identity in entry["selected"] or comparison.identities
            for setting, d in comparison.micro.get(identity, {}).items()
        ],
    )
    left_out = comparison.images_left_out
    if left_out["a"] or left_out["b"]:
        micro.note = (
            "images left out for holding an identity the other run lacks (or outside the "
            f"selection): A {left_out['a']}, B {left_out['b']}"
        )
    return [overall, micro]
