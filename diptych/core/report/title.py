"""A report's title: what the report is of. An audit's report is titled by the audit (its name,
its file, and what its gates decided); its probes are sections under the title, never the title
itself. A report of runs alone is titled by its one probe, or by the probes it covers."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any


def _decided(gates: Any) -> str:
    """What the audit's gates decided, as the verdict block counts them."""
    results = list(getattr(gates, "results", None) or [])
    if not results:
        return ""
    n = len(results)
    passed = sum(r.verdict == "pass" for r in results)
    blocks = sum(bool(r.blocks) for r in results)
    said = f"{passed} of 1 gate passes" if n == 1 else f"{passed} of {n} gates pass"
    return f"{said}, release blocked" if blocks else f"{said}, release not blocked"


def report_title(
    scope: dict[str, Any], gates: Any, probe_titles: list[str], probes: list[str]
) -> str:
    """The title of a report of ``scope`` (an audit's name and file, when the report is an
    audit's), its decided ``gates`` (or None) and its runs' probes (titles and names)."""
    name = scope.get("audit")
    if name:
        file = str(scope.get("file") or "")
        # An audit made on the command line is named "(command line)", parentheses and all.
        made = file if file.startswith("(") else f"({PurePath(file).name})"
        title = f"Audit {name}" + (f" {made}" if file else "")
        decided = _decided(gates)
        return f"{title}: {decided}" if decided else title
    if len(probe_titles) == 1:
        return probe_titles[0]
    return "Bias audit: " + ", ".join(dict.fromkeys(probes))
