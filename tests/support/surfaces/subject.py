"""What a report is of, and when: a report of runs never speaks of an audit ("this audit",
"Plugins the audit used"), and no run's dates run backwards (finished before it started)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

#: Words that name the report's subject as an audit; an audit's report alone may use them.
_AUDIT_SUBJECT = re.compile(
    r"\b(this|the) audit\b(?! file)|\baudit report\b|\bthis audit's\b", re.IGNORECASE
)


def _is_audit(report_dir: Path, data: dict[str, Any]) -> bool:
    if data:
        return bool((data.get("scope") or {}).get("audit"))
    md = report_dir / "report.md"
    if md.is_file():
        return md.read_text(encoding="utf-8").startswith("# Audit ")
    html = report_dir / "report.html"
    return html.is_file() and "<h1>Audit " in html.read_text(encoding="utf-8")


def audit_word_problems(text: str) -> list[str]:
    """Each place ``text`` (a report of runs, not of an audit) calls its subject an audit."""
    out = []
    for m in _AUDIT_SUBJECT.finditer(text):
        around = " ".join(text[max(0, m.start() - 40) : m.end() + 40].split())
        out.append(f"{m.group(0)!r} in a report of runs: “{around}”")
    return out


def _runs(data: dict[str, Any]) -> list[dict[str, Any]]:
    runs = list(data.get("runs") or [])
    return runs or ([data] if "run" in data else [])


def date_order_problems(data: dict[str, Any]) -> list[str]:
    """Each run of report.json that finished before it started."""
    out = []
    for run in _runs(data):
        started, finished = str(run.get("started") or "—"), str(run.get("finished") or "—")
        if "—" not in (started, finished) and finished < started:
            out.append(f"run {run.get('run')} started {started} and finished {finished}")
    return out


def subject_problems(report_dir: Path, data: dict[str, Any]) -> list[str]:
    """Both checks on the report written to ``report_dir`` (``data``: its report.json)."""
    problems = [f"json: {p}" for p in date_order_problems(data)]
    if _is_audit(report_dir, data):
        return problems
    for name in ("report.md", "report.html"):
        if (report_dir / name).is_file():
            text = (report_dir / name).read_text(encoding="utf-8")
            problems += [f"{name[7:]}: {p}" for p in audit_word_problems(text)]
    return problems
