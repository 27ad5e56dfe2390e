"""The report of a decided audit bought on and audited again, printed to A4, keeps its probe's
heading, the run's line under it and the chart under that together wherever the heading falls
on the first page: the run's line (two lines: it says what the run holds now) never splits over
two pages, and the heading never stays on a page its chart starts after (:mod:`tests.support.
surfaces.paper`). Each place is made by an empty gap before the Results, as a Findings of
another length makes it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import call
from tests.support.stopped_runs import bought_on_and_audited_again
from tests.support.surfaces.paper import paper_problems

pytestmark = [pytest.mark.surface, pytest.mark.usefixtures("scripted_plugin")]

#: The height of A4's text column in CSS px (297 mm less report.css' 16 mm margins).
COLUMN = (297 - 2 * 16) / 25.4 * 96

#: Where the run's line, its heading and the chart stand as laid out for print, in CSS px.
_PLACES = """() => {
  const note = document.querySelector('#results h3 + p.note');
  const range = document.createRange();
  range.selectNodeContents(note);
  const lines = [...range.getClientRects()].filter(r => r.width > 0.5).map(r => r.bottom);
  return {heading: note.previousElementSibling.getBoundingClientRect().bottom,
          first_line: Math.min(...lines), last_line: Math.max(...lines)};
}"""


def _placed(html: Path, browser: Any) -> dict[str, float]:
    page = browser.new_page(viewport={"width": 688, "height": 1000})
    try:
        page.emulate_media(media="print")
        page.goto(html.resolve().as_uri(), wait_until="load")
        placed: dict[str, float] = page.evaluate(_PLACES)
    finally:
        page.close()
    return placed


def test_its_probe_heading_and_run_line_stay_with_the_chart_on_paper(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest
) -> None:
    from diptych.core.report.pdf import print_pdf

    ws = str(tmp_path / "ws")
    run_id, _ = bought_on_and_audited_again(capsys, ws, "-M", "latency=0.01")
    out = tmp_path / "rep"
    code, said = call(capsys, "--store", ws, "report", run_id, "-o", str(out), "--format", "html")
    assert code == 0, said
    # The browser opens once the runs are done (Playwright's loop would refuse theirs).
    browser = request.getfixturevalue("browser")
    # As written: Appendix B's second table, its heading and its caption of three lines come to
    # a page's foot with room for two of the caption's lines; they move to the next page
    # together (Chromium split the caption, two lines and one).
    pdf = print_pdf(out / "report.html", out / "report.pdf")
    problems = [f"as written: {p}" for p in paper_problems(pdf, out / "report.html", browser)]
    # Without its contents (a shorter Findings would do as well), the Results start on the first
    # page, each place below on its foot.
    written = re.sub(
        r'<nav id="contents".*?</nav>', "", (out / "report.html").read_text(encoding="utf-8"),
        count=1, flags=re.S,
    )  # fmt: skip
    (out / "report.html").write_text(written, encoding="utf-8")
    placed = _placed(out / "report.html", browser)
    # The run's line is two lines (what it holds now is said in full), on the first page.
    assert placed["first_line"] < placed["last_line"] < COLUMN, placed
    # The gap that puts at the first page's foot: the heading and its run's line whole, with
    # room under them for less than the chart's first rows (Chromium broke the run's line
    # there, its second line taken to the next page with the chart); the run's line across the
    # foot (its second line past it); the heading alone (the run's line past it).
    gaps = {
        "the heading and the run's line near the foot": COLUMN - 40 - placed["last_line"],
        "the run's line across the foot": COLUMN - 6 - placed["first_line"],
        "the heading at the foot": COLUMN - 6 - placed["heading"],
    }
    for where, gap in gaps.items():
        html = tmp_path / f"gap-{int(gap)}" / "report.html"
        html.parent.mkdir()
        html.write_text(
            written.replace(
                '<section id="results">',
                f'<div style="height: {gap:.1f}px"></div><section id="results">',
                1,
            ),
            encoding="utf-8",
        )
        pdf = print_pdf(html, html.parent / "report.pdf")
        problems += [f"{where}: {p}" for p in paper_problems(pdf, html, browser)]
    assert not problems, "\n".join(problems)
