"""The first screen of an HTML report as a PNG, for a README or a review: the page as a reader
sees it on opening, at 1280×800 by default, in headless Chromium (:mod:`.pdf` finds it).

``python -m diptych.core.report.screenshot REPORT_DIR`` writes ``report-first-screen.png``
beside ``report.html``; without Chromium or Playwright it says in one line how to get them
and exits 0, since the report itself needs neither.
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from diptych.core.errors import DiptychError, MissingDependencyError
from diptych.core.evidence.manifest import drop_stale_signature
from diptych.core.report.pdf import CHROMIUM_ARGS, chromium_path

FIRST_SCREEN = "report-first-screen.png"


def first_screen(html: Path, png: Path, *, width: int = 1280, height: int = 800) -> Path:
    """Open ``html`` at ``width`` × ``height`` and save what the first screen shows."""
    # Playwright's sync API refuses a thread that already drives an event loop (a notebook,
    # a TUI worker, another Playwright session): the browser runs on a thread of its own.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_first_screen, html, png, width, height).result()


def _first_screen(html: Path, png: Path, width: int, height: int) -> Path:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        raise MissingDependencyError("playwright", "pdf", "the report's screenshot") from error
    executable = chromium_path()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=list(CHROMIUM_ARGS))
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(html.resolve().as_uri(), wait_until="load")
            page.screenshot(path=str(png))
        finally:
            browser.close()
    return png


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m diptych.core.report.screenshot REPORT_DIR", file=sys.stderr)
        return 2
    directory = Path(args[0])
    try:
        png = first_screen(directory / "report.html", directory / FIRST_SCREEN)
    except DiptychError as error:
        print(f"no screenshot of the report: {error}", file=sys.stderr)
        return 0
    print(f"first screen of the report: {png}")
    # A signature made before the screenshot was taken again lists the old picture.
    stale = drop_stale_signature(directory)
    if stale:
        print(stale)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
