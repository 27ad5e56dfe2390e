"""Every kind of report, checked on every surface a reader meets it on: its text, a phone and a
laptop in Chromium, A4 paper, and its reproduce commands pasted into a shell from the directory
it was written from (:mod:`tests.support.surfaces`). ``pytest -m surface`` runs these.

The kinds written from a shell's directory, whose commands are pasted back into it: the demo's
(pst-text on the default identity lists, written by ``diptych run --report`` into a workspace
named with ``--store``), an audit bought until its gates were decided and stopped early, a
gated ``diptych run`` stopped early likewise, a counterfactual retrieval run. The reports of
the five-run audit are in ``test_surfaces_of_the_audit.py``: the two modules run side by side
under pytest-xdist.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import diptych.testing
from diptych.core import plugins
from diptych.core.workspace import Workspace
from tests.support.sequential_audits import FIGURE, planted_audit
from tests.support.surfaces import assert_report_surfaces, shell_env

pytestmark = pytest.mark.surface
FORMATS = "html,md,json,pdf"


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
    # Pasted where the report says: in its own directory, not where it was written from.
    assert_report_surfaces(
        report, browser=browser, cwd=report, env=shell, store=tmp_path / "demo" / ".diptych"
    )


def test_an_audit_stopped_early(tmp_path: Path, shell: dict[str, str], browser: Any) -> None:
    masculine = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
    feminine = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
    # As the example audits lie: a file in a folder of its own, the report in another.
    (tmp_path / "examples" / "audits").mkdir(parents=True)
    planted_audit(
        tmp_path / "examples" / "audits" / "early.yaml",
        [{"part": "pst-text", "figure": FIGURE, "below": 95, "name": "far from all-stereotyped"}],
        masculine,
        feminine,
        name="early",
        seed=3,
        report={"formats": FORMATS.split(",")},
    )
    done = sh(
        "diptych audit run examples/audits/early.yaml --until-decided --batches 4 --out report "
        "--quiet",
        tmp_path,
        shell,
    )
    assert done.returncode in (0, 1), done.stderr
    report = tmp_path / "report"
    gates = json.loads((report / "report.json").read_text())["gates"]
    assert gates["gates"][0]["kind"] == "anytime-valid"
    assert "stopped early" in gates["heading"]
    assert_report_surfaces(
        report, browser=browser, cwd=report, env=shell, store=tmp_path / ".diptych"
    )


def test_a_gated_run_stopped_early(tmp_path: Path, shell: dict[str, str], browser: Any) -> None:
    """``diptych run --gate … --until-decided``: an audit made on the command line, with no
    file to run again; its report is in the workspace, and pasting its commands buys nothing."""
    lists = "-p masculine=carpenter,farmer,guard,mover -p feminine=nurse,editor,secretary,cashier"
    done = sh(
        f"diptych --store ws run pst-text --model scripted-likelihood {lists} "
        f"--gate '{FIGURE} below 95' --until-decided --batches 4 --quiet",
        tmp_path,
        shell,
    )
    assert done.returncode in (0, 1), done.stderr
    report = tmp_path / "ws" / "gate-reports" / "run-pst-text"
    gates = json.loads((report / "report.json").read_text())["gates"]
    assert "stopped early" in gates["heading"]
    from diptych.core.report.pdf import print_pdf

    print_pdf(report / "report.html", report / "report.pdf")
    assert_report_surfaces(report, browser=browser, cwd=report, env=shell, store=tmp_path / "ws")


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
        tmp_path / "report",
        browser=browser,
        cwd=tmp_path / "report",
        env=shell,
        store=tmp_path / ".diptych",
    )
