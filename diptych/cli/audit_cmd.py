"""``diptych audit``: an audit as a file — init, check, run, gate, diff, list, schema.

``check`` validates the file (one line per error, naming the field and the line; exit 2) and
prints the plan without running; ``run`` runs every part through the Workspace under one
budget, resumable as a whole, and writes the audit's report; ``diff`` sets two audits' headline
figures side by side with the interval of each difference.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from diptych.agent.audit_search import plan_placebos, run_search
from diptych.audit import plan_audit, run_audit
from diptych.audit.precision import gate_precision
from diptych.audit.sequential import part_status_words
from diptych.audit.status_words import status_words
from diptych.cli.audit_list_cmd import list_audits
from diptych.cli.audit_stop import going_on, interrupted_line, shaping_options
from diptych.cli.console import SafeConsole as Console
from diptych.cli.context import state
from diptych.cli.decided_resume import ask_rest_of_audit
from diptych.cli.gate_verdicts import decide_gates
from diptych.cli.options import (
    QuietOption,
    SetOption,
    batch_count,
    figure_value,
    max_cost_option,
)
from diptych.cli.paths import (
    check_input_file,
    check_output_file,
    files_written,
    output_path,
    prepare_output_dir,
    writing,
)
from diptych.cli.plan_output import (
    money,
    print_expected_costs,
    print_look,
    print_plan,
    print_stop,
    says_counts,
)
from diptych.cli.precision import half_width
from diptych.cli.progress import RichReporter
from diptych.core.audit import METHODS, audit_json_schema, starter_audit
from diptych.core.audit.overrides import parse_sets
from diptych.core.audit.schema import MAX_AUDIT_BYTES
from diptych.core.audit.sequential import DEFAULT_BATCHES
from diptych.core.cost import requests_and_cost
from diptych.core.errors import DiptychError, InputFileError, UsageError
from diptych.core.report.formatting import bounds, figure_text
from diptych.core.safe_text import escape_controls
from diptych.core.workspace import RunLeasedError, RunOptions

audit_app = typer.Typer(
    help="Audits as files: a whole battery (models, probes, labels, mitigations, agent "
    "searches, budget, report) in one audit.yaml.",
    no_args_is_help=True,
)

FileArg = Annotated[Path, typer.Argument(metavar="FILE", help="The audit file (audit.yaml).")]


MaxCostOption = Annotated[
    float | None,
    max_cost_option(
        "Stop before the audit's estimated spend exceeds this (with the file's "
        "budget.max_cost, the smaller)."
    ),
]


def register(app: typer.Typer) -> None:
    app.add_typer(audit_app, name="audit")


@audit_app.command("init")
def init(
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE",
            parser=output_path("FILE", "the path of the audit file to write"),
            help="Where to write it.",
        ),
    ] = Path("audit.yaml"),
    name: Annotated[str, typer.Option("--name", help="The audit's name.")] = "my-audit",
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Write a commented starting audit file for the installed plugins."""
    if file.exists() and not force:
        raise UsageError(f"{file} exists; give another path or --force")
    check_output_file(file, "FILE")
    with writing(file):
        file.write_text(starter_audit(name), encoding="utf-8")
    typer.echo(f"wrote {file}; check it with 'diptych audit check {file}'")


@audit_app.command("check")
def check(
    ctx: typer.Context,
    file: FileArg,
    set_: SetOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan as JSON.")] = False,
    target_width: Annotated[
        float | None,
        typer.Option(
            "--target-width",
            callback=half_width,
            metavar="W",
            help="Name the smallest design whose intervals are expected to be at most ±W.",
        ),
    ] = None,
) -> None:
    """Validate an audit file and print its plan (trials, stored, cost, and the expected
    half-width of each part's headline figures) without running; --set replaces fields as
    'audit run --set' does."""
    check_input_file(file, "audit file", limit=MAX_AUDIT_BYTES)
    overrides = parse_sets(set_ or [])
    with state(ctx).workspace_to_plan() as ws:
        planned = plan_audit(
            ws, file, precision=True, target_width=target_width, overrides=overrides
        )
        plan = plan_placebos(ws, planned)
        problems = ws.audits.gate_problems(file, plan.overrides)
    if problems:
        raise InputFileError("\n".join(problems))
    gated = gate_precision(plan)
    if as_json:
        as_dict = {**plan.to_dict(), "gates": [g.to_dict() for g in gated]}
        typer.echo(json.dumps(as_dict, indent=2))
        return
    print_plan(plan)
    if gated:
        # Each gate beside its figure's expected half-width: how far from its limit the
        # figure must lie for the gate to decide anything.
        typer.echo("gates:")
        for g in gated:
            typer.echo(f"  {g.line}")


@audit_app.command("run")
def run(
    ctx: typer.Context,
    file: FileArg,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="DIR",
            parser=output_path("--out", "the directory to write the report in"),
            help="Report directory (default: audit-<name>).",
        ),
    ] = None,
    set_: SetOption = None,
    quiet: QuietOption = False,
    until_decided: Annotated[
        bool,
        typer.Option(
            "--until-decided",
            help="Buy the parts the gates read in batches, in a random order, deciding the "
            "gates after each on anytime-valid intervals; stop once every gate is decided "
            "(parts no gate reads are not run).",
        ),
    ] = False,
    batches: Annotated[
        int | None,
        typer.Option(
            "--batches",
            min=2,
            callback=batch_count,
            metavar="N",
            help="With --until-decided: buy each gated part's design in N equal batches "
            f"(default {DEFAULT_BATCHES}).",
        ),
    ] = None,
    max_cost: MaxCostOption = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Print the plan and its cost and run nothing; with --until-decided, also the "
            "expected cost to a decision.",
        ),
    ] = False,
    assume: Annotated[
        float | None,
        typer.Option(
            "--assume",
            metavar="VALUE",
            callback=figure_value,
            help="With --dry-run --until-decided: the value each gated figure is assumed to "
            "take (default: the plan's assumption).",
        ),
    ] = None,
    yes: Annotated[
        bool,
        typer.Option(
            "--yes",
            "-y",
            help="Buy the rest of a part its gates decided without asking (the rest is "
            "bought on purpose only).",
        ),
    ] = False,
) -> None:
    """Run every part of the audit (rerun to continue after a stop) and write its report."""
    check_input_file(file, "audit file", limit=MAX_AUDIT_BYTES)
    if batches is not None and not until_decided:
        raise UsageError("--batches sets the batches of --until-decided: give both, or neither")
    batches = batches or DEFAULT_BATCHES
    if dry_run:
        _dry_run(ctx, file, until_decided=until_decided, batches=batches, assume=assume,
                 overrides=parse_sets(set_ or []))  # fmt: skip
        return
    if assume is not None:
        raise UsageError("--assume states an effect to plan for: give it with --dry-run")
    if out is not None:
        # Checked before anything is bought, as `diptych run --report` checks its folder.
        prepare_output_dir(out, "--out")
    if not until_decided:
        # Run whole, a part its gates decided buys the rest of its design: asked first, as
        # `diptych resume` asks (--until-decided decides it again and buys nothing more).
        shaped = shaping_options(out, max_cost)
        ask_rest_of_audit(ctx, file, parse_sets(set_ or []), options=shaped, yes=yes)
    console = Console(stderr=True)
    reporter = RichReporter(console, quiet=quiet)

    def on_part(name: str, status: str, detail: dict[str, Any]) -> None:
        if status == "running":
            started.append(name)
            left = detail.get("remaining")
            budget = "" if left is None else f" (budget left {money(left)})"
            batch = f", batch {detail['batch']} of {detail['batches']}" if "batch" in detail else ""
            if detail.get("rest") is not None:
                # Its looks' share of the level is spent: the rest of its design at once.
                batch = ", " + part_status_words(status, detail).removeprefix("running ")
            console.print(f"[bold]part {name}[/]{batch}{budget}")
        elif status == "skipped":
            console.print(f"part {name}: finished before{_what_it_has(detail)}, reused")
        elif until_decided:
            # Bought batch by batch, a part is reported after each batch ("partial") and again
            # as each look settles it: print only its final status, once the audit stops.
            final[name] = part_status_words(status, detail)
        else:
            console.print(f"part {name}: {part_status_words(status, detail)}", markup=False)

    final: dict[str, str] = {}
    started: list[str] = []

    with state(ctx).open_workspace(create=True) as ws:
        try:
            outcome = asyncio.run(
                run_audit(
                    ws,
                    file,
                    options=RunOptions(max_cost=max_cost),
                    reporter=reporter,
                    on_part=on_part,
                    searches=run_search,
                    out_dir=out,
                    overrides=parse_sets(set_ or []),
                    until_decided=until_decided,
                    batches=batches,
                    on_look=print_look,
                )
            )
        except RunLeasedError as busy:
            # The run's own advice (--wait, --watch) names options audit run does not take.
            reporter.stop()
            raise _AuditBusyError(
                f"run {busy.run_id} of this audit is being run by {busy.holder.describe()}: "
                "watch it with 'diptych audit list', and run the same command again once that "
                "process stops"
            ) from None
        except KeyboardInterrupt:
            reporter.stop()
            shaped = shaping_options(out, max_cost, until_decided=until_decided, batches=batches)
            command = going_on(ws, file, set_ or [], shaped)
            last = started[-1] if started else None
            typer.echo(interrupted_line(ws, last, command))
            raise typer.Exit(130) from None
        for name, words in final.items():
            console.print(f"part {name}: {words}", markup=False)
        # The audit's status in the words `diptych audit list` says it from now on: a part
        # left out is "not run", a decided audit names its look and what stopping saved.
        said = status_words(ws, outcome.audit_id) or outcome.status_text
        searched = [
            (p.name, ws.findings.get(str(p.detail.get("session", ""))))
            for p in outcome.parts
            if p.kind == "search"
        ]
    for name, saved in searched:
        if saved is not None:
            print_agent_findings(name, saved)
    counts = requests_and_cost(
        outcome.spent, outcome.asked, reused=outcome.reused, agent_calls=outcome.agent_calls,
        agent_now=outcome.agent_now,
    )  # fmt: skip
    typer.echo(
        f"audit {outcome.audit_id} {said}{'; ' if said != outcome.status else ': '}{counts}"
        + (f"; report {outcome.report}" if outcome.report else "")
    )
    if outcome.files:
        typer.echo(files_written(outcome.files))
    if outcome.sequential is not None:
        # A decided audit's words above named what it bought and saved: not said again.
        print_stop(outcome.sequential, outcome.skipped, outcome.asked, outcome.kept,
                   says_counts(said))  # fmt: skip
    if outcome.status not in ("complete", "incomplete", "decided") and not (
        outcome.sequential is not None and outcome.report is not None
    ):
        typer.echo("run the same command again to continue", err=True)
        raise typer.Exit(1)
    if not _has_gates(file):
        # Failed trials leave the design short, as `diptych run` says of a run: exit 1.
        if outcome.status == "incomplete":
            raise typer.Exit(1)
        return
    with state(ctx).open_workspace() as ws:
        code = decide_gates(ws, outcome.audit_id, junit=None, as_json=False,
                            overrides=parse_sets(set_ or []))  # fmt: skip
    raise typer.Exit(code)


class _AuditBusyError(DiptychError):
    """Another live process runs a part of the audit (exit 2, as a busy run's)."""

    exit_code = 2


def _what_it_has(detail: dict[str, Any]) -> str:
    """What a part finished before is named by, in brackets: its run, or an agent search's
    session (a search records no run); nothing where it has neither."""
    for key in ("run", "session"):
        if detail.get(key):
            return f" ({key} {detail[key]})"
    return ""


def _dry_run(ctx: typer.Context, file: Path, *, until_decided: bool, batches: int,
             assume: float | None, overrides: dict[str, Any]) -> None:  # fmt: skip
    """The plan, and with ``until_decided`` each gate's expected cost to a decision; ``--set``
    applies to the plan as it would to the run."""
    with state(ctx).workspace_to_plan() as ws:
        print_expected_costs(ws, file, until_decided=until_decided, batches=batches,
                             assume=assume, overrides=overrides)  # fmt: skip


def print_agent_findings(part: str, saved: dict[str, Any]) -> None:
    """An audit search's findings, as its report lists them: each with its held-out interval,
    q-value, placebo band and units."""
    from diptych.core.report.findings import AgentSession, is_finding

    session = AgentSession.from_dict(saved)
    said = session.decision or f"{len(session.findings)} ranked"
    _echo(f"agent search {part} (session {session.session}): {said}")
    for problem in session.agent_problems:
        _echo(f"  the agent model could not fill {problem}")
    found = [f for f in session.findings if is_finding(f.status)]
    for f in found:
        _echo(
            f"  {f.what}  {f.status}  held-out {f.heldout_text}  "
            f"q {f.q_text}  placebo {f.placebo_band}  units {f.units}"
        )
    if not found:
        _echo("  (no finding)")


def _echo(text: str) -> None:
    # Pairs and interventions come from a model's answers: shown, never replayed.
    typer.echo(escape_controls(text))


def _has_gates(file: Path) -> bool:
    from diptych.core.audit import load_audit

    audit, _ = load_audit(file)
    return bool(audit.gates and audit.gates.checks)


@audit_app.command("gate")
def gate(
    ctx: typer.Context,
    ref: Annotated[
        str,
        typer.Argument(
            metavar="FILE|AUDIT",
            help="An audit file (its newest run here is gated) or a recorded audit's id.",
        ),
    ],
    junit: Annotated[
        Path | None,
        typer.Option(
            "--junit",
            metavar="FILE",
            parser=output_path("--junit", "the file to write the JUnit XML in"),
            help="Also write JUnit XML here (a case a gate).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdicts as JSON.")] = False,
) -> None:
    """Decide an audit's release gates: exit 0 all pass, 1 one fails, 3 one is inconclusive
    under on_inconclusive: fail."""
    if junit is not None and not junit.parent.is_dir():
        raise UsageError(f"--junit {junit}: the folder {junit.parent} does not exist")
    with state(ctx).open_workspace() as ws:
        code = decide_gates(ws, ref, junit=junit, as_json=as_json)
    raise typer.Exit(code)


audit_app.command("list")(list_audits)


@audit_app.command("diff")
def diff(
    ctx: typer.Context,
    a: Annotated[str, typer.Argument(metavar="A", help="A recorded audit or a report JSON.")],
    b: Annotated[str, typer.Argument(metavar="B", help="The audit set against A.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Every headline figure of A and B side by side, with B − A and its 95% interval."""
    with state(ctx).open_workspace() as ws:
        result = ws.audits.diff(a, b)
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2))
        return
    typer.echo(f"A: {result.a}\nB: {result.b}")
    typer.echo(f"{'part':14} {'figure':44} {'A':>9} {'B':>9} {'B − A':>9} {'95% interval':>20}")

    num = figure_text
    for r in result.rows:
        ci = bounds(r.ci_low, r.ci_high)
        typer.echo(
            f"{r.part[:14]:14} {r.figure[:44]:44} {num(r.a):>9} {num(r.b):>9} "
            f"{num(r.difference):>9} {ci:>20} {r.method}"
            + (f" ({r.interval_name})" if r.interval_name else "")
        )
    for method in sorted({r.method for r in result.rows}):
        typer.echo(f"{method}: {METHODS[method]}")
    if result.only_a or result.only_b:
        typer.echo(f"figures in one audit only: A {len(result.only_a)}, B {len(result.only_b)}")


@audit_app.command("schema")
def schema() -> None:
    """Print the audit file's JSON Schema (for editors: yaml-language-server, VS Code)."""
    typer.echo(json.dumps(audit_json_schema(), indent=2))
