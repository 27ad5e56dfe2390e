"""How the report's blocks flow over A4 pages (:mod:`.paper` finds each block's words in the
PDF): a heading on the page of its content, a short list whole and no list item split, a note
that closes a block on that block's page, a row of a table printed in parts of columns with all
its parts on one page, a table in parts only when it cannot print whole, in bands of rows near a
page high, no page under half full whose next block would have begun on it, and no chart that
flows over pages moved to the next page, its headings with it, where its least part fitted.

Each block is a :class:`Placed`: what the page laid out for print in Chromium says of it, and
where its first and last words print.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: A list of at most this many items, and at most a third of a page high as laid out for print
#: (1000 CSS px a page), prints on one page; any other may break between items.
SHORT_LIST = 7
SHORT_LIST_HEIGHT = 1000 / 3
#: A page under this share of its column, followed by a block that would have begun on it, is
#: left emptier than it needs to be.
HALF = 1 / 2
#: A chart that flows over pages breaks at a page's foot: less room under its last row than a
#: row of three lines (51 CSS px, 38 pt) and the foot's margin take (pt).
FLOW_ROOM = 60.0
#: Each page's part of a chart that flows over pages, with its legend and axis, takes at least
#: this share of a page: a part of two rows is a fragment the reader turns a page for; a part
#: of five, with the legend and the axis, is a chart to read (and, under its section's heading,
#: no heading stranded at a page's foot).
LEAST_CHART_PART = 1 / 4
#: Two words' feet further apart than this (in points) are on two lines (9 pt prints 13.5 apart).
LINE_GAP = 5.0
#: CSS px a PDF point.
PX = 96 / 72
#: What a page's first block loses of its height at the top of a page and takes back under
#: another block: a heading's top margin (2rem of a 12 pt root), with room for rounding.
TOP_MARGIN = 30.0
#: The text column of an A4 page (report.css: 14 mm and 16 mm margins) in CSS px: 182 mm wide,
#: 265 mm high.
COLUMN_WIDTH = 182 / 25.4 * 96
COLUMN_HEIGHT = 265 / 25.4 * 96
#: A table at most this high as laid out for print (CSS px), about half a page, prints on one
#: page (the report keeps whole tables it estimates at up to 540 px, every row of one line:
#: a lower estimate, so that one printed this high is always among them).
PAGE_TABLE = 500.0
#: A band of rows of a table in parts (every part of those rows, kept on one page, under half of
#: it as everything kept whole) under this share of a page, the table's last band excepted,
#: leaves pages to the parts' headers and captions: two bands should fill a page.
LEAST_BAND = 0.4


@dataclass
class Placed:
    """A block of the page and where it printed: words ``first`` to ``last`` (indices into the
    PDF's words), from ``page`` to ``end_page`` (0-based)."""

    element: dict[str, Any]
    first: int
    last: int
    page: int
    end_page: int
    what: str


def short_list(item: dict[str, Any]) -> bool:
    """Whether the list of this item is short: it prints whole."""
    return bool(item["items"] <= SHORT_LIST and item["list_height"] <= SHORT_LIST_HEIGHT)


def item_problems(placed: list[Placed]) -> list[str]:
    """A list item over two pages, and a short list (:func:`short_list`) over two, found by
    items printed one right after the other."""
    out = []
    lists: dict[int, list[Placed]] = {}
    for p in placed:
        if p.element["kind"] != "item":
            continue
        if p.page != p.end_page:
            out.append(f"list item split over pages {p.page + 1} and {p.end_page + 1}: “{p.what}”")
        lists.setdefault(p.element["list"], []).append(p)
    for items in lists.values():
        count = items[0].element["items"]
        if not short_list(items[0].element):
            continue
        for one, two in zip(items, items[1:], strict=False):
            if two.page > one.end_page and two.first - one.last <= len(two.what.split()) + 40:
                out.append(
                    f"list of {count} items split over pages {one.end_page + 1} and "
                    f"{two.page + 1}: “{items[0].what}”"
                )
                break
    return out


def note_problems(placed: list[Placed], pages: list[int]) -> list[str]:
    """A note that closes a block (the line under a list or a table) printed at the top of a
    page, apart from the block it closes: ``pages`` is each word's page."""
    out = []
    for p in placed:
        if p.element.get("closing") and p.first > 0 and pages[p.first - 1] < p.page:
            out.append(
                f"note “{p.what}” at the top of page {p.page + 1}, apart from what it closes "
                f"on page {pages[p.first - 1] + 1}"
            )
    return out


def band_problems(placed: list[Placed]) -> list[str]:
    """A table printed in parts of columns with a row whose parts print on different pages: the
    reader turns the page to read one row. Said once a table, at its first such row."""
    rows: dict[str, set[int]] = {}
    names: dict[str, str] = {}
    for p in placed:
        band = p.element.get("band")
        if p.element["kind"] == "row" and band:
            rows.setdefault(band, set()).update({p.page, p.end_page})
            names.setdefault(band, p.what)
    out = []
    said: set[str] = set()
    for key, on in rows.items():
        table = key.split(":")[0]
        if len(on) > 1 and table not in said:
            said.add(table)
            out.append(
                f"a row's parts of columns print on pages {sorted(n + 1 for n in on)}: "
                f"“{names[key]}”"
            )
    return out


def first_block_height(
    placed: list[Placed], page: int, bottoms: dict[int, float], lines: dict[int, list[float]]
) -> tuple[float, str, bool] | None:
    """How far down ``page`` its first block ends, with the headings and lead-in lines kept with
    it: a figure whole (a chart that flows over pages, its first rows kept together), a row
    (with the row after the first, which stays with it) or a short table whole with its
    caption, an item or a short list whole, a paragraph's first two lines. ``bottoms`` is each
    word's foot, ``lines`` each page's distinct line feet in order. None when the page starts
    with no such block. The flag says the block is a table kept whole that fits a page
    (:data:`PAGE_TABLE`), or a chart's first rows (its least part): it may move to the next
    page whole."""
    on = [p for p in placed if p.page == page]
    for i, p in enumerate(on):
        kind = p.element["kind"]
        if p.element.get("lead") or kind == "heading":
            continue
        end = p.last
        if kind == "para":
            low, high = bottoms[p.first] - 0.5, bottoms[p.last] + 0.5
            feet = [y for y in lines[page] if low <= y <= high]
            return (feet[1] if len(feet) > 1 else bottoms[p.last]), p.what, False
        whole = False
        if kind == "row":
            same = [q for q in on[i:] if q.element["kind"] == "row"
                    and q.element["table"] == p.element["table"]]  # fmt: skip
            whole = p.element["rows"] <= p.element.get("short", 0)
            end = (same[-1] if whole else same[min(1, len(same) - 1)]).last
            # A table kept whole keeps the caption under it (its note) with it.
            after = [q for q in on[i:] if q.first > end]
            if whole and after and after[0].element.get("caption"):
                end = after[0].last
            whole = whole and 0 < p.element.get("height", 0) <= PAGE_TABLE
        if p.element.get("kept"):
            # A chart that flows over pages: its first rows, kept with its head and foot, from
            # its legend's line (its first word, 14 pt under the chart's top).
            return bottoms[p.first] - 14 + p.element["kept"] / PX, p.what, True
        if kind == "item" and short_list(p.element):
            same = [q for q in on[i:] if q.element["kind"] == "item"
                    and q.element["list"] == p.element["list"]]  # fmt: skip
            end = same[-1].last
        return max(bottoms[k] for k in range(p.first, end + 1)), p.what, whole
    return None


def thin_page_problems(
    placed: list[Placed],
    fills: list[float],
    room: list[float],
    tops: list[float],
    bottoms: dict[int, float],
    lines: dict[int, list[float]],
    heads: dict[int, float] | None = None,
) -> list[str]:
    """A page under :data:`HALF` full (the last excepted) before a page that opens with a block:
    either the block would have begun under it, or the block, with the headings kept with it,
    is kept whole over more than half a page, which no block but a table that fits a page may
    be (a page under half full is then never needed). ``room`` is what each page has left
    under its last word, ``tops`` where each page's column starts, ``heads`` each word's top.

    What the block needs under the page's last word is its height from :func:`text_above`:
    a heading under a boxed contents needs more than a heading's margin (:data:`TOP_MARGIN`,
    the allowance where that is not known)."""
    out = []
    for n in range(len(fills) - 1):
        if fills[n] >= HALF:
            continue
        first = first_block_height(placed, n + 1, bottoms, lines)
        if first is None:
            continue
        foot, what, table = first
        height = foot - tops[n + 1]
        base = text_above(placed, n + 1, bottoms, lines, heads)
        need = height + TOP_MARGIN if base is None else foot - base
        said = f"page {n + 1} is {fills[n]:.0%} full, and the first {height:.0f} pt of page {n + 2}"
        if need <= room[n]:
            out.append(f"{said} (“{what}”) would have fitted under it")
        elif not table:
            out.append(f"{said} (“{what}”) are kept together: more than half a page")
    return out


def chart_start_problems(
    placed: list[Placed],
    room: list[float],
    tops: list[float],
    bottoms: dict[int, float],
    lines: dict[int, list[float]],
    heads: dict[int, float] | None = None,
) -> list[str]:
    """A chart that flows over pages opening a page, with the headings kept with it, where the
    page before had room under its last line for those headings and the least part of the chart
    a page may hold (:data:`LEAST_CHART_PART`, with its legend and axis): the rows it keeps
    together at its start were more than that, and left the page before emptier than it need
    be, however full (the demo's Findings and Contents, a page half used, Results on the next).
    The arguments are :func:`thin_page_problems`'."""
    out = []
    least = LEAST_CHART_PART * COLUMN_HEIGHT / PX
    for page in range(1, len(room)):
        if any(p.page < page <= p.end_page for p in placed):
            continue
        on = [p for p in placed if p.page == page]
        first = next(
            (p for p in on if p.element["kind"] != "heading" and not p.element.get("lead")), None
        )
        if first is None or not first.element.get("kept"):
            continue
        # The chart's top, 14 pt above its legend's line (its first word).
        top = bottoms[first.first] - 14
        base = text_above(placed, page, bottoms, lines, heads)
        need = top + least - (tops[page] - TOP_MARGIN if base is None else base)
        if need <= room[page - 1]:
            out.append(
                f"page {page} leaves {room[page - 1]:.0f} pt under its last line, room for the "
                f"{need:.0f} pt of the headings and the least part of the chart that opens page "
                f"{page + 1} (“{first.what}”)"
            )
    return out


def text_above(
    placed: list[Placed],
    page: int,
    bottoms: dict[int, float],
    lines: dict[int, list[float]],
    heads: dict[int, float] | None,
) -> float | None:
    """Where, in ``page``'s own points, the text before the page would end were the page's first
    block under it: the block's first word's top less what the page laid out in one column
    holds between the two (its ``above``: margins, a box's padding and border). None when the
    page opens with no block of its own (one runs onto it from the page before), or the gap is
    not known."""
    if heads is None or any(p.page < page <= p.end_page for p in placed):
        return None
    start = min((p for p in placed if p.page == page), key=lambda p: p.first, default=None)
    # Its first word on the page's first line: no text before it on the page.
    if start is None or not lines.get(page) or bottoms[start.first] > lines[page][0] + LINE_GAP:
        return None
    above = start.element.get("above")
    return None if above is None else heads[start.first] - above / PX


#: A last page under this share of its column holds more than the report's last section.
LEAST_LAST = 1 / 3


def lone_last_section(placed: list[Placed], fills: list[float]) -> list[str]:
    """A last page under :data:`LEAST_LAST` full that holds only the report's last section, its
    heading at the page's top: a short trailing section orphaned by a page break, whether or not
    the page before had room for it (it should have been kept with what precedes it)."""
    last = len(fills) - 1
    if last < 1 or fills[last] >= LEAST_LAST:
        return []
    on = [p for p in placed if p.end_page == last]
    headings = [p for p in placed if p.element["kind"] == "heading"]
    if not on or not headings or on[0] is not headings[-1] or on[0].page != last:
        return []
    return [
        f"the last page ({fills[last]:.0%} full) holds only the last section “{on[0].what}”: "
        "keep it with what precedes it"
    ]


#: A last page of at most this many lines is a stub: it must not hold what the page before it
#: had room for.
SHORT_LAST_PAGE = 10


def last_page_problems(
    room: list[float], lines: dict[int, list[float]], base: float | None = None
) -> list[str]:
    """A last page of a few lines (:data:`SHORT_LAST_PAGE`) that the page before it had room
    for: ``room`` is what each page has left under its last word, ``lines`` each page's line
    feet, top to bottom (its first line's foot stands for the page's top), ``base`` where the
    page before's last word would stand above them (:func:`text_above`), where known."""
    last = len(room) - 1
    feet = lines.get(last, [])
    if last < 1 or not feet or len(feet) > SHORT_LAST_PAGE:
        return []
    # The lines' height, with the first line's own (its foot less the line below's spacing).
    spacing = min((b - a for a, b in zip(feet, feet[1:], strict=False)), default=14.0)
    height = feet[-1] - feet[0] + spacing + TOP_MARGIN if base is None else feet[-1] - base
    if height > room[last - 1]:
        return []
    return [
        f"the last page holds only {len(feet)} lines ({height:.0f} pt), which page {last} had "
        f"room for ({room[last - 1]:.0f} pt left)"
    ]


#: Each table printed in parts of columns: how many columns each part shows (its first, repeated
#: in every part, included); the narrowest the whole table lays out on paper (its screen box,
#: hidden in print, shown and measured at its min-content width); each band's height. And each
#: table printed whole that runs past the page's text column.
_PARTS = """(column) => {
  const parts = [...document.querySelectorAll('.print-parts')]
    .filter(d => d.getClientRects().length > 0)
    .map(d => {
      let whole = 0;
      const box = d.previousElementSibling;
      if (box && box.classList.contains('scroll')) {
        const t = box.querySelector('table'), was = box.style.display;
        box.style.display = 'block'; t.style.width = 'min-content';
        whole = t.getBoundingClientRect().width;
        t.style.width = ''; box.style.display = was;
      }
      return {columns: [...d.querySelectorAll(':scope > .band:first-child > table')]
                .map(t => t.querySelectorAll('thead th').length),
              text: (d.querySelector('th') || d).innerText.slice(0, 40), whole,
              bands: [...d.querySelectorAll(':scope > .band')]
                .map(b => b.getBoundingClientRect().height)};
    });
  const left = document.querySelector('main, body').getBoundingClientRect().left;
  const wide = [...document.querySelectorAll('table')]
    .filter(t => t.getClientRects().length > 0 && !t.closest('.print-parts'))
    .filter(t => t.getBoundingClientRect().right - left > column + 1)
    .map(t => ({width: t.getBoundingClientRect().width,
                text: (t.querySelector('th, td') || t).innerText.slice(0, 40)}));
  return {parts, wide};
}"""


def table_parts() -> str:
    """The script that measures the printed tables (the page laid out for print, as wide as a
    page's text column), for :func:`part_problems`."""
    return f"() => ({_PARTS})({COLUMN_WIDTH:.1f})"


def part_problems(measured: dict[str, Any] | list[dict[str, Any]]) -> list[str]:
    """A table split into parts of columns though it fits the page whole; one with a part that
    shows one column beside the first (the one left over) where another shows more; one whose
    bands of rows take much less of a page than a page holds; a table printed whole that runs
    past the page's edge (Chromium scales the whole page down to it)."""
    if isinstance(measured, list):
        measured = {"parts": measured, "wide": []}
    out = []
    for table in measured["parts"]:
        columns = table["columns"]
        whole = table.get("whole", 0.0)
        if 0 < whole <= COLUMN_WIDTH:
            out.append(
                f"a table printed in {len(columns)} parts of columns that fits the page whole "
                f"({whole:.0f} px of {COLUMN_WIDTH:.0f}): “{table['text']}”"
            )
        if len(columns) > 1 and min(columns) <= 2 < max(columns):
            out.append(
                f"a table printed in parts of {columns} columns, one of a single column: "
                f"“{table['text']}”"
            )
        bands = table.get("bands", [])
        small = [h for h in bands[:-1] if h < LEAST_BAND * COLUMN_HEIGHT]
        if small:
            out.append(
                f"a table printed in bands of rows {min(small):.0f} px high where a page holds "
                f"{COLUMN_HEIGHT:.0f}: “{table['text']}”"
            )
    for table in measured["wide"]:
        out.append(
            f"a table {table['width']:.0f} px wide on a page {COLUMN_WIDTH:.0f} px wide: "
            f"“{table['text']}”"
        )
    return out


@dataclass
class ChartParts:
    """A chart printed as rows flowing over pages, as the marked print shows it: each row's page
    (``pages``, in the rows' order), each row's height and the height of the legend and axis its
    every page repeats (``frame``), in CSS px as laid out for print."""

    pages: list[int]
    heights: list[float]
    frame: float

    def parts(self) -> dict[int, list[float]]:
        """The heights of the rows each page holds."""
        out: dict[int, list[float]] = {}
        for page, height in zip(self.pages, self.heights, strict=False):
            out.setdefault(page, []).append(height)
        return out

    def height(self, rows: list[float]) -> float:
        return self.frame + sum(rows)


def flow_problems(
    span: range, feet: set[int], room: list[float], what: str, parts: ChartParts | None = None
) -> list[str]:
    """A chart printed as rows flowing over the pages ``span`` that breaks above a page's foot
    (more than :data:`FLOW_ROOM` left under it: the chart should fill the page it starts on,
    unless the rows it could have taken there would leave the next page's part under its least
    part), runs onto a page without its axis (``feet``: the pages its foot prints on), or
    leaves on a page a part under :data:`LEAST_CHART_PART` of it, with its legend and axis."""
    out = []
    pages = parts.parts() if parts is not None else {}
    least = LEAST_CHART_PART * COLUMN_HEIGHT - 1
    for n in span[:-1]:
        after = pages.get(n + 1, [])
        # The next page's part without its first row, which the room under this one had held.
        held = parts is not None and after and parts.height(after[1:]) < least
        if room[n] > FLOW_ROOM and not (held and after[0] / PX <= room[n]):
            out.append(
                f"a chart running over pages {span[0] + 1}–{span[-1] + 1} breaks {room[n]:.0f} "
                f"pt above the foot of page {n + 1}: “{what}”"
            )
    out += [
        f"a chart running over pages {span[0] + 1}–{span[-1] + 1} has no axis on page "
        f"{n + 1}: “{what}”"
        for n in span
        if n not in feet
    ]
    if parts is None or len(pages) < 2:
        return out
    for n, rows in sorted(pages.items()):
        if parts.height(rows) < least:
            out.append(
                f"a chart running over pages {span[0] + 1}–{span[-1] + 1} leaves {len(rows)} "
                f"rows on page {n + 1} ({parts.height(rows):.0f} px with its legend and axis, "
                f"under {LEAST_CHART_PART:.0%} of the page's {COLUMN_HEIGHT:.0f}): “{what}”"
            )
    return out
