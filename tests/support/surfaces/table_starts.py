"""A long table's start on paper: a table that breaks over pages begins with enough of its
rows that its heading and column heads are not left at a page's foot over two lines of it
(the appendix's forty identities began with two, the other thirty-eight on the next page)."""

from __future__ import annotations

from tests.support.surfaces.flow import COLUMN_HEIGHT, Placed

#: A table that breaks begins its first page with this many body rows at least (all of them
#: where it has fewer) ...
FIRST_ROWS = 5
#: ... or with rows this share of a page high (a table of tall rows, an agent's findings with
#: their evidence, may begin with one).
FIRST_SHARE = 1 / 8


def table_start_problems(placed: list[Placed]) -> list[str]:
    """Each table whose body rows print over pages and whose first page holds too few of them
    (:data:`FIRST_ROWS`, :data:`FIRST_SHARE`)."""
    starts: dict[int, list[Placed]] = {}
    for p in placed:
        element = p.element
        if element["kind"] == "row" and element["table"] >= 0 and not element.get("head"):
            starts.setdefault(element["table"], []).append(p)
    out = []
    for rows in starts.values():
        first_page = rows[0].page
        on_first = [r for r in rows if r.end_page == first_page]
        if len(on_first) == len(rows):
            continue
        high = sum(float(r.element.get("row_height", 0.0)) for r in on_first)
        if len(on_first) >= min(FIRST_ROWS, len(rows)) or high >= FIRST_SHARE * COLUMN_HEIGHT:
            continue
        out.append(
            f"table begins page {first_page + 1} with {len(on_first)} of its {len(rows)} rows "
            f"({high:.0f} px), the rest after: “{rows[0].what}”"
        )
    return out
