"""``diptych compare RUN_A RUN_B``: how run B's figures differ from run A's (PST Table 6).

Typical use: A is a plain ``pst`` run, B the same probe with ``-p intervention=...`` (Section 5).
Every figure both runs have — for pst overall per aspect and setting and micro per identity, for
pairs each level's association score and refusal share and their difference — is printed as A,
B, B − A with a 95% interval and a p-value from one resampling of the figure's units, paired per
scene when both runs asked the same plan (:mod:`diptych.core.metrics.compare`), as the probe of
run A compares two runs (``ws.analysis.compare``). Labels are taken by the same policy as the
runs' reports.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from diptych.cli.context import state
from diptych.core.audit.stopped import stopped_name
from diptych.core.report.formatting import bounds, figure_text, p_text

if TYPE_CHECKING:
    from rich.table import Table

    from diptych.core.metrics.compare import RunDifference, STSComparison
    from diptych.core.probe import ProbeResult


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
            int,
            typer.Option(
                "--n-perm",
                min=1,
                hidden=True,
                help="Unused: the p-value comes from the interval's own resampling.",
            ),
        ] = 10_000,
        n_boot: Annotated[int, typer.Option("--n-boot", min=1, help="Bootstrap resamples.")] = 2000,
        seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the resampling.")] = 0,
    ) -> None:
        """Compare two runs (pst, pairs): B − A with 95% intervals and p-values (PST Table 6)."""
        with state(ctx).open_workspace() as ws:
            run_a_id, run_b_id = ws.runs.get(run_a).id, ws.runs.get(run_b).id
            result = ws.analysis.compare(
                run_a_id, run_b_id, top=top, n_perm=n_perm, n_boot=n_boot, seed=seed
            )
            # B − A's intervals are fixed-design: named where a run's gates stopped it early.
            stops = {run: ws.audits.stopped_look(run) for run in (run_a_id, run_b_id)}
        interval_name = stopped_intervals(stops)
        results: list[dict[str, Any]] = result.data["comparisons"]
        if as_json:
            payload = {
                "run_a": run_a_id,
                "run_b": run_b_id,
                "top": top,
                "n_boot": n_boot,
                "seed": seed,
                **({"interval_name": interval_name} if interval_name else {}),
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
        from diptych.core.metrics.compare import STSComparison

        if all(isinstance(r["comparison"], STSComparison) for r in results):
            _print(run_a_id, run_b_id, results, top)
        else:
            _print_tables(result)
        if interval_name:
            typer.echo(f"95% CIs of B − A: {interval_name}")


def stopped_intervals(stops: dict[str, str]) -> str:
    """The name of B − A's fixed-design intervals where an audit's gates stopped a run of the
    two early ("fixed-design; do not hold after the stop at look 1 of 4 of run X"), each
    such run named; empty where neither was."""
    said = [f"{stopped_name(at, many=True)} of run {run}" for run, at in stops.items() if at]
    return "; ".join(said)


# --- tables -----------------------------------------------------------------------------------


def _cells(d: RunDifference) -> list[str]:
    return [
        figure_text(d.a.value),
        figure_text(d.b.value),
        figure_text(d.difference),
        bounds(d.ci_low, d.ci_high),
        p_text(d.p_value),
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
    from diptych.cli.console import SafeConsole as Console

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
    console.print(first.method)


def _print_tables(result: ProbeResult) -> None:
    """A probe's comparison tables as they are (numbers to two decimals)."""
    from rich import box
    from rich.table import Table

    from diptych.cli.console import SafeConsole as Console

    console = Console()
    console.print(f"[bold]{result.title}[/]")
    for t in result.tables:
        table = Table(title=t.title, title_justify="left", box=box.SIMPLE_HEAD)
        for name in t.columns:
            table.add_column(name)
        for row in t.rows:
            table.add_row(
                *(figure_text(c) if isinstance(c, float) or c is None else str(c) for c in row)
            )
        console.print(table)
        if t.note:
            console.print(t.note)
    if result.summary:
        console.print(result.summary)
