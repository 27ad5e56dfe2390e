"""Render a run's ProbeResult as Markdown (and JSON) for the model's owner."""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import jinja2

from diptych.core.probe import Probe, ProbeResult
from diptych.core.runview import RunView

REPORT_SCHEMA_VERSION = 1


def fmt(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return "—" if value is None else str(value)
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if math.isnan(value):
            return "—"
        return f"{value:.2f}"
    return str(value)


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("diptych.core", "templates"),
        autoescape=False,  # Markdown, not HTML
        keep_trailing_newline=True,
        trim_blocks=False,
        undefined=jinja2.StrictUndefined,
    )


def model_summaries(view: RunView) -> list[dict[str, Any]]:
    """Each model of the run with the provenance its first finished result recorded."""
    first: dict[str, dict[str, Any]] = {}
    for trial in view.trials:
        result = view.results.get(trial.key)
        if result is not None and trial.model_id not in first:
            first[trial.model_id] = result.provenance
    return [{**m, "provenance": first.get(m["model_id"], {})} for m in view.run.models]


def render_markdown(view: RunView, probe: Probe, result: ProbeResult) -> str:
    refusals = [
        {"status": r.status, "error": r.error}
        for r in view.results.values()
        if r.status in ("refused", "failed")
    ][:10]
    template = _environment().get_template("report.md.j2")
    return template.render(
        run=view.run,
        result=result,
        counts=view.status_counts(),
        refusals=refusals,
        models=model_summaries(view),
        prompts=probe.prompts_used(),
        created=time.strftime("%Y-%m-%d %H:%M", time.localtime(view.run.created_at)),
        written=time.strftime("%Y-%m-%d %H:%M"),
        fmt=fmt,
    )


def result_json(view: RunView, result: ProbeResult) -> dict[str, Any]:
    return {
        "schema_version": REPORT_SCHEMA_VERSION,
        "run": view.run.id,
        "probe": view.run.probe,
        "status": view.run.status,
        "counts": view.status_counts(),
        "models": model_summaries(view),
        "result": {
            **{k: v for k, v in asdict(result).items() if k != "figures"},
            "figures": [{"name": f.name, "title": f.title, "path": f.path} for f in result.figures],
        },
    }


def write_report(view: RunView, probe: Probe, result: ProbeResult, out_dir: Path) -> Path:
    """Write ``report.md`` and ``report.json`` into ``out_dir``; return the Markdown path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    if result.figures:
        (out_dir / "figures").mkdir(exist_ok=True)
        for figure in result.figures:
            (out_dir / figure.path).write_bytes(figure.png)
    md = out_dir / "report.md"
    md.write_text(render_markdown(view, probe, result), encoding="utf-8")
    (out_dir / "report.json").write_text(
        json.dumps(result_json(view, result), indent=2, default=str), encoding="utf-8"
    )
    return md
