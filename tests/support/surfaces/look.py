"""Pictures of a written report for a person to look at: the whole page at a phone's and a
laptop's width (``look-phone.png``, ``look-laptop.png``) and each PDF page (``look-page-N.png``,
by poppler's ``pdftoppm``), beside the report.

    python tests/support/surfaces/look.py REPORT_DIR
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path


def look(report_dir: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    from diptych.core.report.pdf import CHROMIUM_ARGS, chromium_path

    written = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=list(CHROMIUM_ARGS))
        for name, (width, height) in {"phone": (390, 844), "laptop": (1280, 800)}.items():
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto((report_dir / "report.html").resolve().as_uri(), wait_until="load")
            shot = report_dir / f"look-{name}.png"
            page.screenshot(path=str(shot), full_page=True)
            written.append(shot)
            page.close()
        browser.close()
    pdf = report_dir / "report.pdf"
    if pdf.is_file() and shutil.which("pdftoppm"):
        subprocess.run(
            ["pdftoppm", "-png", "-r", "60", str(pdf), str(report_dir / "look-page")], check=True
        )
        written += sorted(report_dir.glob("look-page-*.png"))
    return written


if __name__ == "__main__":
    for path in look(Path(sys.argv[1])):
        print(path)
