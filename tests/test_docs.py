"""The manual builds, offline and strictly, and the README stays a front door into it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _command_paths(command: Any, prefix: str = "diptych") -> list[str]:
    """Every command of the typer app as it is called: 'diptych run', 'diptych metrics sts'."""
    paths = []
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        path = f"{prefix} {name}"
        paths.append(path)
        paths.extend(_command_paths(sub, path))
    return paths


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    return out


def test_the_manual_builds_strictly(site: Path) -> None:
    for page in ("index.html", "install.html", "probes/pst.html", "errors.html"):
        assert (site / page).is_file(), page


def test_the_cli_reference_is_generated_from_the_app(site: Path) -> None:
    import typer.main

    from diptych.cli.main import app

    html = (site / "cli" / "reference.html").read_text()
    commands = _command_paths(typer.main.get_command(app))
    assert "diptych metrics sts" in commands
    for command in commands:
        anchor = command.replace(" ", "-")
        assert f'id="{anchor}"' in html, f"{command} is missing from the CLI reference"
    assert "--max-cost" in html and "--dry-run" in html


def test_the_api_pages_come_from_docstrings(site: Path) -> None:
    workspace = (site / "api" / "workspace.html").read_text()
    assert 'id="diptych.core.workspace.Workspace"' in workspace
    # The Workspace's tree: one section per namespace.
    for module, name in (("runs", "Runs"), ("labels", "Labels"), ("review", "Review"),
                         ("annotators", "Annotators"), ("analysis", "Analysis"),
                         ("audits", "Audits"), ("findings", "Findings"), ("lists", "Lists"),
                         ("preferences", "Preferences"), ("plugins", "Plugins")):  # fmt: skip
        assert f'id="diptych.core.workspace.{module}.{name}"' in workspace, name
    hooks = (site / "api" / "hookspecs.html").read_text()
    for hook in ("register_probes", "register_models", "register_annotators"):
        assert f'id="diptych.core.plugins.hookspecs.{hook}"' in hooks


def test_the_site_fetches_nothing_from_the_network(site: Path) -> None:
    for page in site.rglob("*.html"):
        text = page.read_text()
        assert "fonts.googleapis.com" not in text and "fonts.gstatic.com" not in text, page
        # Scripts too (the search's, read from disk): every one is the site's own.
        assert not re.search(r"<script[^>]+src=\"(https?:)?//", text), page


def test_the_readme_is_a_front_door() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    assert "make demo" in readme and "make test" in readme
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    local = [link for link in links if not link.startswith(("http://", "https://"))]
    assert local, "the README links into docs/"
    for link in local:
        assert (ROOT / link).exists(), f"README links to a missing file: {link}"


def test_the_readme_names_every_capability_of_the_product() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 170
    for capability in (
        "Paired Stereotype Test",
        "PAIRS",
        "SocialCounterfactuals",
        "audit agent",
        "Audit files and gates",
        "Ray",
        "terminal app",
        "Plugins",
        "make demo",
        "make test",
    ):
        assert capability in readme, capability


def test_the_manual_works_opened_from_disk(site: Path) -> None:
    """As the README says to read it: build/docs/index.html opened from disk (file://). A link
    lands on its page, not on a directory a browser lists, no search box is offered that could
    never start, and the side navigation draws no text over another on a laptop or a phone."""
    from playwright.sync_api import sync_playwright

    from diptych.core.report.pdf import CHROMIUM_ARGS, chromium_path
    from tests.support.surfaces.nav import nav_overlaps, nav_texts

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=list(CHROMIUM_ARGS))
        try:
            page = browser.new_page()
            page.goto((site / "index.html").as_uri())
            page.click("article a[href='install.html']")
            page.wait_for_load_state()
            assert page.url.endswith("/install.html")
            assert page.inner_text("article h1").rstrip("¶") == "Install"
            # Every link of the page is a file, not a folder a browser would list.
            hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
            local = [h.split("#")[0] for h in hrefs if h.startswith("file:")]
            assert local and all(h.endswith((".html", ".png", ".svg", ".json")) for h in local), [
                h for h in local if not h.endswith(".html")
            ]
            # No search box: from disk it could never start.
            assert page.locator("input.md-search__input").count() == 0
            page.close()
            # The side navigation, scrolled to a page far down it, draws no text over another.
            for width, height in ((1280, 800), (390, 844)):
                for deep in ("probes/stories.html", "errors.html"):
                    page = browser.new_page(viewport={"width": width, "height": height})
                    page.goto((site / deep).as_uri())
                    if width < 1220:
                        # Under 76.25em the navigation is a drawer the menu button opens.
                        page.click("label.md-header__button[for='__drawer']")
                        page.wait_for_function(
                            "document.querySelector('.md-sidebar--primary')"
                            ".getBoundingClientRect().left >= 0"
                        )
                    assert len(nav_texts(page)) >= 5, (width, deep)
                    assert nav_overlaps(page) == [], (width, deep)
                    page.close()
        finally:
            browser.close()
