"""``diptych audit gate`` and the gates at the end of ``audit run``: verdicts from intervals,
exit codes, JUnit XML a parser reads, the GitHub step summary, and one-line errors."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import call

FIGURE = "STS paired (expected from P(he), P(she))"
MASC = ["carpenter", "farmer", "guard", "mover"]
FEM = ["nurse", "editor", "secretary", "librarian"]


#: The scripted models of diptych.testing, as a plugin.
pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _audit(path: Path, gates: list[dict[str, Any]] | dict[str, Any], version: str = "1") -> Path:
    # A target that gives the feminine-stereotyped identities P(she) 0.8 and the masculine ones
    # 0.2, with noise: a paired expected STS near 60 with an interval over the 4 × 4 identities.
    planted = {**{m: 0.2 for m in MASC}, **{f: 0.8 for f in FEM}}
    data = {
        "name": "gated",
        "models": {
            "target": {
                "plugin": "scripted-likelihood",
                "params": {"p_feminine": planted, "noise": 0.1, "version": version},
            }
        },
        "probes": [
            {
                "probe": "pst-text",
                "models": ["target"],
                "params": {"masculine": MASC, "feminine": FEM},
            }
        ],  # fmt: skip
        "report": {"formats": ["json"]},
        "gates": gates,
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_run_decides_the_gates_and_gate_writes_junit_and_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    gates = [
        {"part": "pst-text", "figure": FIGURE, "below": 95, "name": "far below 95"},
        {"part": "pst-text", "figure": FIGURE, "not_above": 100, "name": "never above 100"},
    ]
    file = _audit(tmp_path / "audit.yaml", gates)
    code, out = call(capsys, "--store", ws, "audit", "run", str(file), "--out",
                     str(tmp_path / "rep"), "--quiet")  # fmt: skip
    assert code == 0, out
    assert "2 passed, 0 failed, 0 inconclusive → exit 0" in out

    # The same audit with a gate its interval cannot support either way, and one it fails.
    code, out = call(capsys, "--store", ws, "audit", "gate", str(file), "--json")
    report = json.loads(out)
    value = report["gates"][0]["value"]
    low, high = report["gates"][0]["ci_low"], report["gates"][0]["ci_high"]
    assert low < value < high and 40 < value < 80
    gates = [
        {"part": "pst-text", "figure": FIGURE, "below": round(value, 3), "name": "on the value"},
        {"part": "pst-text", "figure": FIGURE, "below": 10, "name": "below 10"},
    ]
    _audit(file, gates)
    junit = tmp_path / "gates.xml"
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out = call(capsys, "--store", ws, "audit", "gate", str(file), "--junit", str(junit))
    assert code == 1, out
    assert "INCONCLUSIVE" in out and "FAIL" in out
    root = ET.parse(junit).getroot()
    cases = root.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == ["on the value", "below 10"]
    assert cases[1].find("failure") is not None
    assert "below 10" in cases[1].find("failure").get("message", "")  # type: ignore[union-attr]
    assert cases[0].find("failure").get("type") == "inconclusive"  # type: ignore[union-attr]
    assert "| below 10 |" in summary.read_text()

    # Only the inconclusive gate, blocking by default: exit 3; as a warning: exit 0.
    _audit(file, gates[:1])
    code, out = call(capsys, "--store", ws, "audit", "gate", str(file))
    assert code == 3, out
    # "More trials" are counted in the units the interval resamples: both identity lists.
    assert (
        re.search(r"about [\d,]+ more masculine identit\w+ and [\d,]+ more feminine identit\w+ "
                  r"would clear", out) or "sits on the limit" in out
    ), out  # fmt: skip
    _audit(file, [{**gates[0], "on_inconclusive": "warn"}])
    code, out = call(capsys, "--store", ws, "audit", "gate", str(file))
    assert code == 0, out


def test_unknown_figures_and_missing_gates_are_one_line_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    file = _audit(tmp_path / "audit.yaml", [])
    code, out = call(capsys, "--store", ws, "audit", "run", str(file), "--quiet", "--out",
                     str(tmp_path / "rep"))  # fmt: skip
    assert code == 0, out
    code, out = call(capsys, "--store", ws, "audit", "gate", str(file))
    assert code == 2 and "states no gates" in out
    _audit(file, [{"part": "pst-text", "figure": "STS pared", "below": 1},
                  {"part": "pst-text", "figure": "nothing like it", "below": 1}])  # fmt: skip
    code, out = call(capsys, "--store", ws, "audit", "check", str(file))
    assert code == 2, out
    lines = [line for line in out.splitlines() if line.startswith("error") or "gate '" in line]
    assert len(lines) == 2 and "did you mean" in lines[0], out
    assert "Traceback" not in out


CI = Path(__file__).resolve().parents[2] / "examples" / "ci"


def _gate_commands() -> list[str]:
    """The gate commands of the shipped GitHub workflow and GitLab job, as written there."""
    github = yaml.safe_load((CI / "github-actions.yml").read_text())
    steps = github["jobs"]["audit"]["steps"]
    gitlab = yaml.safe_load((CI / "gitlab-ci.yml").read_text())["bias-gate"]
    assert gitlab["artifacts"]["reports"]["junit"] == "gates.xml"
    commands = [s["run"] for s in steps if "audit gate" in s.get("run", "")]
    commands += [line for line in gitlab["script"] if "audit gate" in line]
    assert len(commands) == 2
    return commands


def test_the_ci_examples_gate_a_recorded_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The workflow's own gate command, run by a shell as the CI service would, on a recorded
    audit: its exit code blocks the job and its JUnit file parses."""
    import shutil
    import subprocess
    import sys

    ws = tmp_path / "ws"
    file = _audit(tmp_path / "audit.yaml", [
        {"part": "pst-text", "figure": FIGURE, "below": 95},
        {"part": "pst-text", "figure": FIGURE, "below": 10},
    ])  # fmt: skip
    code, out = call(capsys, "--store", str(ws), "audit", "run", str(file), "--quiet",
                     "--out", str(tmp_path / "rep"))  # fmt: skip
    assert code == 1, out  # the run decides the gates too: one fails
    diptych = shutil.which("diptych", path=str(Path(sys.executable).parent))
    assert diptych is not None
    env = {"PATH": f"{Path(diptych).parent}:/usr/bin:/bin", "AUDIT_FILE": str(file),
           "DIPTYCH_STORE": str(ws), "HOME": str(tmp_path)}  # fmt: skip
    for command in _gate_commands():
        junit = tmp_path / "gates.xml"
        junit.unlink(missing_ok=True)
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 1, done.stdout + done.stderr
        cases = ET.parse(junit).getroot().findall("./testsuite/testcase")
        assert [c.find("failure") is None for c in cases] == [True, False]


def test_an_audit_run_from_a_subdirectory_is_gated_from_anywhere_its_file_gone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    file = _audit(tmp_path / "audit.yaml", [{"part": "pst-text", "figure": FIGURE, "below": 95}])
    sub = tmp_path / "sub"
    sub.mkdir()
    monkeypatch.chdir(sub)
    code, out = call(capsys, "--store", ws, "audit", "run", "../audit.yaml", "--quiet")
    assert code == 0, out
    # Recorded by the file's full path, not as typed in the subdirectory.
    monkeypatch.chdir(tmp_path)
    code, out = call(capsys, "--store", ws, "audit", "list", "--json")
    [listed] = json.loads(out)
    assert listed["file"] == str(file.resolve())
    # The file gone, the recorded audit is gated on the text the workspace recorded.
    file.unlink()
    code, out = call(capsys, "--store", ws, "audit", "gate", listed["id"])
    assert code == 0, out
    assert "1 passed, 0 failed, 0 inconclusive → exit 0" in out
