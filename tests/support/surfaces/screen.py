"""The report on a screen, measured in Chromium at a phone's width and a laptop's: nothing wider
than its box unless it is a table that says it scrolls and keeps its first column in view, a
table's hint that it scrolls shown exactly when it does, every caption wrapped within the
window and outside any box that scrolls sideways, an interval never wrapped between its
bounds nor sharing a line with words nor, in a table of five columns or fewer, cut by a scroll
box's edge on first view, no header cell over four lines, a chart taller than the window with
its tick labels above it as well as under it, no text under 12 px, no two text boxes over each
other.
:func:`tables_scrolling` finds a table that scrolls at a laptop's width (the scope table's test
runs it; the five-run audit's tables of annotators, identities and models, 1,024 to 1,174 px
of numbers and intervals in a 920 px box, still do)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.surfaces.contents import contents_problems
from tests.support.surfaces.ids import RUN_IDS, report_ids
from tests.support.surfaces.whole_intervals import breakable_intervals

#: The sizes a reader opens the report at.
VIEWPORTS = {"phone": (390, 844), "laptop": (1280, 800)}
#: The smallest text a phone reads without zooming, in CSS px (charts scaled to fit included).
SMALLEST_TEXT = 12.0

#: Every element whose content is wider than its box; for each, whether it is a scrolling
#: table box that says so (a visible hint naming the scroll and the first column it keeps in
#: view, as :func:`~tests.support.surfaces.text.hint_problems` reads every hint) and keeps its
#: first column in view.
_WIDER = """() => {
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const style = getComputedStyle(el);
    if (style.display === 'inline' || style.display === 'none' || el.closest('svg')) continue;
    if (el.getClientRects().length === 0) continue;
    if (el.scrollWidth <= el.clientWidth + 1) continue;
    const table = el.querySelector(':scope > table');
    const scrolls = ['auto', 'scroll'].includes(style.overflowX);
    const hint = el.parentElement && [...el.parentElement.querySelectorAll('.scroll-hint')]
      .some(h => h.getClientRects().length > 0 && /scroll/i.test(h.textContent)
                 && /first column/i.test(h.textContent));
    const first = table ? [...table.querySelectorAll('tr > :first-child')] : [];
    const sticky = first.length > 0 && first.every(c => getComputedStyle(c).position === 'sticky');
    // A sticky first column must stay in view: scroll to the end and measure it.
    let inView = false;
    if (sticky) {
      const before = el.scrollLeft;
      el.scrollLeft = el.scrollWidth;
      const box = el.getBoundingClientRect();
      const cell = first[0].getBoundingClientRect();
      inView = cell.left >= box.left - 1 && cell.right <= box.right + 1;
      el.scrollLeft = before;
    }
    if (table && scrolls && hint && sticky && inView) continue;
    out.push({tag: el.tagName.toLowerCase(), id: el.id, cls: el.className && String(el.className),
              text: (el.innerText || '').slice(0, 60), scroll: el.scrollWidth,
              client: el.clientWidth, table: !!table, scrolls, hint: !!hint, sticky, inView});
  }
  return out;
}"""

#: Every visible text run: its boxes (one per line) and its drawn size (an SVG's text scaled as
#: the SVG is scaled to its box).
_TEXTS = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    if (!node.textContent.trim()) continue;
    const el = node.parentElement;
    if (!el || el.closest('style, script, title, desc')) continue;
    // The content of a closed <details> is not drawn.
    const details = el.closest('details');
    if (details && !details.open && !el.closest('summary')) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || el.getClientRects().length === 0) continue;
    let size = parseFloat(style.fontSize);
    const svg = el.closest('svg');
    if (svg && svg.viewBox && svg.viewBox.baseVal && svg.viewBox.baseVal.width) {
      size *= svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    }
    const range = document.createRange();
    range.selectNodeContents(node);
    // The part of a box a scrolling ancestor shows: text scrolled out of view is not drawn.
    let clip = null;
    for (let a = el.parentElement; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (['auto', 'scroll', 'hidden'].includes(s.overflowX)) {
        const r = a.getBoundingClientRect();
        clip = clip ? {l: Math.max(clip.l, r.left), r: Math.min(clip.r, r.right)}
                    : {l: r.left, r: r.right};
      }
    }
    const cell = el.closest('td, th');
    const sticky = !!cell && getComputedStyle(cell).position === 'sticky';
    for (const r of range.getClientRects()) {
      if (r.width < 0.5 || r.height < 0.5) continue;
      let x0 = r.left, x1 = r.right;
      if (clip) { x0 = Math.max(x0, clip.l); x1 = Math.min(x1, clip.r); }
      if (x1 - x0 < 0.5) continue;
      out.push({text: node.textContent.trim().slice(0, 40), x0, x1,
                y0: r.top + window.scrollY, y1: r.bottom + window.scrollY, size,
                sticky, cell: cell ? 1 : 0});
    }
  }
  return out;
}"""


#: Each table's scroll hint: whether it is shown, and whether the box under it scrolls.
_HINTS = """() => [...document.querySelectorAll('.scroll-hint')].map(h => {
  const box = h.nextElementSibling;
  return {shown: h.getClientRects().length > 0,
          scrolls: !!box && box.scrollWidth > box.clientWidth + 1,
          text: box ? (box.innerText || '').trim().slice(0, 60) : ''};
})"""

#: Every interval "[low, high]" in a table cell: the lines its bounds are drawn on, and whether
#: words (a name) in the same cell are drawn on one of those lines.
_INTERVALS = r"""() => {
  const out = [];
  const lines = rects => [...new Set([...rects].filter(r => r.width > 0.5)
    .map(r => Math.round(r.top)))];
  for (const cell of document.querySelectorAll('td, th')) {
    if (cell.getClientRects().length === 0) continue;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    const nodes = [];
    let node;
    while ((node = walker.nextNode())) nodes.push(node);
    for (const n of nodes) {
      const m = /\[[^\]\[]*,[^\]\[]*\]/.exec(n.textContent);
      if (!m) continue;
      const range = document.createRange();
      range.setStart(n, m.index);
      range.setEnd(n, m.index + m[0].length);
      const tops = lines(range.getClientRects());
      const box = range.getBoundingClientRect();
      let joined = false;
      for (const other of nodes) {
        const words = other === n ? other.textContent.slice(m.index + m[0].length)
                                  : other.textContent;
        if (!/[A-Za-z]{3}/.test(words)) continue;
        const r = document.createRange();
        if (other === n) { r.setStart(n, m.index + m[0].length); r.setEnd(n, n.length); }
        else r.selectNodeContents(other);
        for (const w of r.getClientRects()) {
          if (w.width > 0.5 && Math.min(w.bottom, box.bottom) - Math.max(w.top, box.top) > 2)
            joined = true;
        }
      }
      out.push({text: m[0], lines: tops.length, joined,
                cell: (cell.innerText || '').trim().slice(0, 60)});
    }
  }
  return out;
}"""


#: Every shown caption (a table's, a figure's): whether a box that scrolls sideways holds it
#: (it scrolls away with the table), and whether it runs past the window's right edge.
_CAPTIONS = """() => {
  const out = [];
  for (const el of document.querySelectorAll('caption, p.caption, figcaption')) {
    if (el.getClientRects().length === 0) continue;
    let scroller = null;
    for (let a = el.parentElement; a; a = a.parentElement) {
      if (['auto', 'scroll'].includes(getComputedStyle(a).overflowX)
          && a.scrollWidth > a.clientWidth + 1) { scroller = a; break; }
    }
    const r = el.getBoundingClientRect();
    out.push({text: (el.innerText || '').trim().slice(0, 60), scrolls: !!scroller,
              right: r.right, width: document.documentElement.clientWidth});
  }
  return out;
}"""


def captions_off_screen(page: Any) -> list[str]:
    """A caption in a box that scrolls sideways, or wider than the window: a reader must
    scroll to read it, and it scrolls away from the table's first column."""
    out = []
    for c in page.evaluate(_CAPTIONS):
        if c["scrolls"]:
            out.append(f"caption in a box that scrolls sideways: “{c['text']}”")
        elif c["right"] > c["width"] + 1:
            out.append(f"caption past the window's edge ({c['right']:.0f} px): “{c['text']}”")
    return out


def hints_wrong(page: Any) -> list[str]:
    """A hint over a table that fits, or a table that scrolls without its hint."""
    return [
        f"“{h['text']}”: {'hint shown' if h['shown'] else 'no hint'} over a table that "
        f"{'scrolls' if h['scrolls'] else 'fits'}"
        for h in page.evaluate(_HINTS)
        if h["shown"] != h["scrolls"]
    ]


def intervals_broken(page: Any) -> list[str]:
    """An interval wrapped between its bounds, or printed on one line with its name."""
    out = []
    for i in page.evaluate(_INTERVALS):
        if i["lines"] > 1:
            out.append(f"interval {i['text']} wrapped over {i['lines']} lines: “{i['cell']}”")
        if i["joined"]:
            out.append(f"interval {i['text']} on one line with words: “{i['cell']}”")
    return out


#: Every table box that scrolls sideways: its width and its content's.
_SCROLLING = """() => [...document.querySelectorAll('.scroll')]
  .filter(d => d.getClientRects().length > 0 && d.scrollWidth > d.clientWidth + 1)
  .map(d => ({scroll: d.scrollWidth, client: d.clientWidth,
              text: (d.querySelector('th, td') || d).innerText.slice(0, 40)}))"""


def tables_scrolling(page: Any) -> list[str]:
    """A table that scrolls sideways where the window is a laptop's: its cells should wrap
    (a cell kept on one line that is words, not a number, pushes the columns after it out of
    view)."""
    return [
        f"a table scrolls sideways ({t['scroll']} px in a {t['client']} px box): “{t['text']}”"
        for t in page.evaluate(_SCROLLING)
    ]


def wider_than_their_box(page: Any) -> list[str]:
    found = page.evaluate(_WIDER)
    return [
        f"<{w['tag']} id={w['id']!r} class={w['cls']!r}> content {w['scroll']} px in a "
        f"{w['client']} px box ({'a table' if w['table'] else 'not a table'}"
        f"{'' if w['hint'] else ', no hint that it scrolls'}"
        f"{'' if w['sticky'] else ', first column not sticky'}): “{w['text']}”"
        for w in found
    ]


def small_text(texts: list[dict[str, Any]]) -> list[str]:
    # Strict: 11.968 px (a run id's code at .88em of a 13.6 px note) is under 12, though it
    # rounds to 12.0; only float noise below the last thousandth is let through.
    return [
        f"“{t['text']}” drawn at {t['size']:.3f} px"
        for t in texts
        if round(t["size"], 3) < SMALLEST_TEXT
    ]


def overlapping(texts: list[dict[str, Any]], slack: float = 0.5) -> list[str]:
    """Pairs of text boxes that cover each other by more than ``slack`` px each way; a sticky
    first column is drawn over the cells scrolling under it, which is what it is for."""
    boxes = sorted(texts, key=lambda t: t["y0"])
    out = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if b["y0"] >= a["y1"] - slack:
                break
            if a["sticky"] != b["sticky"] and a["cell"] and b["cell"]:
                continue
            if min(a["x1"], b["x1"]) - max(a["x0"], b["x0"]) > slack and (
                min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]) > slack
            ):
                out.append(f"“{a['text']}” over “{b['text']}”")
    return out


#: The most columns a table of figures and intervals has and still fits a phone's 390 px (a
#: label, two figures and their intervals): a wider one scrolls, says so and keeps its first
#: column in view, and its box's edge may run through anything in it.
FITS_A_PHONE = 5
#: Every interval in a table box of at most ``FITS`` columns that scrolls sideways, as the page
#: first shows it: whether the box's visible edge runs through it ("[41.9," in view, the rest
#: out of it).
_AT_THE_EDGE = r"""FITS => {
  const out = [];
  for (const box of document.querySelectorAll('.scroll')) {
    if (box.getClientRects().length === 0 || box.scrollWidth <= box.clientWidth + 1) continue;
    const row = box.querySelector('tr');
    if (!row || row.children.length > FITS) continue;
    const b = box.getBoundingClientRect();
    const right = b.left + box.clientLeft + box.clientWidth;
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    let node;
    while ((node = walker.nextNode())) {
      const re = /\[[^\]\[]*,[^\]\[]*\]/g;
      let m;
      while ((m = re.exec(node.textContent))) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const r = range.getBoundingClientRect();
        if (r.left < right - 1 && r.right > right + 1)
          out.push({text: m[0], shown: Math.round(right - r.left), width: Math.round(r.width),
                    columns: row.children.length, over: box.scrollWidth - box.clientWidth});
      }
    }
  }
  return out;
}"""

#: Every table header cell: how many lines its words take.
_HEADER_LINES = r"""() => [...document.querySelectorAll('th')]
  .filter(th => th.getClientRects().length > 0 && th.innerText.trim())
  .map(th => {
    const range = document.createRange();
    range.selectNodeContents(th);
    const tops = new Set([...range.getClientRects()].filter(r => r.width > 0.5)
      .map(r => Math.round(r.top)));
    return {text: th.innerText.trim().replace(/\s+/g, ' '), lines: tops.size};
  })"""
#: The most lines a header cell may take: more, and one word a line makes a band of header
#: taller than the rows it names, mostly empty beside it.
HEADER_LINES = 4

#: Every chart drawn taller than the window: whether tick labels (numbers centred on their
#: tick) stand above its first row as well as under its last.
_TALL_CHARTS = r"""() => [...document.querySelectorAll('svg.chart')]
  .filter(svg => svg.getClientRects().length > 0
          && svg.getBoundingClientRect().height > window.innerHeight)
  .map(svg => {
    const box = svg.getBoundingClientRect();
    const ticks = [...svg.querySelectorAll('text[text-anchor="middle"]')]
      .filter(t => /^[−-]?\d+(\.\d+)?$/.test(t.textContent.trim()))
      .map(t => t.getBoundingClientRect().top - box.top);
    // The row bands: rectangles as wide as the chart, after its background.
    const rows = [...svg.querySelectorAll('rect')]
      .filter(r => r.getAttribute('width') === svg.getAttribute('width')).slice(1)
      .map(r => r.getBoundingClientRect());
    const first = rows.length ? Math.min(...rows.map(r => r.top - box.top)) : box.height;
    return {id: svg.id, height: Math.round(box.height),
            above: ticks.some(y => y < first), below: ticks.some(y => y > first)};
  })"""


def intervals_at_the_edge(page: Any) -> list[str]:
    """An interval cut by the visible edge of a scrolling table that should fit a phone (at
    most :data:`FITS_A_PHONE` columns) on first view: a reader sees its low bound and not its
    high one."""
    return [
        f"interval {i['text']} cut by its scroll box's edge ({i['shown']} of {i['width']} px "
        f"in view; {i['columns']} columns, {i['over']} px over)"
        for i in page.evaluate(_AT_THE_EDGE, FITS_A_PHONE)
    ]


def tall_headers(page: Any) -> list[str]:
    return [
        f"header “{h['text']}” wraps over {h['lines']} lines"
        for h in page.evaluate(_HEADER_LINES)
        if h["lines"] > HEADER_LINES
    ]


def axis_only_below(page: Any) -> list[str]:
    """A chart taller than the window with its tick labels only under its rows: at its top a
    reader cannot tell where a value lies."""
    return [
        f"chart {c['id']!r} ({c['height']} px) has its tick labels only "
        f"{'under' if c['below'] else 'over'} its rows"
        for c in page.evaluate(_TALL_CHARTS)
        if not (c["above"] and c["below"])
    ]


#: Each of the ids given printed over two lines anywhere in the page's text (a chart's aside).
_IDS_BROKEN = """(ids) => {
  const nodes = [], starts = [];
  let text = '';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const n = walker.currentNode;
    if (n.parentElement.closest('svg, script, style')) continue;
    nodes.push(n); starts.push(text.length); text += n.data;
  }
  const at = (i) => {
    let k = starts.length - 1;
    while (k > 0 && starts[k] > i) k--;
    return [nodes[k], i - starts[k]];
  };
  const out = new Set();
  for (const id of ids) {
    for (let i = text.indexOf(id); i >= 0; i = text.indexOf(id, i + 1)) {
      if (/[\\w-]/.test(text[i - 1] || '') || /\\w/.test(text[i + id.length] || '')) continue;
      const range = document.createRange();
      range.setStart(...at(i));
      range.setEnd(...at(i + id.length - 1));
      range.setEnd(range.endContainer, range.endOffset + 1);
      const rects = [...range.getClientRects()].filter(r => r.width > 0);
      if (rects.some(r => r.top >= rects[0].bottom - 1)) out.add(id);
    }
  }
  return [...out];
}"""


def ids_broken(page: Any, ids: list[str]) -> list[str]:
    """Each of ``ids`` (a run id, an audit's id) printed over two lines, where a reader copying
    it from the page gets half of it."""
    return [f"“{i}” broken over two lines" for i in page.evaluate(_IDS_BROKEN, ids)]


def screen_problems(html: Path, browser: Any) -> list[str]:
    """Every problem of the screen checks, at each of :data:`VIEWPORTS`."""
    problems = []
    for name, (width, height) in VIEWPORTS.items():
        page = browser.new_page(viewport={"width": width, "height": height})
        try:
            page.goto(html.resolve().as_uri(), wait_until="load")
            problems += [f"{name}: {p}" for p in wider_than_their_box(page)]
            problems += [f"{name}: {p}" for p in hints_wrong(page)]
            problems += [f"{name}: {p}" for p in captions_off_screen(page)]
            problems += [f"{name}: {p}" for p in intervals_broken(page)]
            problems += [f"{name}: {p}" for p in breakable_intervals(page)]
            problems += [f"{name}: {p}" for p in contents_problems(page)]
            problems += [f"{name}: {p}" for p in intervals_at_the_edge(page)]
            problems += [f"{name}: {p}" for p in tall_headers(page)]
            problems += [f"{name}: {p}" for p in axis_only_below(page)]
            ids = report_ids(html.parent, page.evaluate(RUN_IDS))
            problems += [f"{name}: {p}" for p in ids_broken(page, ids)]
            texts = page.evaluate(_TEXTS)
            problems += [f"{name}: {p}" for p in small_text(texts)]
            problems += [f"{name}: {p}" for p in overlapping(texts)]
        finally:
            page.close()
    return problems
