"""A run id kept whole on the page: every run id in the HTML report's text is marked
``<span class="run-id">``, which neither a screen nor paper breaks (report.css), so that a
reader copying ``pst-text-9e0e2f56`` from a table, a sentence or a printed command never gets
``pst-text-`` alone. Text inside the head, a chart's SVG, a script or a style is left as it is:
a span is not markup there."""

from __future__ import annotations

import re
from collections.abc import Iterable

#: A tag, or a comment, between two pieces of the page's text.
_TAG = re.compile(r"(<!--.*?-->|<[^>]*>)", re.DOTALL)
#: Elements whose text is not HTML flow: a span inside them would show or break them.
_LEFT = ("head", "svg", "script", "style", "title", "textarea")
_NAME = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)")


def keep_ids_whole(html: str, ids: Iterable[str]) -> str:
    """``html`` with each of ``ids`` in its text (not in a tag or an attribute) in a span of
    class ``run-id``; a longer id first, where one id is the start of another."""
    names = sorted({i for i in ids if i}, key=len, reverse=True)
    if not names:
        return html
    found = re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in names) + r")(?![\w])")
    out: list[str] = []
    inside: list[str] = []
    for piece in _TAG.split(html):
        tag = _NAME.match(piece) if piece.startswith("<") else None
        if tag is not None:
            closing, name = tag.group(1) == "/", tag.group(2).lower()
            if name in _LEFT and not piece.endswith("/>"):
                if closing and name in inside:
                    del inside[len(inside) - 1 - inside[::-1].index(name)]
                elif not closing:
                    inside.append(name)
            out.append(piece)
        elif piece.startswith("<") or inside:
            out.append(piece)
        else:
            out.append(found.sub(r'<span class="run-id">\1</span>', piece))
    return "".join(out)


__all__ = ["keep_ids_whole"]
