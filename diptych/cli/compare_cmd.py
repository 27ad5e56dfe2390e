"""``diptych compare RUN_A RUN_B``: how the STS of run B differs from run A's (PST Table 6).

Typical use: A is a plain ``pst`` run, B the same probe with ``-p intervention=...`` (Section 5).
Every figure both runs have — overall per aspect and setting, micro per identity — is printed as
A, B, B − A with a 95% bootstrap interval and a permutation p-value
(:mod:`diptych.core.metrics.compare`). Labels are taken by the same policy as the runs' reports.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from diptych.cli.context import state
from diptych.core.errors import UsageError

if TYPE_CHECKING:
    from rich.table import Table

    from diptych.core.metrics.compare import STSComparison, STSDifference
    from diptych.core.metrics.sts import LabelRow
    from diptych.core.runview import RunView

    Rows = dict[tuple[str, str], list[LabelRow]]


def _rows_by_model_and_aspect(view: RunView) -> tuple[Rows, dict[tuple[str, str], str | None]]:
    from diptych.plugins.probes.pst_analysis import NO_LABELS, collect_labels

    if view.run.probe != "pst":
        raise UsageError(
            f"run {view.id} is a '{view.run.probe}' run; diptych compare takes two pst runs"
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
    top: int | None = None,
    n_perm: int = 10_000,
    n_boot: int = 2000,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Every comparison of B with A, per model pair and aspect, as ``--json`` prints it."""
    from diptych.core.metrics.compare import compare_sts, most_biased_identities
    from diptych.core.metrics.sts import stereotype_test_score

    rows_a, intervention_a = _rows_by_model_and_aspect(view_a)
    rows_b, intervention_b = _rows_by_model_and_aspect(view_b)
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
                comparison = compare_sts(
                    a, b, identities=selected, n_boot=n_boot, n_perm=n_perm, seed=seed
                )
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


def register(app: typer.Typer) -> None:
    @app.command("compare")
    def compare(
        ctx: typer.Context,
        run_a: Annotated[
            str,
            typer.Argument(metavar="RUN_A", help="The baseline run (a unique prefix will do)."),
        ],
        run_b: Annotated[
            str, typer.Argument(metavar="RUN_B", help="The run compared with it, e.g. mitigated.")
        ],
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
        top: Annotated[
            int | None,
            typer.Option(
                "--top",
                min=1,
                metavar="K",
                help="Only the K most biased identities of each stereotyped gender in run A "
                "(by paired micro STS), as Section 5's top 5.",
            ),
        ] = None,
        n_perm: Annotated[
            int, typer.Option("--n-perm", min=1, help="Permutations of the test.")
        ] = 10_000,
        n_boot: Annotated[int, typer.Option("--n-boot", min=1, help="Bootstrap resamples.")] = 2000,
        seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of both resamplings.")] = 0,
    ) -> None:
        """Compare two pst runs' STS: B − A with 95% intervals and p-values (PST Table 6)."""
        from diptych.core.runview import RunView

        with state(ctx).open_store() as store:
            view_a = RunView(store, store.get_run(run_a))
            view_b = RunView(store, store.get_run(run_b))
            results = compare_runs(view_a, view_b, top=top, n_perm=n_perm, n_boot=n_boot, seed=seed)
        if as_json:
            payload = {
                "run_a": view_a.id,
                "run_b": view_b.id,
                "top": top,
                "n_perm": n_perm,
                "n_boot": n_boot,
                "seed": seed,
                "comparisons": [
                    {
                        **{k: v for k, v in r.items() if k != "comparison"},
                        **r["comparison"].to_dict(),
                    }
                    for r in results
                ],
            }
            typer.echo(json.dumps(payload, indent=2))
            return
        _print(view_a.id, view_b.id, results, top)


# --- tables -----------------------------------------------------------------------------------


def _cells(d: STSDifference) -> list[str]:
    return [
        f"{d.a.value:.1f}",
        f"{d.b.value:.1f}",
        f"{d.difference:+.1f}",
        f"[{d.ci_low:+.1f}, {d.ci_high:+.1f}]",
        f"{d.p_value:.4f}",
    ]


def _table(title: str, first: str, *more: str) -> Table:
    from rich import box
    from rich.table import Table

    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    for name in (first, *more):
        table.add_column(name)
    for name in ("A", "B", "B − A", "95% CI", "p"):
        table.add_column(name, justify="right", no_wrap=True)
    return table


def _print(run_a: str, run_b: str, results: list[dict[str, Any]], top: int | None) -> None:
    from rich.console import Console

    console = Console()
    console.print(f"[bold]STS of run B {run_b} minus run A {run_a}[/]")
    for r in results:
        comparison: STSComparison = r["comparison"]
        models = (
            r["model_a"] if r["model_a"] == r["model_b"] else f"{r['model_a']} → {r['model_b']}"
        )
        prompts = ", ".join(
            f"{run} {r[f'intervention_{run.lower()}'] or 'no intervention'}" for run in "AB"
        )
        scope = f", top {top} per stereotype of A" if top is not None else ""
        overall = _table(f"{models} · {r['aspect']} ({prompts}{scope})", "overall")
        for setting, d in comparison.overall.items():
            overall.add_row(setting, *_cells(d))
        console.print(overall)
        micro = _table("micro STS per identity", "identity", "setting")
        order = r["selected"] or comparison.identities
        for identity in order:
            for setting, d in comparison.micro.get(identity, {}).items():
                micro.add_row(identity, setting, *_cells(d))
        console.print(micro)
        left_out = comparison.images_left_out
        if left_out["a"] or left_out["b"]:
            console.print(
                f"images left out for holding an identity the other run lacks (or outside the "
                f"selection): A {left_out['a']}, B {left_out['b']}"
            )
    first: STSComparison = results[0]["comparison"]
    console.print(
        f"95% CI: percentile bootstrap, A's and B's images resampled apart ({first.n_boot} "
        f"resamples); p: two-sided permutation test of images between the runs ({first.n_perm} "
        f"permutations, p = (1 + #as extreme) / (1 + n)); seed {first.seed}."
    )
