"""The HTML report as a person reads it: opened in headless Chromium (Debian's ``chromium``,
driven by Playwright), on a laptop and a phone, and printed to PDF."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

#: axe-core (MPL-2.0, Deque Systems), vendored with its license: the accessibility rules
#: Chromium is checked against, offline.
AXE = Path(__file__).parent / "data" / "axe-core" / "axe.min.js"

VIEWPORTS = {"laptop": (1280, 800), "phone": (390, 844)}


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_renders_with_every_image_and_the_headline_above_the_fold(
    report_dir: Path, browser: Any, viewport: str
) -> None:
    width, height = VIEWPORTS[viewport]
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto((report_dir / "report.html").as_uri(), wait_until="load")
    assert errors == []
    # Nothing but the page itself and its data URIs: the report fetches nothing.
    assert all(u.startswith(("file:", "data:")) for u in requests)
    images = page.eval_on_selector_all("img", "els => els.map(e => [e.complete, e.naturalWidth])")
    assert len(images) >= 4
    assert all(done and w > 0 for done, w in images)
    # The verdict block opens the page: its first finding and its top sit in the first screen.
    verdict = page.locator("#verdict")
    assert verdict.is_visible()
    box = verdict.bounding_box()
    assert box is not None and box["y"] < height / 2
    first = page.locator("#verdict li").first.bounding_box()
    assert first is not None and first["y"] + first["height"] <= height
    # The page fits the phone's width: tables scroll in their own box, not the page.
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= width + 1
    # One page as PNG in the test output, for a person to look at.
    shot = report_dir / f"report-{viewport}.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 1000
    page.close()


def test_every_link_inside_the_document_resolves(report_dir: Path, browser: Any) -> None:
    page = browser.new_page()
    page.goto((report_dir / "report.html").as_uri(), wait_until="load")
    targets = page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))")
    assert len(targets) > 10
    # Inside the document every link is to a part of it; the only others are the published
    # sources the frameworks appendix cites (the law, the standards), over https.
    inside = [t for t in targets if t.startswith("#")]
    assert [t for t in targets if t not in inside and not t.startswith("https://")] == []
    ids = set(page.eval_on_selector_all("[id]", "els => els.map(e => e.id)"))
    assert [t for t in inside if t[1:] not in ids] == []
    duplicated = page.evaluate(
        "() => { const s = {}; for (const e of document.querySelectorAll('[id]')) "
        "s[e.id] = (s[e.id] || 0) + 1; return Object.keys(s).filter(k => s[k] > 1); }"
    )
    assert duplicated == []
    page.close()


def test_the_pdf_prints(report_dir: Path) -> None:
    pdf = (report_dir / "report.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and len(pdf) > 20_000
    assert pdf.rstrip().endswith(b"%%EOF")


def test_axe_core_finds_no_serious_or_critical_violation(report_dir: Path, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto((report_dir / "report.html").as_uri(), wait_until="load")
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    result = page.evaluate(
        "async () => { const r = await axe.run(document, {resultTypes: ['violations']});"
        " return {v: r.violations.map(v => [v.id, v.impact, v.nodes.length]),"
        " passes: r.passes.length, version: axe.version}; }"
    )
    serious = [v for v in result["v"] if v[1] in ("serious", "critical")]
    assert serious == [], serious
    assert result["version"].startswith("4.") and result["passes"] > 10
    page.close()


def test_every_chart_has_a_text_alternative_that_states_its_numbers(
    report_dir: Path, browser: Any
) -> None:
    page = browser.new_page()
    page.goto((report_dir / "report.html").as_uri(), wait_until="load")
    charts = page.eval_on_selector_all(
        "svg.chart",
        "els => els.map(e => [e.getAttribute('role'), e.getAttribute('aria-labelledby')"
        ".split(' ').map(id => document.getElementById(id).textContent).join(' ')])",
    )
    assert len(charts) >= 4
    for role, name in charts:
        assert role == "img"
        assert re.search(r"-?\d+\.\d", name), name
        assert "95% interval" in name
    images = page.eval_on_selector_all("img", "els => els.map(e => e.getAttribute('alt'))")
    assert all(alt and alt.strip() for alt in images)
    page.close()


def test_headings_form_an_outline(report_dir: Path, browser: Any) -> None:
    page = browser.new_page()
    page.goto((report_dir / "report.html").as_uri(), wait_until="load")
    levels = page.eval_on_selector_all(
        "h1, h2, h3, h4, h5, h6", "els => els.map(e => Number(e.tagName[1]))"
    )
    assert levels[0] == 1 and levels.count(1) == 1
    assert all(b <= a + 1 for a, b in zip(levels, levels[1:], strict=False)), levels
    page.close()


def test_printing_keeps_each_chart_on_one_page(report_dir: Path, browser: Any) -> None:
    page = browser.new_page()
    page.goto((report_dir / "report.html").as_uri(), wait_until="load")
    page.emulate_media(media="print")
    styles = page.eval_on_selector_all(
        "figure.chart-figure",
        "els => els.map(e => getComputedStyle(e).breakInside)",
    )
    assert styles and set(styles) == {"avoid"}
    # Every chart fits an A4 page's printable height (about 1000 CSS px at 96 dpi).
    heights = page.eval_on_selector_all(
        "figure.chart-figure svg", "els => els.map(e => e.getBoundingClientRect().height)"
    )
    assert heights and max(heights) < 1000
    assert (report_dir / "report.pdf").stat().st_size > 10_000
    page.close()


def test_the_first_screen_is_saved_beside_the_report(report_dir: Path) -> None:
    from diptych.core.report.screenshot import FIRST_SCREEN, main

    assert main([str(report_dir)]) == 0
    png = (report_dir / FIRST_SCREEN).read_bytes()
    # PNG header: width and height of the 1280×800 first screen.
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(png[16:20], "big") == 1280 and int.from_bytes(png[20:24], "big") == 800


#: Every text of every chart the page shows: its box on the page and its drawn size (the
#: font size scaled as the SVG is scaled to fit its box).
CHART_TEXTS = """() => [...document.querySelectorAll('svg.chart')]
  .filter(svg => svg.getBoundingClientRect().width > 0)
  .map(svg => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return {id: svg.id, texts: [...svg.querySelectorAll('text')].map(t => {
      const r = t.getBoundingClientRect();
      return {text: t.textContent, x0: r.left, y0: r.top, x1: r.right, y1: r.bottom,
              size: parseFloat(getComputedStyle(t).fontSize) * scale};
    })};
  })"""


def _overlapping(texts: list[dict[str, Any]]) -> list[tuple[str, str]]:
    out = []
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            # Half a pixel of slack: neighbouring lines may touch, never cover each other.
            if min(a["x1"], b["x1"]) - max(a["x0"], b["x0"]) > 0.5 and (
                min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]) > 0.5
            ):
                out.append((a["text"], b["text"]))
    return out


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_chart_labels_never_overlap_and_read_at_11_px(
    report_dir: Path, browser: Any, viewport: str
) -> None:
    width, height = VIEWPORTS[viewport]
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto((report_dir / "report.html").as_uri(), wait_until="load")
    charts = page.evaluate(CHART_TEXTS)
    figures = page.eval_on_selector_all("figure.chart-figure", "els => els.length")
    # One layout of each chart is shown: beside the plot on a laptop, above it on a phone.
    assert len(charts) == figures >= 4
    layout = "chart-narrow" if viewport == "phone" else "chart-wide"
    shown = page.eval_on_selector_all(
        "svg.chart",
        "els => els.filter(e => e.getBoundingClientRect().width > 0)"
        ".map(e => e.getAttribute('class'))",
    )
    assert all(layout in c for c in shown)
    for chart in charts:
        texts = chart["texts"]
        assert len(texts) >= 5, chart["id"]
        assert _overlapping(texts) == [], chart["id"]
        smallest = min(t["size"] for t in texts)
        assert smallest >= 11, (chart["id"], smallest)
        # Every text lies inside the page's width: nothing is cut at the screen's edge.
        assert max(t["x1"] for t in texts) <= width and min(t["x0"] for t in texts) >= 0
    page.close()


def test_a_run_id_in_the_scope_table_stays_on_one_line_on_a_phone(
    report_dir: Path, browser: Any
) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto((report_dir / "report.html").as_uri(), wait_until="load")
    lines = page.eval_on_selector_all(
        "#methods table code.run-id", "els => els.map(e => e.getClientRects().length)"
    )
    assert len(lines) == 5 and set(lines) == {1}
    page.close()
