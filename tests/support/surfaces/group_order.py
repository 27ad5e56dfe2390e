"""The two identity lists named in one order everywhere a report names them: masculine, then
feminine ("20 masculine × 20 feminine identities crossed in scenes"), as a plan, the standings
and every other report do; never "20 feminine × 20 masculine" in one report and the other
order in the next."""

from __future__ import annotations

import re
from pathlib import Path

#: The feminine list named before the masculine one, counted or not ("20 feminine × 20
#: masculine", "feminine and masculine identities").
_FEMININE_FIRST = re.compile(
    r"\bfeminine(?: identit(?:y|ies))?\s*(?:×|and)\s*(?:[\d,]+\s+)?masculine\s+identit", re.I
)


def group_order_problems(report_dir: Path) -> list[str]:
    """Every place of the report's Markdown, HTML and JSON that names the feminine list first."""
    out = []
    for name in ("report.md", "report.html", "report.json"):
        path = report_dir / name
        if not path.is_file():
            continue
        text = " ".join(path.read_text(encoding="utf-8").split())
        for m in _FEMININE_FIRST.finditer(text):
            around = text[max(0, m.start() - 30) : m.end() + 30]
            out.append(f"{name}: the feminine list named first in “{around}”")
    return out
