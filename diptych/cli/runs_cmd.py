"""``diptych runs``, ``show``, ``export`` and ``report``: reading what is stored."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.text import Text

from diptych.cli.audit_show import print_audit, recorded_audit
from diptych.cli.bundle_cmd import export_bundle
from diptych.cli.console import SafeConsole as Console
from diptych.cli.context import state
from diptych.cli.decided_resume import lost_line
from diptych.cli.paths import (
    check_output_file,
    files_written,
    output_path,
    prepare_output_dir,
    writing,
)
from diptych.cli.render import print_result
from diptych.cli.runs_table import (
    MEMBER_INDENT,
    SessionRow,
    grouped,
    runs_table,
    session_json,
    sessions_named,
)
from diptych.cli.session_refs import exported_runs, named, run_named
from diptych.cli.session_show import print_session
from diptych.core.audit.run_status import listed_counts, outcome_line
from diptych.core.builds import mixed_builds_note
from diptych.core.errors import RunNotFoundError, UsageError
from diptych.core.metrics.uncertainty.ppi.estimate import rests_on
from diptych.core.plugins import observation_of
from diptych.core.report import parse_formats
from diptych.core.report.formatting import SHARED_REQUESTS, counted

# Kept importable from here for callers that read a run's rows (the rows are the core's).
from diptych.core.workspace import EXPORT_SCHEMA_VERSION, RunDetail, export_rows
from diptych.core.workspace.look_trials import ALL_TRIALS
from diptych.core.workspace.sessions import SessionDetail

#: Whose labels score people (probes that use annotators' labels, e.g. pst).
LabelPolicyOption = Annotated[
    Literal["human", "automatic", "mixed"] | None,
    typer.Option(
        "--label-policy",
        help="human: human majority only; automatic: one automatic annotator's labels only; "
        "mixed: human majority where there is one, else an automatic label (the default).",
    ),
]

#: Which PAIRS calibration may correct an automatic annotator's scores.
CalibrationSubsetOption = Annotated[
    Literal["occupations", "status", "potential_crime"] | None,
    typer.Option(
        "--calibration-subset",
        help="Correct with an annotator's calibration made on this PAIRS subset alone "
        "(default: only a calibration over all of PAIRS is used).",
    ),
]

__all__ = [
    "EXPORT_SCHEMA_VERSION",
    "MEMBER_INDENT",
    "SessionRow",
    "export_rows",
    "grouped",
    "register",
    "runs_table",
]

RunIdArgument = Annotated[
    str, typer.Argument(metavar="RUN_ID", help="Run id (a unique prefix will do).")
]
#: An id as ``diptych runs`` prints it: a run's, or an agent session's (its label too).
RunOrSessionArgument = Annotated[
    str,
    typer.Argument(
        metavar="RUN_ID|SESSION",
        help="Run id or agent session id, as diptych runs prints it (a unique prefix will do).",
    ),
]


def report_dir(run_id: str) -> Path:
    """Where ``diptych report`` writes unless ``--out`` says: named by the (first) run, in the
    directory it is run from."""
    return Path(f"diptych-report-{run_id}")


def register(app: typer.Typer) -> None:
    @app.command("runs")
    def runs(
        ctx: typer.Context,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
        show_all: Annotated[
            bool,
            typer.Option(
                "--all", "-a", help="List the runs agent sessions made under each session's row."
            ),
        ] = False,
    ) -> None:
        """List the runs in the workspace; the runs an agent session made stand behind one row
        of the session (--all lists them)."""
        with state(ctx).open_workspace() as ws:
            summaries = ws.runs.list()
            searches = ws.runs.searches(summaries)
            where = str(ws.path)
        if not summaries and not as_json:
            # A header with no rows reads as broken; say what to do first.
            typer.echo(
                f"no runs in {where} yet; start one with diptych run PROBE -m MODEL "
                "(diptych plugins lists them)"
            )
            return
        if as_json:
            listing = [
                {
                    "kind": "run",
                    "id": r.run.id,
                    "probe": r.run.probe,
                    "status": r.run.status,
                    "status_text": r.said,
                    "trials": r.run.n_trials,
                    "models": [m["model_id"] for m in r.run.models],
                    "counts": listed_counts(r.run.status, r.counts),
                    "created_at": r.run.created_at,
                    "session": r.session,
                }
                for r in summaries
            ]
            # After the runs, each agent search counted as its row counts it (runs it
            # reused included), an entry marked by its kind.
            rows = [e.search for e in grouped(summaries, searches) if isinstance(e, SessionRow)]
            typer.echo(json.dumps(listing + [session_json(s) for s in rows], indent=2))
            return
        console = Console()
        table = runs_table(summaries, console.width, show_session_runs=show_all, searches=searches)
        console.print(table)
        for line in sessions_named(summaries, console.width):
            console.print(line, markup=False, overflow="fold")
        hidden = [r for r in summaries if r.session is not None]
        if hidden and not show_all:
            sessions = len({r.session for r in hidden})
            console.print(
                f"{len(hidden)} run{'' if len(hidden) == 1 else 's'} of {sessions} agent "
                f"session{'' if sessions == 1 else 's'} behind the session rows; "
                "'diptych runs --all' lists them",
                markup=False,
            )

    @app.command("show")
    def show(
        ctx: typer.Context,
        run_id: RunOrSessionArgument,
        label_policy: LabelPolicyOption = None,
        calibration_subset: CalibrationSubsetOption = None,
    ) -> None:
        """Show a run: parameters, models, outcomes, labels and its headline figures; or an
        agent session, by its id or the label 'diptych runs' gives it: its runs and findings."""
        console = Console()
        with state(ctx).open_workspace() as ws:
            try:
                found = named(ws, run_id)
            except RunNotFoundError:
                audit = recorded_audit(ws, run_id)
                if audit is None:
                    raise
                print_audit(ws, audit)  # an audit's id, as 'audit list' prints it
                return
            if isinstance(found, SessionDetail):  # an agent session's id or label, as listed
                print_session(console, found)
                return
            detail = ws.runs.show(found.id)
            run, counts = detail.run, detail.counts
            # One text, wrapped between words to the terminal: a status is a sentence.
            status = detail.status_text or run.status
            head = f"  probe {run.probe} v{run.probe_version}  status {status}"
            console.print(Text.assemble((run.id, "bold"), head))
            holder = ws.runs.lease(run.id)
            if holder is not None:
                console.print(f"being run by {holder.describe()}")
            elif run.status == "stale":
                console.print(
                    f"its process stopped before the end: 'diptych resume {run.id}' takes it over"
                )
            console.print("parameters: " + json.dumps(run.params, sort_keys=True))
            for m in run.models:
                console.print(
                    f"model {m['model_id']}: {m['name']} version {m['version']} "
                    f"params {json.dumps(m['params'], sort_keys=True)}"
                )
            for model_id, builds in detail.builds.items():
                for i, build in enumerate(builds):
                    said = f"build of {model_id}: " if i == 0 else "  then: "
                    console.print(said + build, markup=False)
            note = mixed_builds_note(detail.builds)
            if note is not None:
                console.print(note, style="yellow", markup=False)
            console.print("trials: " + outcome_line(run.status, counts, sep=", "))
            trials = sum(counts.values())
            if 0 < detail.requests < trials:
                # What the run's progress and an audit's looks count, told apart from trials.
                console.print(
                    f"requests: {detail.requests:,} for its "
                    f"{counted(trials, 'trial')} ({SHARED_REQUESTS})",
                    markup=False,
                )
            if run.status == "decided" and counts["pending"]:
                console.print(
                    f"the rest was not needed for its gates; "
                    f"'diptych resume {run.id} --yes' buys it",
                    markup=False,
                )
            lost = len(ws.runs.lost_answers(run.id))
            if lost:
                console.print(lost_line(run.id, lost), style="yellow", markup=False)
            # As every listing shows it: a gated figure with the interval its gate used.
            result = (
                ws.audits.read(
                    run.id, label_policy=label_policy, calibration_subset=calibration_subset
                )
                if counts["done"]
                else None
            )
            whole = result is None or ALL_TRIALS in result.notes
            console.print(labels_line(detail, whole=whole), markup=False)
            if detail.tone_labels:
                most = sorted(detail.tone_labels.items(), key=lambda kv: (-kv[1], kv[0]))
                tones = ", ".join(f"{k} {v:,}" for k, v in most)
                console.print(f"tone labels: {tones}", markup=False)
            if result is not None:
                print_result(console, result, tables=False, observation=observation_of(run.probe))
                # What the prediction-powered figures rest on (estimator, λ, design).
                for i, line in enumerate(rests_on(result.data)):
                    if i == 0:
                        console.print("[bold]What the prediction-powered figures rest on[/]")
                    console.print(line, markup=False)

    @app.command("export")
    def export(
        ctx: typer.Context,
        run_id: Annotated[
            str,
            typer.Argument(
                metavar="RUN_ID|SESSION|AUDIT",
                help="Run id or agent session id (its runs' trials), a unique prefix will do; "
                "with --bundle, a recorded audit too.",
            ),
        ],
        fmt: Annotated[Literal["csv", "jsonl"], typer.Option("--format")] = "jsonl",
        out: Annotated[
            Path | None,
            typer.Option(
                "--out",
                "-o",
                metavar="FILE",
                parser=output_path(
                    "--out", "the file to write (or leave --out out to write to stdout)"
                ),
                help="File (default stdout).",
            ),
        ] = None,
        bundle: Annotated[
            Path | None,
            typer.Option(
                "--bundle",
                metavar="FILE",
                parser=output_path("--bundle", "the bundle file to write"),
                help="Write an evidence bundle (.zip, .tar or .tar.gz) instead: every record "
                "as Parquet, images and long texts, the report directory, a SHA-256 manifest.",
            ),
        ] = None,
        report_dir: Annotated[
            Path | None,
            typer.Option(
                "--report",
                metavar="DIR",
                parser=output_path("--report", "the report directory the bundle carries"),
                help="With --bundle: the report directory to carry (an audit's recorded "
                "report by default).",
            ),
        ] = None,
    ) -> None:
        """Export every trial with its result and labels as CSV or JSON lines, or a run's or
        an audit's evidence as a bundle another workspace imports (diptych import)."""
        if bundle is not None:
            export_bundle(ctx, run_id, bundle, report_dir)
            return
        if report_dir is not None:
            raise UsageError("--report goes with --bundle; a report is written by 'diptych report'")
        if out is not None:
            check_output_file(out, "--out")
        with state(ctx).open_workspace() as ws:
            ids, whose = exported_runs(ws, run_id)
            if out is None:
                ws.runs.export(ids, fmt, sys.stdout)
                return
            with writing(out):
                rows = ws.runs.export(ids, fmt, out)
        # Written to a file, stdout is free: one line says what went where.
        typer.echo(f"wrote {out}: {counted(rows, 'row')}, one per trial of {whose}")

    @app.command("report")
    def report(
        ctx: typer.Context,
        run_ids: Annotated[
            list[str],
            typer.Argument(
                metavar="RUN_ID...",
                help="Runs of the audit (unique prefixes will do); several make one report.",
            ),
        ],
        out: Annotated[
            Path | None,
            typer.Option(
                "--out",
                "-o",
                metavar="DIR",
                parser=output_path("--out", "the directory to write the report in"),
                help="Directory.",
            ),
        ] = None,
        label_policy: LabelPolicyOption = None,
        formats: Annotated[
            str,
            typer.Option(
                "--format",
                "-f",
                help="Formats, comma-separated: html, md, json, pdf (pdf needs Chromium).",
            ),
        ] = "html,md,json",
        draft_with: Annotated[
            str | None,
            typer.Option(
                "--draft-with",
                metavar="MODEL",
                help="A chat model that drafts the summary and discussion; sentences the "
                "results do not bear out are dropped and listed.",
            ),
        ] = None,
        sign: Annotated[
            Path | None,
            typer.Option(
                "--sign",
                metavar="KEY",
                help="Sign the report's manifest (every file and stored record it rests on, "
                "hashed) with this SSH private key (ssh-keygen -Y sign -n diptych-report).",
            ),
        ] = None,
        signer: Annotated[
            str | None,
            typer.Option(
                "--signer",
                metavar="NAME",
                help="Who signs, as the verifier's allowed-signers file names them "
                "(default: the key's comment).",
            ),
        ] = None,
        frameworks: Annotated[
            list[Path] | None,
            typer.Option(
                "--frameworks",
                metavar="FILE",
                help="Your organisation's framework file (the shape of frameworks.yaml), "
                "mapped in the report's appendix after the shipped ones; repeatable.",
            ),
        ] = None,
        audit: Annotated[
            str | None,
            typer.Option(
                "--audit",
                metavar="ID",
                help="The recorded audit whose gates the report keeps (its id, as 'diptych "
                "audit list' prints it), or 'none' for the runs alone; default: the newest "
                "audit with gates recorded for these runs.",
            ),
        ] = None,
    ) -> None:
        """Write the audit report of one or more runs (HTML, Markdown, JSON, PDF) into a
        directory; with --sign, a signed manifest beside it that `diptych verify` checks."""
        if signer is not None and sign is None:
            raise UsageError("--signer names who signs with --sign KEY; give the key too")
        if sign is not None and "json" not in parse_formats(formats):
            # verify re-derives the figures report.json states: a signed report carries it.
            raise UsageError("--sign needs the json format: add json to --format")
        with state(ctx).open_workspace() as ws:
            if sign is not None:
                # A key that cannot sign is refused before minutes of analysis are spent.
                ws.evidence.signing_key(sign)
            runs = [run_named(ws, r, "report").id for r in run_ids]
            target = out if out is not None else report_dir(runs[0])
            prepare_output_dir(target, "--out")
            with writing(target):
                # The runs of a recorded audit keep its gates, as the audit's own report does.
                written = ws.audits.write_report(
                    runs,
                    target,
                    label_policy=label_policy,
                    formats=formats,
                    draft_with=draft_with,
                    frameworks=list(frameworks or []),
                    audit=audit,
                )
                if sign is not None:
                    written["manifest"] = ws.evidence.sign(
                        target,
                        runs,
                        sign,
                        signer=signer,
                        label_policy=label_policy,
                        formats=[f for f in ("html", "md", "json", "pdf") if f in written],
                        drafted=draft_with is not None,
                    )
                    signature = written["manifest"].with_name(written["manifest"].name + ".sig")
                    written["signature"] = signature
        typer.echo(files_written(written))


def labels_line(detail: RunDetail, *, whole: bool) -> str:
    """``show``'s labels per annotator; of a run bought on since its gates stopped it early, on
    all its trials and then on its look's, which its figures read, as its report counts them
    (not ``whole``: where the look's trials cannot be rebuilt, its breakdowns and its labels'
    counts read all its trials, see :data:`~diptych.core.workspace.look_trials.ALL_TRIALS`)."""

    def per(labels: dict[str, int]) -> str:
        return ", ".join(f"{k} {v:,}" for k, v in labels.items()) or "none"

    if not detail.look or whole:
        return f"labels: {per(detail.labels)}"
    return (
        f"labels: {per(detail.labels)} on all its trials; at {detail.look} "
        f"(the trials its figures read): {per(detail.labels_at_look)}"
    )
