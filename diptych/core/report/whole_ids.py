"""A run id kept whole on the page: every run id in the HTML report's text is marked
``<span class="run-id">``, which neither a screen nor paper breaks (report.css), so that a
reader copying ``pst-text-9e0e2f56`` from a table, a sentence or a printed command never gets
``pst-text-`` alone. Text inside the head, a chart's SVG, a script or a style is left as it is:
a span is not markup there."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import markupsafe

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


#: The longest probe name kept whole: a longer one (``counterfactual-retrieval``) kept whole
#: beside its run id would widen the scope table past the printed page, so it may break at
#: its hyphen.
KEPT_PROBE_NAME = 12


def kept_probe_names(names: Iterable[str]) -> list[str]:
    """The probe names a page keeps whole as it keeps run ids: those that could break (at a
    hyphen; ``pairs`` cannot, and is a word too: "2 image pairs") and fit a narrow column."""
    return sorted({n for n in names if "-" in n and len(n) <= KEPT_PROBE_NAME})


#: Where a model's version may break: after a build's ``+``, a pin's ``==`` or a path's ``/``,
#: never at a hyphen inside a name (``SmolLM2-135M-Instruct``).
_VERSION_BREAKS = re.compile(r"(?<=\+)|(?<===)|(?<=/)")


def version_words(version: Any) -> Any:
    """A model's version as the page prints it: its pieces between ``+``, ``==`` and ``/``
    each kept on one line, a break allowed only after those separators; a value that is not
    text is left as it is."""
    if not isinstance(version, str) or not version:
        return version
    pieces = [p for p in _VERSION_BREAKS.split(version) if p]
    kept = [markupsafe.Markup('<span class="nowrap">%s</span>') % p for p in pieces]
    return markupsafe.Markup("<wbr>").join(kept)


__all__ = ["keep_ids_whole", "kept_probe_names", "version_words"]
