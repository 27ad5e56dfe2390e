"""The verdicts of an audit's release gates as ``diptych audit gate``, ``audit run`` and
``run --gate`` print them: a line a gate under the family's sentence, the tally and the exit
code; JUnit XML and a GitHub step summary beside them where asked."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import typer

from diptych.audit.status_words import interrupted_line
from diptych.core.digits import level_text


def decide_gates(
    ws: Any, ref: str, *, junit: Path | None, as_json: bool, overrides: dict[str, Any] | None = None
) -> int:
    """Print the gates' verdicts (and write JUnit XML, a GitHub step summary); the exit code."""
    from diptych.cli.verdict_formats import gate_line, junit_xml, markdown_table, verdict_width
    from diptych.core.audit.gates import exit_code

    report = ws.audits.gates(ref, overrides)
    looks = report.sequential
    look = looks.at if looks is not None else ""
    # Its last run stopped part way: said (here, in the JUnit XML and the job summary), so
    # that a reader of the verdicts knows the audit is unfinished. The exit code stays the
    # verdicts' own: a gate decided on a look holds at that look whatever is bought after it
    # (docs/gates.md).
    stopped = interrupted_line(ws, report.audit_id, look)
    if junit is not None:
        junit.write_text(junit_xml(report, stopped), encoding="utf-8")
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as fh:
            fh.write(markdown_table(report, stopped))
    code = exit_code(report.results)
    if report.chosen:  # a file with several records here: which one is gated
        typer.echo(report.chosen, err=as_json)
    if as_json:
        said = {**report.to_dict(), "interrupted": stopped or None, "exit_code": code}
        typer.echo(json.dumps(said, indent=2))
        return code
    gates = len(report.results)
    if report.family != "holm":
        family = f"each gate at {level_text(report.confidence)}, not adjusted"
    elif gates == 1:
        family = f"one gate, at {level_text(report.confidence)}"
    else:
        family = f"Holm across {gates} gates at {level_text(report.confidence)}"
    typer.echo(f"gates of audit {report.audit_id} ({report.audit_name}); {family}")
    if stopped:
        typer.echo(stopped)
    if report.sequential is not None:
        typer.echo(report.sequential.sentence())
    width = verdict_width(report.results)
    for r in report.results:
        typer.echo(gate_line(r, width, look))
        if r.method != "t":
            typer.echo(f"{'':<{width + 1}}interval: {r.method}")
    verdicts = [r.verdict for r in report.results]
    typer.echo(
        f"{verdicts.count('pass')} passed, {verdicts.count('fail')} failed, "
        f"{verdicts.count('inconclusive')} inconclusive → exit {code}"
    )
    return code
