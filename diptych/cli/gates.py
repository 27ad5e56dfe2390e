"""``diptych run … --gate "FIGURE RULE LIMIT"``: release gates on the command line.

A run with gates is an audit of one part, built from the command line: the same run (same
fingerprint, so it shares every stored result with ``diptych run`` without gates), its gates
decided as ``diptych audit gate`` decides an audit file's, and recorded in the workspace as an
audit named ``run-<probe>``, so that ``--until-decided`` can stop once they are decided and a
rerun continues where it stopped. Its report JSON is kept in the workspace folder (or under
``--report``), where ``diptych audit gate run-<probe>`` reads it again.
"""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import typer

from diptych.core.audit.schema import (
    AuditFile,
    Gate,
    Gates,
    ModelEntry,
    ProbePart,
    ReportFormat,
    ReportSpec,
)
from diptych.core.errors import UsageError
from diptych.core.workspace import RunOptions, Workspace

RULES = ("below", "not_above", "above", "not_below", "within")
_HOW = (
    "--gate takes 'FIGURE RULE LIMIT', e.g. --gate 'STS paired (expected from P(he), P(she)) "
    "below 25' (rules: below, not_above, above, not_below, or within LOW HIGH)"
)


def _number(text: str, given: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"{_HOW}; '{text}' in '{given}' is not a number") from None
    if not math.isfinite(value):
        raise UsageError(f"{_HOW}; '{text}' in '{given}' is not a finite number")
    return value


def parse_gate(text: str, part: str) -> Gate:
    """One ``--gate``: the figure's name, then the rule and its limit (two for ``within``)."""
    words = text.split()
    if len(words) >= 4 and words[-3] == "within":
        low, high = _number(words[-2], text), _number(words[-1], text)
        figure = text[: text.rindex(words[-3])].strip()
        fields: dict[str, Any] = {"within": [low, high]}
    elif len(words) >= 3 and words[-2] in RULES and words[-2] != "within":
        figure = text[: text.rindex(words[-2])].strip()
        fields = {words[-2]: _number(words[-1], text)}
    else:
        raise UsageError(f"{_HOW}; got '{text}'")
    try:
        return Gate(part=part, figure=figure, **fields)
    except ValueError as exc:
        raise UsageError(f"--gate '{text}': {exc}") from None


def gated_audit(probe: Any, models: list[Any], gates: list[str]) -> AuditFile:
    """The one-part audit a gated ``diptych run`` is: ``probe`` and ``models`` as built from
    the command line, the gates parsed from ``gates``. Where its report goes (``--report``)
    is no part of it: the same run with its report elsewhere, as the report's own command
    writes it, is the same audit and continues its record."""
    entries = {}
    names = []
    for i, model in enumerate(models):
        name = f"{model.name}-{i + 1}" if len(models) > 1 else model.name
        params = model.params.model_dump(mode="json", exclude_defaults=True)
        entries[name] = ModelEntry(plugin=model.name, params=params)
        names.append(name)
    params = probe.params.model_dump(mode="json", exclude_defaults=True)
    # The report a person opens (html), beside the file machines read (json).
    formats: list[ReportFormat] = ["json", "md", "html"]
    return AuditFile(
        name=f"run-{probe.name}",
        models=entries,
        probes=[ProbePart(probe=probe.name, models=names, params=params)],
        report=ReportSpec(formats=formats),
        gates=Gates(checks=[parse_gate(g, probe.name) for g in gates]),
    )


def gate_report_dir(workspace: Path, audit_name: str) -> Path:
    """Where a gated ``diptych run`` without ``--report`` writes its report: in the workspace,
    by the audit's name, so a rerun replaces it and the directory run from stays clean."""
    return workspace / "gate-reports" / audit_name


def report_line(files: dict[str, Path]) -> str:
    """The report's page to open and its machine file, as absolute paths: they open from any
    directory, whatever ``--store`` named."""
    said = [
        f"{'report' if kind == 'html' else 'for machines'} {files[kind].absolute()}"
        for kind in ("html", "json")
        if kind in files
    ]
    return "; ".join(said) if said else f"report {next(iter(files.values())).absolute()}"


def run_gated(
    ws: Workspace,
    audit: AuditFile,
    options: RunOptions,
    *,
    reporter: Any,
    until_decided: bool,
    batches: int,
    report: Path | None = None,
) -> int:
    """Run the gated audit (until its gates are decided, with ``until_decided``) with its
    report in ``report`` (or the workspace's folder), print why it stopped and its gates;
    the exit code ``audit gate`` would give."""
    from diptych.audit import run_audit
    from diptych.cli.gate_verdicts import decide_gates
    from diptych.cli.plan_output import print_look, print_stop, says_counts

    out = report if report is not None else gate_report_dir(ws.path, audit.name)
    outcome = asyncio.run(
        run_audit(ws, audit, options=options, reporter=reporter, out_dir=out,
                  until_decided=until_decided, batches=batches, on_look=print_look)
    )  # fmt: skip
    # Each run in the words every listing uses ("decided at look 1 of 10: ...").
    run_ids = dict.fromkeys(p.run_id for p in outcome.parts if p.run_id)
    said = [ws.runs.status_text(run_id) for run_id in run_ids if run_id]
    for run_id, words in zip(run_ids, said, strict=True):
        typer.echo(f"run {run_id} {words} (audit {outcome.audit_id})")
    typer.echo(report_line(outcome.files) if outcome.files else f"report {outcome.report}")
    if outcome.sequential is not None:
        # A decided run's words above named what it bought and saved: not said again.
        print_stop(outcome.sequential, outcome.skipped, outcome.asked, outcome.kept,
                   says_counts(*said), asked_said=False)  # fmt: skip
    if outcome.report is None:
        typer.echo("run the same command again to continue", err=True)
        return 1
    return decide_gates(ws, outcome.audit_id, junit=None, as_json=False)
