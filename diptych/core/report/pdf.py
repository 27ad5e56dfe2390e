"""The HTML report printed to PDF by headless Chromium, driven by Playwright.

Playwright drives the system's Chromium (Debian's ``chromium`` package): no browser is
downloaded. ``DIPTYCH_CHROMIUM`` names another executable.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from diptych.core.errors import DiptychError, MissingDependencyError

#: Chromium's flags for a headless, offline, throwaway session.
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
#: How the page is printed: A4, with its backgrounds, its headings as the PDF's outline.
PDF_OPTIONS: dict[str, Any] = {"format": "A4", "print_background": True, "outline": True}
_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


class BrowserNotFoundError(DiptychError):
    """No Chromium to print the PDF with."""


def chromium_path() -> str:
    """The Chromium executable: ``DIPTYCH_CHROMIUM``, else the first on the PATH."""
    given = os.environ.get("DIPTYCH_CHROMIUM")
    if given:
        return given
    for name in _CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    raise BrowserNotFoundError(
        "printing the report to PDF needs Chromium: install it (Debian: apt-get install "
        "chromium) or name it in DIPTYCH_CHROMIUM"
    )


def print_pdf(html: Path, pdf: Path) -> Path:
    """Open ``html`` in headless Chromium and print it to ``pdf`` (A4, with backgrounds)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _print_pdf(html, pdf)
    # Playwright's sync API refuses to run on a thread with a running event loop (a TUI
    # worker, a notebook): print from a thread of its own.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_print_pdf, html, pdf).result()


def _print_pdf(html: Path, pdf: Path) -> Path:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        raise MissingDependencyError("playwright", "pdf", "printing the report to PDF") from error
    executable = chromium_path()
    # Playwright gives each launch a fresh, throwaway profile directory of its own.
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=list(CHROMIUM_ARGS))
        try:
            page = browser.new_page()
            page.goto(html.resolve().as_uri(), wait_until="load")
            page.emulate_media(media="print")
            page.pdf(path=str(pdf), **PDF_OPTIONS)
        finally:
            browser.close()
    return pdf
