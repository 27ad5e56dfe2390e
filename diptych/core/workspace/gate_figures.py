"""How a gate that names a figure its audit or baseline does not hold is told so."""

from __future__ import annotations

from typing import Any

from diptych.core.figure_names import suggested


def unknown_figure(label: str, key: tuple[str, str], figures: Any, where: str) -> str:
    """Why a gate names no figure of ``where``: the part is missing, or the names nearest the
    one asked for (or, with none near, the part's first names), so the next try needs no lookup."""
    names = [f for p, f in figures if p == key[0] and f is not None]
    if not names:
        return f"gate '{label}': {where} has no part '{key[0]}' with figures"
    close = suggested(key[1], names)
    if close:
        shown = [repr(c) for c in close[:LISTED]]
        more = f" (and {len(close) - len(shown):,} more)" if len(close) > len(shown) else ""
        either = f"{', '.join(shown[:-1])} or {shown[-1]}" if len(shown) > 1 else shown[0]
        hint = f"; did you mean {either}{more}?"
    else:
        # Nothing near: the names it has, on the same line, so the next try needs no lookup.
        shown = names[:LISTED]
        more = f" and {len(names) - len(shown):,} more" if len(names) > len(shown) else ""
        hint = f"; its figures: {', '.join(repr(n) for n in shown)}{more}"
    return f"gate '{label}': part '{key[0]}' of {where} has no figure '{key[1]}'{hint}"


#: How many of a part's figure names a gate on an unknown one lists (a ``pst`` part declares
#: over a hundred; the first are its headline figures).
LISTED = 8
