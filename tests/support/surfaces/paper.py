"""The report on A4 as Chromium prints it (:mod:`diptych.core.report.pdf`), read back with
poppler's ``pdftotext -bbox-layout`` (every word with its box and page): no heading (nor a
glossary's term) without its content under it on its page (the block under a run's line, when
the heading has one), no paragraph of three lines or fewer split over two pages, no table's
caption split at all, no figure, table row or list item split across two pages, no short table
or short list split across two, no note apart from the block it closes, no row of a table printed
in parts of columns with its parts on two pages, no table printed in parts of columns with a
part of one column, no short code token (``seed=0``) nor run id (:mod:`.ids`) broken over two
lines, no option broken at one of its hyphens (:mod:`.flags`), no page under a third full except
the last, and none under half full before a page that opens with a block (:mod:`.flow`).

The headings, paragraphs, list items and rows come from the page laid out for print in
Chromium, in document order; each is found in the PDF's words by its own words, within its
section and forward from the one before it (:mod:`.placing`), so that a label repeated in many
tables, or a row's text again in an appendix, is found where it stands. A figure may be drawn
with anything (a chart, an image, text, a table): it is found by words added at its top and its
foot in a second print of the page, which must lay out as the first.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from tests.support.surfaces.contents import contents_problems
from tests.support.surfaces.flags import broken_option_problems
from tests.support.surfaces.flow import (
    LINE_GAP,
    PAGE_TABLE,
    ChartParts,
    Placed,
    band_problems,
    chart_start_problems,
    flow_problems,
    item_problems,
    last_page_problems,
    lone_last_section,
    note_problems,
    part_problems,
    table_parts,
    text_above,
    thin_page_problems,
)
from tests.support.surfaces.ids import whole_word_problems
from tests.support.surfaces.placing import find, place, tokens_of
from tests.support.surfaces.printed_words import PAGE_MARGIN_TOP, Printed, page_fill, read_pdf
from tests.support.surfaces.table_starts import table_start_problems

#: A page must be filled to this share of its text column, the last page excepted.
LEAST_FILL = 1 / 3
#: A table of at most this many rows fits a third of a page: it prints on one page.
SHORT_TABLE = 10
#: A code token without spaces at most this long prints on one line.
SHORT_CODE = 24
#: A heading in this bottom share of a page must have its content under it on that page.
FOOT = 1 / 5
#: A paragraph of at most this many lines never splits over two pages (one line left alone).
LINE_SPLIT = 3
#: The elements whose pages the checks compare, in document order, from the print layout:
#: headings (with the text of what follows them up to the next heading), figures, table rows,
#: list items (the outermost, outside the contents) and paragraphs. ``lead`` marks what is
#: kept with the block after it (``break-after: avoid``), ``closing`` a note under a block, and
#: ``band`` a row of a table printed in parts of columns (the same for each part of the row).
_ELEMENTS = """() => {
  const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const out = [];
  const tables = [...document.querySelectorAll('table')];
  const lists = [...document.querySelectorAll('ul, ol')];
  const parted = [...document.querySelectorAll('.print-parts')];
  // The contents (its words would be found for the headings they name) is one paragraph, its
  // heading with it.
  const selector = 'nav, h2, h3, h4, dt, figure, tr, li, p';
  // How far an element's first text prints under the last text before it (margins, a box's
  // padding and border between them): the room it needs when it follows that text on a page.
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const rects = n => { const r = document.createRange(); r.selectNodeContents(n);
    return n.textContent.trim() ? [...r.getClientRects()].filter(q => q.height > 0) : []; };
  const above = el => {
    let n, top = null;
    for (walker.currentNode = el; (n = walker.nextNode()) && el.contains(n);) {
      const rs = rects(n);
      if (rs.length) { top = Math.min(...rs.map(q => q.top)); break; }
    }
    for (walker.currentNode = el; top !== null && (n = walker.previousNode());) {
      const rs = rects(n);
      if (rs.length) return top - Math.max(...rs.map(q => q.bottom));
    }
    return null;
  };
  for (const el of document.querySelectorAll(selector)) {
    if (!shown(el)) continue;
    const tag = el.tagName;
    if (tag === 'LI' && (el.closest('nav') || el.parentElement.closest('li'))) continue;
    if (/^H[2-4]$/.test(tag) && el.closest('nav')) continue;
    // A chart's rows (a chart that flows over pages is a table of strips) are its figure's.
    if (tag === 'TR' && el.closest('figure')) continue;
    if (tag === 'P' && (el.closest('li, td, th, figure, nav, header, dd, details, pre')
                        || el.classList.contains('scroll-hint'))) continue;
    const kind = tag === 'TR' ? 'row' : tag === 'FIGURE' ? 'figure' : tag === 'LI' ? 'item'
      : tag === 'P' || tag === 'NAV' ? 'para' : 'heading';
    // A row knows its table and how many body rows that table has.
    const table = el.closest('table');
    const table_index = kind === 'row' && table ? tables.indexOf(table) : -1;
    const rows = table_index >= 0 ? table.querySelectorAll('tbody tr').length : 0;
    const short = table_index >= 0 && el.closest('.whole') ? rows : 0;
    // The printed height of the row's table (of all its parts of columns, for one printed in
    // parts): one that fits on a page prints on one.
    const held = kind === 'row' && table ? (el.closest('.print-parts') || table) : null;
    const height = held ? held.getBoundingClientRect().height : 0;
    const parts = kind === 'row' ? el.closest('.print-parts') : null;
    // The same row in each part: its place in its band (or in its part, printed without bands).
    const group = parts ? el.closest('.band') : null;
    const band = parts ? [parted.indexOf(parts),
      group ? [...parts.querySelectorAll('.band')].indexOf(group) : 0,
      el.parentElement.tagName + [...el.parentElement.children].indexOf(el)].join(':') : '';
    const list = kind === 'item' ? lists.indexOf(el.parentElement) : -1;
    const items = list >= 0 ? el.parentElement.querySelectorAll(':scope > li').length : 0;
    const list_height = list >= 0 ? el.parentElement.getBoundingClientRect().height : 0;
    const lead = kind !== 'row' && getComputedStyle(el).breakAfter === 'avoid';
    let closing = false;
    if (kind === 'para' && el.classList.contains('note')) {
      let before = el.previousElementSibling;
      while (before && !shown(before)) before = before.previousElementSibling;
      let next = el.nextElementSibling;
      while (next && !shown(next)) next = next.nextElementSibling;
      closing = !next && !!before && !/^(H[1-4]|DT)$/.test(before.tagName);
    }
    let text = el.innerText;
    if (kind === 'figure') {
      // An SVG's texts are not in innerText: its labels, then the caption.
      const labels = [...el.querySelectorAll('svg')].filter(shown)
        .flatMap(s => [...s.querySelectorAll('text')].map(t => t.textContent));
      text = labels.join(' ') + ' ' + (el.querySelector('figcaption')?.innerText || '');
    }
    let after = '';
    if (kind === 'heading') {
      // What the heading (or a glossary's term) introduces: the text after it, to the next;
      // past a short introduction (two paragraphs at most) to the first of its sub-sections,
      // that sub-section's first words: a section's heading and introduction alone at a page's
      // foot have none of the section's content under them.
      let n = el.nextElementSibling;
      let intro = 0;
      while (n && n.tagName === 'P' && intro < 2) { n = n.nextElementSibling; intro += 1; }
      const deeper = n && /^H[2-4]$/.test(n.tagName) && /^H[2-4]$/.test(tag)
        && n.tagName > tag;
      n = intro && deeper ? n.nextElementSibling : el.nextElementSibling;
      // The note right under a heading (a run's line) is kept with it, not its content: the
      // content is the block under the note, unless the note is all there is.
      let note = '';
      for (; n && !/^(H[1-4]|DT)$/.test(n.tagName); n = n.nextElementSibling) {
        if (!shown(n)) continue;
        // A figure's first words are its chart's labels (not in innerText); a table's, its
        // first row's, not its caption's (which prints under it).
        const svg = n.tagName === 'FIGURE' ? [...n.querySelectorAll('svg')].find(shown) : null;
        const table = n.tagName === 'TABLE' ? n : n.querySelector(':scope > table:first-child');
        const row = table && table.querySelector('tr');
        after = svg ? [...svg.querySelectorAll('text')].map(t => t.textContent).join(' ')
          : row ? row.innerText : (n.innerText || n.textContent);
        if (!note && n.tagName === 'P' && n.classList.contains('note')
            && n === el.nextElementSibling) { note = after; after = ''; continue; }
        if (after.trim()) break;
      }
      if (!after.trim()) after = note;
    }
    // A table's caption under it (its note), kept with its table.
    const caption = kind === 'para' && el.classList.contains('caption');
    // A chart that flows over pages keeps only its first rows together, with its head and foot.
    const high = s => s ? s.getBoundingClientRect().height : 0;
    const kept = kind === 'figure' && el.classList.contains('chart-print') ? high(el.querySelector(
      'thead')) + high(el.querySelector('tbody')) + high(el.querySelector('tfoot')) : 0;
    const contents = tag === 'NAV';
    const head = kind === 'row' && el.parentElement.tagName === 'THEAD';
    const row_height = kind === 'row' ? el.getBoundingClientRect().height : 0;
    out.push({kind, text, after, contents, table: table_index, rows, short, height, band, list,
              items, list_height, lead, closing, caption, kept, above: above(el), head,
              row_height});
  }
  return out;
}"""

#: Short code tokens (no space, hyphen or slash; at most SHORT_CODE characters) drawn over more
#: than one line in the page laid out for print: "seed=" / "0".
_BROKEN_CODE = """(most) => {
  const out = [];
  for (const el of document.querySelectorAll('code')) {
    const text = (el.textContent || '').trim();
    // A hyphen or a slash is where typography may break a token ("scripted-" / "likelihood").
    if (!text || /[\\s\\-\\/]/.test(text) || text.length > most) continue;
    if (el.getClientRects().length === 0) continue;
    const range = document.createRange();
    range.selectNodeContents(el);
    const tops = new Set([...range.getClientRects()].filter(r => r.width > 0.5)
      .map(r => Math.round(r.top)));
    if (tops.size > 1) out.push(text);
  }
  return out;
}"""


#: Marks, in a copy of the page laid out for print, every shown figure with words of its own at
#: its top and at the foot of its content, whatever it is drawn with (a chart, an image, text,
#: a table). A mark is generated content (an element added would change what :first-child or
#: :last-child match), out of the flow (absolutely positioned at its static place, in a 2 px
#: font): the page lays out as without it, which :func:`figure_problems` checks.
_MARK = """() => {
  const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const style = document.createElement('style');
  // A foot's mark is drawn in the last 2 px of the content, not under it: a figure that ends
  // at a page's foot keeps its mark on that page.
  style.textContent = `
    [data-qq]::before, [data-qq]::after {
      position: absolute; font: 2px/2px monospace; color: #000; white-space: nowrap;
      margin: 0; padding: 0; border: 0; }
    [data-qq]::before { content: "qqmark" attr(data-qq) "a"; }
    [data-qq]::after { content: "qqmark" attr(data-qq) "z"; margin-top: -2px; }
    [data-qr]::before { position: absolute; font: 2px/2px monospace; color: #000;
      content: "qqrow" attr(data-qr) "r"; }`;
  document.head.append(style);
  const out = [];
  for (const el of document.querySelectorAll('figure')) {
    if (!shown(el)) continue;
    // A chart printed as rows that flow over pages, its head and foot repeated on each.
    const flows = el.classList.contains('chart-print');
    // Its foot's last line (the axis' name), looked for on every page the chart runs over: a
    // mark in a repeated foot is drawn once, not on each page.
    const axis = flows ? [...el.querySelectorAll('tfoot text')].map(t => t.textContent) : [];
    el.setAttribute('data-qq', String(out.length));
    // Each row of a chart that flows, marked at its top; its height, and its head's and foot's.
    const rows = flows ? [...el.querySelectorAll('tbody tr > td')] : [];
    rows.forEach(td => td.setAttribute('data-qr', String(out.length)));
    const high = s => s ? s.getBoundingClientRect().height : 0;
    out.push({text: (el.innerText || el.textContent || '').trim().slice(0, 80), flows,
              foot: axis.length ? axis[axis.length - 1] : '',
              rows: rows.map(high), frame: high(el.querySelector('thead')) +
                high(el.querySelector('tfoot'))});
  }
  return out;
}"""
_MARKED = re.compile(r"qq(?:mark|row)(\d+)([azr])")


def _page_texts(printed: Printed) -> list[str]:
    """Each page's text without the marks, spaces dropped (a mark may split a word)."""
    pages = [""] * len(printed.heights)
    for word in printed.words:
        pages[word.page] += _MARKED.sub("", word.text)
    return pages


def figure_problems(pdf: Path, html_path: Path, browser: Any) -> list[str]:
    """Figures printed over two pages: ``html_path`` printed again as ``pdf`` was
    (:func:`diptych.core.report.pdf.print_pdf`), each figure marked (:data:`_MARK`); the
    marked print must hold the same text on each page as ``pdf``."""
    from diptych.core.report.pdf import PDF_OPTIONS

    page = browser.new_page()
    try:
        page.goto(html_path.resolve().as_uri(), wait_until="load")
        page.emulate_media(media="print")
        figures = page.evaluate(_MARK)
        with tempfile.TemporaryDirectory() as where:
            page.pdf(path=str(Path(where) / "marked.pdf"), **PDF_OPTIONS)
            marked = read_pdf(Path(where) / "marked.pdf")
    finally:
        page.close()
    if _page_texts(marked) != _page_texts(read_pdf(pdf)):
        return ["the marked print lays out other than the PDF: no figure was checked"]
    pages: dict[int, dict[str, set[int]]] = {}
    rows: dict[int, list[int]] = {}
    for word in marked.words:
        for m in _MARKED.finditer(word.text):
            pages.setdefault(int(m.group(1)), {}).setdefault(m.group(2), set()).add(word.page)
            if m.group(2) == "r":
                rows.setdefault(int(m.group(1)), []).append(word.page)
    room = _room(marked)[0]
    problems = []
    for n, figure in enumerate(figures):
        what = " ".join(figure["text"].split()[:8])
        on = pages.get(n, {})
        if not {"a", "z"} <= set(on):
            problems.append(f"figure not found on paper: “{what}”")
            continue
        both = on["a"] | on["z"]
        if figure["flows"]:
            span = range(min(both), max(both) + 1)
            foot = tokens_of(figure["foot"])
            feet = {
                n
                for n in span
                if foot and find([w for w in marked.words if w.page == n], foot, 0, 3)
            }
            parts = ChartParts(rows.get(n, []), figure["rows"], figure["frame"])
            problems += flow_problems(span, feet, room, what, parts)
        elif len(both) > 1:
            problems.append(
                f"figure split over pages {min(both) + 1} and {max(both) + 1}: “{what}”"
            )
    return problems


def paper_problems(pdf: Path, html_path: Path, browser: Any) -> list[str]:
    """Every problem of the paper checks of the PDF printed from ``html_path``."""
    printed = read_pdf(pdf)
    page = browser.new_page(viewport={"width": 688, "height": 1000})
    try:
        page.emulate_media(media="print")
        page.goto(html_path.resolve().as_uri(), wait_until="load")
        elements = page.evaluate(_ELEMENTS)
        broken = page.evaluate(_BROKEN_CODE, SHORT_CODE)
        parts = page.evaluate(table_parts())
        kept = whole_word_problems(page, html_path.parent, printed.words)
        kept += contents_problems(page, printed.words)
    finally:
        page.close()
    problems: list[str] = [f"“{code}” broken over two lines" for code in broken]
    problems += kept + broken_option_problems(printed.words)
    problems += part_problems(parts)
    placed = place(printed.words, elements)
    # Each table's rows as found, in order: (first word, last word, page of each, tokens).
    tables: dict[int, list[tuple[int, int, int, int, int]]] = {}
    short: dict[int, tuple[int, float, str]] = {}
    pages = len(printed.heights)
    for p in placed:
        element = p.element
        tokens = tokens_of(element["text"])
        window = 2 if element["kind"] == "heading" else 10
        # A row in the split-table check is one found by all its words, not its first few.
        whole = (
            len(tokens) <= 12
            or (find(printed.words, tokens, p.first, window) or (-1,))[0] == p.first
        )
        if element["kind"] == "row" and element["table"] >= 0 and whole:
            tables.setdefault(element["table"], []).append(
                (p.first, p.last, p.page, p.end_page, len(tokens))
            )
            short.setdefault(element["table"], (element["rows"], element["height"], p.what))
        if element["kind"] == "row" and p.page != p.end_page:
            problems.append(f"row split over pages {p.page + 1} and {p.end_page + 1}: “{p.what}”")
        if element["kind"] == "heading" and p.page < pages - 1:
            problems += _heading_problems(printed, p)
        if element["kind"] == "para" and p.page != p.end_page:
            problems += _paragraph_problems(printed, p)
    for table, found_rows in tables.items():
        rows, height, what = short[table]
        # A break between two of its rows found one right after the other (a row matched far
        # away is another passage's words, not a split).
        breaks = [
            (one[3], two[2])
            for one, two in zip(found_rows, found_rows[1:], strict=False)
            if two[2] > one[3] and two[0] - one[1] <= two[4] + 10
        ]
        if (rows <= SHORT_TABLE or 0 < height <= PAGE_TABLE) and breaks:
            problems.append(
                f"table of {rows} rows split over pages {breaks[0][0] + 1} and "
                f"{breaks[0][1] + 1} ({height:.0f} px high; one up to {PAGE_TABLE:.0f} prints "
                f"on one page): “{what}”"
            )
    problems += item_problems(placed) + table_start_problems(placed)
    problems += note_problems(placed, [w.page for w in printed.words])
    problems += band_problems(placed)
    problems += figure_problems(pdf, html_path, browser)
    fills = [page_fill(printed, n) for n in range(pages)]
    for n in range(pages - 1):
        if fills[n] < LEAST_FILL:
            problems.append(f"page {n + 1} of {pages} is {fills[n]:.0%} full")
    room = _room(printed)
    problems += thin_page_problems(placed, fills, *room) + chart_start_problems(placed, *room)
    problems += last_page_problems(room[0], room[3], text_above(placed, pages - 1, *room[2:]))
    problems += lone_last_section(placed, fills)
    return problems


def _heading_problems(printed: Printed, p: Placed) -> list[str]:
    """A heading whose content (the first words after it) prints on a later page, wherever on
    its page the heading is; one in the bottom fifth with no content found after it."""
    a = printed.words[p.first]
    after = tokens_of(p.element["after"])[:3]
    under = find(printed.words, after, p.last + 1) if after else None
    if under is not None:
        # A report prints some headings twice (a review's tables again in Appendix B): words
        # found after the heading's next print are that one's content, not this one's.
        again = find(printed.words, tokens_of(p.element["text"]), p.last + 1, 2)
        if again is not None and again[0] < under[0]:
            under = None
    foot = a.y0 > printed.heights[a.page] * (1 - FOOT)
    if under is None and not foot:
        return []
    on = printed.words[under[0]].page if under is not None else a.page + 1
    if on == a.page:
        return []
    where = "in the bottom fifth of" if foot else "on"
    return [f"heading “{p.what}” {where} page {a.page + 1}, its content on page {on + 1}"]


def _paragraph_problems(printed: Printed, p: Placed) -> list[str]:
    """A paragraph of :data:`LINE_SPLIT` lines or fewer split over two pages (a run's line, one
    on each; a note of three, two and one), or a table's caption (read with its table) split at
    all, however many lines it has."""
    feet: dict[int, list[float]] = {}
    for word in printed.words[p.first : p.last + 1]:
        feet.setdefault(word.page, []).append(word.y1)
    lines = [_lines(feet[n]) for n in sorted(feet)]
    whole = p.element.get("caption")
    if not whole and sum(lines) > LINE_SPLIT:
        return []
    on = ", ".join(f"{n} on page {page + 1}" for n, page in zip(lines, sorted(feet), strict=True))
    return [f"paragraph split over pages {p.page + 1} and {p.end_page + 1} ({on}): “{p.what}”"]


def _lines(feet: list[float]) -> int:
    """How many lines words with these feet print on: a foot more than a few points under the
    one before starts a line (a code token's foot is a little lower than its line's words)."""
    ordered = sorted(feet)
    return sum(1 for n, y in enumerate(ordered) if n == 0 or y - ordered[n - 1] > LINE_GAP)


def _room(
    printed: Printed,
) -> tuple[list[float], list[float], dict[int, float], dict[int, list[float]], dict[int, float]]:
    """Under each page's last word, the room left in its column; where each column starts (the
    report's margin, or a page's first word where it prints above it); each word's foot; each
    page's line feet, top to bottom; each word's top."""
    room, tops = [], []
    lines: dict[int, list[float]] = {}
    for n, height in enumerate(printed.heights):
        words = [w for w in printed.words if w.page == n]
        feet = sorted({round(w.y1, 1) for w in words})
        lines[n] = feet
        tops.append(min([PAGE_MARGIN_TOP, *(w.y0 for w in words)]))
        room.append(height - PAGE_MARGIN_TOP - (feet[-1] if feet else PAGE_MARGIN_TOP))
    bottoms = {i: w.y1 for i, w in enumerate(printed.words)}
    return room, tops, bottoms, lines, {i: w.y0 for i, w in enumerate(printed.words)}
