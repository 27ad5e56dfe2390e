"""``diptych audit gate`` of an audit whose gates were decided at look 1 of 4 and whose run was
then bought on and stopped (Ctrl-C) names the stop in one line, as ``audit list`` calls the
audit interrupted: the verdicts stand on the look their gates were decided at (so the exit
code is theirs), and the line says what buys the rest. Its ``--json`` carries the same line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import file_decided_and_bought_on

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_audit_gate_names_the_interrupted_run_and_keeps_the_verdicts_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "400")
    ws, file, run_id = file_decided_and_bought_on(capsys, tmp_path)
    with Workspace.open(ws) as opened:
        pending = opened.runs.counts(run_id)["pending"]
    assert pending > 0
    line = (
        f"interrupted: the audit's last run stopped part way (run {run_id}, {pending:,} trials "
        f"pending); the verdicts below stand, each decided at look 1 of 4; diptych resume "
        f"{run_id} or running the audit again buys the rest"
    )
    code, out = call(capsys, "--store", ws, "audit", "gate", file)
    assert code == 0, out
    lines = out.splitlines()
    assert lines[1] == line, out
    assert lines[-1] == "1 passed, 0 failed, 0 inconclusive → exit 0", out
    code, out = call(capsys, "--store", ws, "audit", "gate", file, "--json")
    assert code == 0, out
    said = json.loads(out)
    assert said["interrupted"] == line and said["exit_code"] == 0, said


def test_audit_gate_of_an_audit_not_stopped_says_nothing_of_a_stop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.sequential_audits import gated_below_95

    monkeypatch.chdir(tmp_path)
    ws, file = str(tmp_path / "ws"), gated_below_95(tmp_path, "whole")
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--quiet")
    assert code == 0, out
    code, out = call(capsys, "--store", ws, "audit", "gate", file)
    assert code == 0 and "interrupted" not in out, out
    code, out = call(capsys, "--store", ws, "audit", "gate", file, "--json")
    assert json.loads(out)["interrupted"] is None, out


def test_audit_gate_junit_and_step_summary_name_the_interrupted_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CI reader of the JUnit XML or the job summary sees the stop as the log's reader does:
    the suite carries the line as a property and in its output, the summary above its table."""
    import xml.etree.ElementTree as ET

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "400")
    ws, file, run_id = file_decided_and_bought_on(capsys, tmp_path)
    with Workspace.open(ws) as opened:
        pending = opened.runs.counts(run_id)["pending"]
    line = (
        f"interrupted: the audit's last run stopped part way (run {run_id}, {pending:,} trials "
        f"pending); the verdicts below stand, each decided at look 1 of 4; diptych resume "
        f"{run_id} or running the audit again buys the rest"
    )
    summary, junit = tmp_path / "summary.md", tmp_path / "gates.xml"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out = call(capsys, "--store", ws, "audit", "gate", file, "--junit", str(junit))
    assert code == 0, out
    (suite,) = ET.parse(junit).getroot().iter("testsuite")
    # JUnit's order within a suite: properties, the test cases, then the suite's output.
    kids = [child.tag for child in suite]
    assert kids == ["properties", "testcase", "system-out"], kids
    (prop,) = suite.iter("property")
    assert prop.attrib == {"name": "interrupted", "value": line}, prop.attrib
    assert suite.findtext("system-out") == line
    # The gate's own verdict is unchanged: one case, passed, no failure or skip.
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("1", "0", "0")
    table = summary.read_text(encoding="utf-8").splitlines()
    at = table.index(line)
    assert table[at + 1] == "" and table.index("| gate | value | interval | rule | verdict |") > at


def test_audit_gate_junit_and_step_summary_of_an_audit_not_stopped_say_nothing_of_a_stop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import xml.etree.ElementTree as ET

    from tests.support.sequential_audits import gated_below_95

    monkeypatch.chdir(tmp_path)
    ws, file = str(tmp_path / "ws"), gated_below_95(tmp_path, "whole")
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--quiet")
    assert code == 0, out
    summary, junit = tmp_path / "summary.md", tmp_path / "gates.xml"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out = call(capsys, "--store", ws, "audit", "gate", file, "--junit", str(junit))
    assert code == 0, out
    (suite,) = ET.parse(junit).getroot().iter("testsuite")
    assert [child.tag for child in suite] == ["testcase"]
    assert "interrupted" not in summary.read_text(encoding="utf-8")
