"""Every kind of report, checked on every surface a reader meets it on: its text, a phone and a
laptop in Chromium, A4 paper, and its reproduce commands pasted into a shell from the directory
it was written from (:mod:`tests.support.surfaces`). ``pytest -m surface`` runs these.

The kinds: the demo's (pst-text on the default identity lists, written by ``diptych run
--report`` into a workspace named with ``--store``), an audit bought until its gates were
decided and stopped early, one run of each other probe (pst with reviewers' labels, pairs,
stories, counterfactual retrieval), the five-run audit with a mitigation compared, and a run
with an agent session's findings.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import diptych.testing
from diptych.core import plugins
from diptych.core.workspace import Workspace
from tests.core.report.conftest import AuditRuns
from tests.support.sequential_audits import FIGURE, planted_audit
from tests.support.surfaces import assert_report_surfaces, shell_env

pytestmark = pytest.mark.surface
FORMATS = "html,md,json,pdf"


@pytest.fixture(scope="module", autouse=True)
def _runs_before_the_browser(report_dir: Path) -> None:
    """The five-run audit is run before the browser opens: a run drives its own event loop,
    which cannot start while Playwright's runs on this thread."""


def sh(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )


@pytest.fixture(scope="module")
def shell(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return shell_env(tmp_path_factory.mktemp("bin"))


def test_the_demo_report(tmp_path: Path, shell: dict[str, str], browser: Any) -> None:
    """As ``make demo`` writes it: a workspace named with --store, the report beside it."""
    done = sh(
        "diptych --store demo/.diptych run pst-text --model scripted-likelihood --report demo "
        "--quiet",
        tmp_path,
        shell,
    )
    assert done.returncode == 0, done.stderr
    report = tmp_path / "demo"
    data = json.loads((report / "report.json").read_text())
    # The PDF too, as `--format pdf` prints it.
    from diptych.core.report.pdf import print_pdf

    print_pdf(report / "report.html", report / "report.pdf")
    assert data["run"].startswith("pst-text-")
    assert_report_surfaces(
        report, browser=browser, cwd=tmp_path, env=shell, store=tmp_path / "demo" / ".diptych"
    )


def test_an_audit_stopped_early(tmp_path: Path, shell: dict[str, str], browser: Any) -> None:
    masculine = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
    feminine = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
    file = planted_audit(
        tmp_path / "audit.yaml",
        [{"part": "pst-text", "figure": FIGURE, "below": 95, "name": "far from all-stereotyped"}],
        masculine,
        feminine,
        name="early",
        seed=3,
        report={"formats": FORMATS.split(",")},
    )
    done = sh(
        f"diptych audit run {file.name} --until-decided --batches 4 --out report --quiet",
        tmp_path,
        shell,
    )
    assert done.returncode in (0, 1), done.stderr
    report = tmp_path / "report"
    gates = json.loads((report / "report.json").read_text())["gates"]
    assert gates["gates"][0]["kind"] == "anytime-valid"
    assert "stopped early" in gates["heading"]
    assert_report_surfaces(
        report, browser=browser, cwd=tmp_path, env=shell, store=tmp_path / ".diptych"
    )


@pytest.fixture(scope="module")
def written_from(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A directory to write reports from, as a user's shell would be in (the commands they
    print name their workspace from there)."""
    here = tmp_path_factory.mktemp("cwd")
    before = Path.cwd()
    os.chdir(here)
    try:
        yield here
    finally:
        os.chdir(before)


@pytest.mark.parametrize("index", [1, 3, 4], ids=["pst", "pairs", "stories"])
def test_one_run_of_each_probe(
    audit: AuditRuns, written_from: Path, browser: Any, shell: dict[str, str], index: int
) -> None:
    out = written_from / f"report-{index}"
    with Workspace.open(audit.ws_path) as ws:
        ws.analysis.report(audit.runs[index], out, formats=FORMATS)
    assert_report_surfaces(out, browser=browser)


def test_the_five_run_audit(report_dir: Path, browser: Any) -> None:
    assert_report_surfaces(report_dir, browser=browser)


def off_the_loop(call: Any, *args: Any, **kwargs: Any) -> Any:
    """``call`` on a thread of its own: Playwright's sync API keeps an event loop running on
    this one, where ``asyncio.run`` (a run's engine) refuses to start."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(call, *args, **kwargs).result()


@pytest.fixture
def scripted() -> Iterator[None]:
    plugins.load_plugins()
    name = plugins.register_plugin(diptych.testing, "testing")
    try:
        yield
    finally:
        plugins.unregister_plugin(name)


def _retrieval_report(where: Path) -> None:
    with Workspace.open(where / ".diptych") as ws:
        run = ws.runs.run_sync(
            "counterfactual-retrieval",
            ["scripted-encoder"],
            params={"k": 5, "n_boot": 100, "n_perm": 100, "desired": "uniform"},
        )
        ws.analysis.report(run.id, where / "report", formats=FORMATS)


@pytest.mark.usefixtures("scripted")
def test_a_retrieval_run(
    tmp_path: Path, browser: Any, shell: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    off_the_loop(_retrieval_report, tmp_path)
    assert_report_surfaces(
        tmp_path / "report", browser=browser, cwd=tmp_path, env=shell, store=tmp_path / ".diptych"
    )


def _agent_report(where: Path) -> None:
    from tests.core.report.test_agent_findings import _findings

    with Workspace.open(where / ".diptych") as ws:
        run = ws.runs.run_sync("pst-text", ["scripted-likelihood"])
        ws.findings.save("sess1", _findings(run.id))
        ws.analysis.report(run.id, where / "report", formats=FORMATS)


@pytest.mark.usefixtures("scripted")
def test_agent_findings(tmp_path: Path, browser: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    off_the_loop(_agent_report, tmp_path)
    assert_report_surfaces(tmp_path / "report", browser=browser)
