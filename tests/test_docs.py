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
    for page in ("index.html", "install/index.html", "probes/pst/index.html", "errors/index.html"):
        assert (site / page).is_file(), page


def test_the_cli_reference_is_generated_from_the_app(site: Path) -> None:
    import typer.main

    from diptych.cli.main import app

    html = (site / "cli" / "reference" / "index.html").read_text()
    commands = _command_paths(typer.main.get_command(app))
    assert "diptych metrics sts" in commands
    for command in commands:
        anchor = command.replace(" ", "-")
        assert f'id="{anchor}"' in html, f"{command} is missing from the CLI reference"
    assert "--max-cost" in html and "--dry-run" in html


def test_the_api_pages_come_from_docstrings(site: Path) -> None:
    workspace = (site / "api" / "workspace" / "index.html").read_text()
    assert 'id="diptych.core.workspace.Workspace"' in workspace
    # The Workspace's tree: one section per namespace.
    for module, name in (("runs", "Runs"), ("labels", "Labels"), ("review", "Review"),
                         ("annotators", "Annotators"), ("analysis", "Analysis"),
                         ("audits", "Audits"), ("findings", "Findings"), ("lists", "Lists"),
                         ("preferences", "Preferences"), ("plugins", "Plugins")):  # fmt: skip
        assert f'id="diptych.core.workspace.{module}.{name}"' in workspace, name
    hooks = (site / "api" / "hookspecs" / "index.html").read_text()
    for hook in ("register_probes", "register_models", "register_annotators"):
        assert f'id="diptych.core.hookspecs.{hook}"' in hooks


def test_the_site_fetches_nothing_from_the_network(site: Path) -> None:
    for page in site.rglob("*.html"):
        text = page.read_text()
        assert "fonts.googleapis.com" not in text and "fonts.gstatic.com" not in text, page


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
