"""Writing an audit report to a directory in the formats asked for."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from diptych.core.errors import DiptychError, UsageError
from diptych.core.labels import LabelPolicy
from diptych.core.probe import ProbeResult
from diptych.core.report.audit import Audit, AuditSource, collect_audit
from diptych.core.report.charts.svg import draw
from diptych.core.report.frameworks import frameworks as framework_list
from diptych.core.report.render import audit_json, render_html, render_markdown
from diptych.core.strict_json import strict_json

if TYPE_CHECKING:
    from diptych.core.capabilities import Model

#: Every format, and the ones written unless a caller names others (PDF needs Chromium).
FORMATS = ("html", "md", "json", "pdf")
DEFAULT_FORMATS = ("html", "md", "json")
_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


def parse_formats(formats: str | Sequence[str] | None) -> tuple[str, ...]:
    """``"html,md"`` or ``["html", "md"]`` checked against :data:`FORMATS`."""
    if formats is None:
        return DEFAULT_FORMATS
    items = formats.split(",") if isinstance(formats, str) else list(formats)
    chosen = tuple(dict.fromkeys(f.strip().lower() for f in items if f.strip()))
    unknown = [f for f in chosen if f not in FORMATS]
    if unknown or not chosen:
        raise UsageError(
            f"unknown report format {', '.join(unknown) or '(none)'}; "
            f"choose from {', '.join(FORMATS)}"
        )
    return chosen


def _write_files(audit: Audit, out_dir: Path) -> dict[int, str]:
    """Figures and example images as files beside the Markdown; their relative paths by id.
    One run keeps ``figures/<name>.png``; several runs put each run's under its id."""
    paths: dict[int, str] = {}
    several = len(audit.runs) > 1
    chapters = [(part.id, part.result, part.examples, part.sections) for part in audit.runs]
    chapters += [(f"{c.baseline}-vs-{c.intervention}", c.result, [], []) for c in audit.comparisons]
    for i, (key, result, examples, sections) in enumerate(chapters):
        prefix = f"figures/{key}/" if several or i > 0 else "figures/"
        figures = [*result.figures, *(f for s in sections for f in s.figures)]
        images = [*examples, *(img for s in sections for img in s.images)]
        for figure in figures:
            paths[id(figure)] = f"{prefix}{figure.name}.png"
        for n, image in enumerate(images, 1):
            paths[id(image)] = f"{prefix}example-{n}.{_EXTENSIONS.get(image.mime, 'png')}"
        for figure in figures:
            target = out_dir / paths[id(figure)]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(figure.png)
        for image in images:
            target = out_dir / paths[id(image)]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(image.data)
    from diptych.core.report.render import run_charts

    for charts in run_charts(audit).values():
        for chart in charts:
            target = out_dir / "figures" / "charts" / f"{chart.name}.svg"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(draw(chart, chart.name), encoding="utf-8")
    return paths


def write_audit(
    audit: Audit, out_dir: Path, formats: Sequence[str] = DEFAULT_FORMATS
) -> dict[str, Path]:
    """Write the audit in each format into ``out_dir``; the paths by format, and under
    ``figures`` the directory of figure and image files where the Markdown or JSON needs one."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    paths: dict[int, str] = {}
    if "md" in formats or "json" in formats:
        paths = _write_files(audit, out_dir)
    if "md" in formats:
        written["md"] = out_dir / "report.md"
        written["md"].write_text(render_markdown(audit, paths), encoding="utf-8")
    if "json" in formats:
        written["json"] = out_dir / "report.json"
        written["json"].write_text(
            # Strict JSON, and a reader's: a value that is not finite (the bounds and se of a
            # figure without an interval, whose reason says why) is null, never "inf".
            strict_json(audit_json(audit, paths)),
            encoding="utf-8",
        )
    if "html" in formats or "pdf" in formats:
        html = out_dir / "report.html"
        html.write_text(render_html(audit), encoding="utf-8")
        if "html" in formats:
            written["html"] = html
        if "pdf" in formats:
            from diptych.core.report.pdf import print_pdf

            written["pdf"] = print_pdf(html, out_dir / "report.pdf")
            if "html" not in formats:
                html.unlink()
    if ("md" in formats or "json" in formats) and (out_dir / "figures").is_dir():
        written["figures"] = out_dir / "figures"
    return written


def _figures_json(audit: Audit) -> dict[str, Any]:
    """What a gate reads of the report JSON: its scope and each run's numbers."""
    return {
        "scope": audit.scope,
        "runs": [
            {"run": p.id, "probe": p.view.run.probe, "result": {"numbers": p.result.numbers}}
            for p in audit.runs
        ],
    }


def write_audit_report(
    source: AuditSource,
    run_ids: Sequence[str],
    out_dir: Path,
    *,
    formats: str | Sequence[str] | None = None,
    result: ProbeResult | None = None,
    label_policy: LabelPolicy | None = None,
    draft_with: Model | None = None,
    scope: dict[str, Any] | None = None,
    gates: Callable[[dict[str, Any], dict[str, Any]], Any] | None = None,
    agent_sessions: Sequence[str] = (),
    store: str | Path | None = None,
    written: str | None = None,
    cwd: Path | None = None,
    frameworks: Sequence[Path] = (),
) -> dict[str, Path]:
    """Gather the audit of ``run_ids`` from ``source`` (a Workspace), draft its narrative with
    ``draft_with`` where given, and write it; the paths written, by format. ``scope`` names
    what produced the report beyond its runs (an audit file: its name, id and hash); ``gates``
    decides the release gates ``scope["gates"]`` states on the report's figures (a
    ``GateReport``), for the report to show them first. ``agent_sessions`` names agent
    sessions to list besides those that scored one of the runs. ``store`` is the workspace
    the runs are in: the report's commands name it where it is not the default. ``written``
    and ``cwd`` make a report again as it was made (its date, and the directory its commands
    were printed for), so that it can be compared with the one it re-derives. ``frameworks``
    are an organisation's framework files, mapped in the appendix after the shipped ones
    (:mod:`diptych.core.report.frameworks`; a file that claims a framework is satisfied is
    refused before anything is written)."""
    if not run_ids:
        raise UsageError("a report needs at least one run")
    chosen = parse_formats(formats)
    audit = collect_audit(
        source, run_ids, result=result, label_policy=label_policy, sessions=agent_sessions
    )
    audit.scope = dict(scope or {})
    if written is not None:
        audit.written = written
    audit.frameworks_files = [Path(f) for f in frameworks]
    framework_list(audit.frameworks_files)  # a bad file is refused before anything is written
    audit.standings = standings_of(source, audit)
    if store is not None:
        # The commands are pasted in the report's own directory: their paths start there.
        audit.store, audit.cwd = str(store), str(Path(cwd or out_dir).resolve())
        audit.folder = _as_named(Path(cwd or out_dir))
        for part in audit.runs:
            part.store, part.cwd = audit.store, audit.cwd
    if audit.scope.get("gates") and gates is not None:
        try:
            audit.gates = gates(audit.scope, _figures_json(audit))
        except DiptychError as error:
            # A gate whose figure the runs lack: the report says so; `audit gate` fails on it.
            audit.gate_error = str(error)
    if draft_with is not None:
        from diptych.core.report.draft import draft_narrative

        audit.draft = asyncio.run(draft_narrative(draft_with, audit))
    return write_audit(audit, out_dir, chosen)


def _as_named(folder: Path) -> str:
    """``folder`` as a user in this process's directory names it: relative where it lies
    under it (the TUI hands a whole path), else as given."""
    here = Path.cwd().resolve()
    if folder.resolve().is_relative_to(here):
        return os.path.normpath(os.path.relpath(folder.resolve(), here))
    return os.path.normpath(folder)


def standings_of(source: AuditSource, audit: Audit) -> Any:
    """Every audited model of the report side by side where the report covers more than one
    model and the source can rank them (``AuditSource.standings``); else None."""
    models = {m for part in audit.runs for m in part.view.model_ids()}
    rank = getattr(source, "standings", None)
    if len(models) < 2 or rank is None:
        return None
    try:
        found = rank([part.id for part in audit.runs])
    except UsageError:
        return None  # no figure of these runs can be ranked (no labels yet)
    if found is None or not any(len(t.standings) > 1 for t in found.tables):
        return None
    return found
