"""The manual's side navigation on a screen: no two of its text boxes over each other, as the
reader sees them (the drawer opened on a phone, the list scrolled to the page being read)."""

from __future__ import annotations

from typing import Any

from tests.support.surfaces.screen import overlapping

#: Every drawn text run of the primary navigation, one box per line, cut to what its scrolling
#: ancestors and the window show. A run wholly under another panel (a phone's drawer slides the
#: open section over the level above it) is not drawn; one only partly under something, such
#: as an item half scrolled under a title that sticks, is, and counts against what covers it.
_NAV_TEXTS = """() => {
  const out = [];
  const nav = document.querySelector('.md-nav--primary');
  if (!nav) return out;
  const walker = document.createTreeWalker(nav, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    if (!node.textContent.trim()) continue;
    const el = node.parentElement;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || el.getClientRects().length === 0) continue;
    let clip = {l: 0, r: window.innerWidth, t: 0, b: window.innerHeight};
    let drawn = true;
    for (let a = el; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (parseFloat(s.opacity) === 0) drawn = false;
      if (a !== el && (s.overflowX !== 'visible' || s.overflowY !== 'visible')) {
        const r = a.getBoundingClientRect();
        clip = {l: Math.max(clip.l, r.left), r: Math.min(clip.r, r.right),
                t: Math.max(clip.t, r.top), b: Math.min(clip.b, r.bottom)};
      }
    }
    if (!drawn) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      const x0 = Math.max(r.left, clip.l), x1 = Math.min(r.right, clip.r);
      const y0 = Math.max(r.top, clip.t), y1 = Math.min(r.bottom, clip.b);
      if (x1 - x0 < 0.5 || y1 - y0 < 0.5) continue;
      const points = [[(x0 + x1) / 2, (y0 + y1) / 2], [x0 + 1, y0 + 1], [x1 - 1, y0 + 1],
                      [x0 + 1, y1 - 1], [x1 - 1, y1 - 1]];
      const covered = points.every(([x, y]) => {
        const hit = document.elementFromPoint(x, y);
        return !!hit && !el.contains(hit) && !hit.contains(el);
      });
      if (covered) continue;
      out.push({text: node.textContent.trim().slice(0, 40), x0, x1, y0, y1,
                sticky: false, cell: 0});
    }
  }
  return out;
}"""


def nav_texts(page: Any) -> list[dict[str, Any]]:
    """The navigation's drawn text boxes on ``page`` as it is now."""
    return list(page.evaluate(_NAV_TEXTS))


def nav_overlaps(page: Any) -> list[str]:
    """Pairs of the navigation's text boxes drawn over each other."""
    return overlapping(nav_texts(page))
