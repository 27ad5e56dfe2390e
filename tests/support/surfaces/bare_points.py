"""A chart's points drawn without an interval bar, read in the written page: each says why,
and its caption says where truly ("on every row" only where every row of the chart has one)."""

from __future__ import annotations

import html
import re

_FIGURE = re.compile(r"<figure\b.*?</figure>", re.DOTALL)
_DESC = re.compile(r"<desc\b[^>]*>(.*?)</desc>", re.DOTALL)
_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title>", re.DOTALL)
_CAPTION = re.compile(r"<figcaption\b[^>]*>(.*?)(?:<details|</figcaption>)", re.DOTALL)


def bare_point_problems(page: str) -> list[str]:
    """Charts with a point drawn without an interval bar (its text alternative says "no
    interval") where nothing says why: the point's reason missing, or the caption under the
    chart (on screen, and under each part printed) not saying which points have no bar and
    why ("No interval bar for single, on every row: one prompt only.")."""
    out = []
    for figure in _FIGURE.finditer(page):
        block = figure.group(0)
        desc = " ".join(html.unescape(d) for d in _DESC.findall(block))
        if "(no interval" not in desc:
            continue
        title = html.unescape(next(iter(_TITLE.findall(block)), "")).strip()
        caption = re.sub(r"<[^>]+>", "", next(iter(_CAPTION.findall(block)), ""))
        caption = " ".join(html.unescape(caption).split())
        if "(no interval)" in desc or "no reason given" in caption:
            out.append(f"chart “{title}”: a point with no interval bar and no reason")
        elif "No interval bar" not in caption:
            out.append(f"chart “{title}”: points with no interval bar, its caption says not why")
        out += [f"chart “{title}”: {p}" for p in _every_row_problems(desc, caption)]
    return out


def _every_row_problems(desc: str, caption: str) -> list[str]:
    """A caption that says a series has no bar "on every row" where its text alternative
    ("Forest plot of … by …, 12 rows; …") draws fewer of its points without one."""
    rows = re.search(r", (\d[\d,]*) rows[;.]", desc)
    if rows is None:
        return []
    total = int(rows.group(1).replace(",", ""))
    out = []
    for m in re.finditer(r"(?:for ([^,;:]+), )?on every row", caption):
        series = m.group(1)
        bare = (
            len(re.findall(rf"(?:: |; ){re.escape(series)} \S+ \(no interval", desc))
            if series
            else desc.count("(no interval")
        )
        if bare < total:
            out.append(
                f"its caption says “{m.group(0)}” where {bare} of its {total} rows have no bar"
            )
    return out
