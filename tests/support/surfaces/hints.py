"""The note over a table box that scrolls sideways, read in the written page: it says that
the table scrolls and that its first column stays in view (what moves and what does not)."""

from __future__ import annotations

import html
import re

#: A scroll hint's text: what it must name (that the table scrolls, and which part of it stays).
_HINT = re.compile(r'<p class="scroll-hint"[^>]*>(.*?)</p>', re.DOTALL)
HINT_SAYS = (re.compile(r"\bscrolls\b", re.I), re.compile(r"\bfirst column\b", re.I))


def hint_problems(page: str) -> list[str]:
    """A hint over a table box that does not say both that the table scrolls and that its
    first column stays in view (a reader on a phone is told what moves and what does not)."""
    out = []
    for m in _HINT.finditer(page):
        said = " ".join(html.unescape(re.sub(r"<[^>]+>", "", m.group(1))).split())
        if not all(p.search(said) for p in HINT_SAYS):
            out.append(
                f"a scroll hint that does not name the scroll and its first column: “{said}”"
            )
    return out
