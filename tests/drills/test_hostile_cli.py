"""A hostile user at the command line: an empty id, an --out that is a file, an assumed value no
figure takes, a full disk under a listing, a second ``audit run`` beside the first. Each is
refused in one line that says what to do, with a non-zero exit and nothing bought or lost."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from diptych.testing.drills.kills import scripted_cli
from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")

GATES = [{"part": "pst-text", "figure": FIGURE, "below": 95}]


def _lines(out: str) -> list[str]:
    return out.strip().splitlines()


def _audited(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, Path]:
    """A workspace holding one audit of one run, bought whole: its path and the audit file."""
    file = planted_audit(tmp_path / "a.yaml", GATES, MASC, FEM, name="hx", seed=2)
    ws = str(tmp_path / "ws")
    code, out = call(capsys, "--store", ws, "audit", "run", str(file), "--out",
                     str(tmp_path / "rep"), "--quiet")  # fmt: skip
    assert code == 0, out
    return ws, file


def test_an_empty_id_names_no_run_and_no_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unset variable in a script (``diptych report "$RUN"``) is not the start of the one
    run's id: it is refused, and no report is written."""
    ws, _ = _audited(tmp_path, capsys)
    for command in (["show"], ["report", "--out", str(tmp_path / "r")], ["agreement"],
                    ["resume"], ["export", "--format", "csv"]):  # fmt: skip
        code, out = call(capsys, "--store", ws, command[0], "", *command[1:])
        assert code == 2, (command, out)
        assert _lines(out) == [f"error: no run '' in {ws}; 'diptych runs' lists the runs there"]
    assert not (tmp_path / "r").exists()
    code, out = call(capsys, "--store", ws, "audit", "gate", "")
    assert code == 2 and _lines(out) == [
        "error: no recorded audit ''; 'diptych audit list' shows them"
    ], out


def test_audit_run_checks_its_out_folder_before_buying(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = planted_audit(tmp_path / "a.yaml", GATES, MASC, FEM, name="hx", seed=2)
    ws = tmp_path / "ws"
    for until in ([], ["--until-decided"]):
        code, out = call(capsys, "--store", str(ws), "audit", "run", str(file), "--out",
                         str(file), *until)  # fmt: skip
        assert code == 2, out
        assert _lines(out) == [f"error: --out {file}: is a file, not a directory; give a directory"]
    # Nothing was bought: not even the workspace was made.
    assert not ws.exists()


def test_assume_takes_only_a_value_the_figure_can_take(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = planted_audit(tmp_path / "a.yaml", GATES, MASC, FEM, name="hx", seed=2)
    dry = ["--store", str(tmp_path / "ws"), "audit", "run", str(file), "--dry-run",
           "--until-decided", "--assume"]  # fmt: skip
    code, out = call(capsys, *dry, "nan")
    assert code == 2 and _lines(out) == [
        "error: invalid value for '--assume': nan is not a figure's value, e.g. 25 "
        "(see 'diptych audit run --help')"
    ], out
    # The STS is a difference of two percentages: it lies in [−100, 100].
    code, out = call(capsys, *dry, "500")
    assert code == 2 and _lines(out) == [
        f"error: --assume 500 is outside the range of {FIGURE} [-100, 100]; give a value the "
        "figure can take"
    ], out
    code, out = call(capsys, *dry, "100")
    assert code == 0 and "if the figure is 100.0 (assumed): expected " in out, out


def test_a_full_disk_under_a_listing_or_a_junit_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    full = Path("/dev/full")
    if not full.exists():
        pytest.skip("no /dev/full on this system")
    ws, file = _audited(tmp_path, capsys)
    said = (
        "error: no space left on the disk writing the output (No space left on device); free "
        "some space or write elsewhere, then run the command again"
    )
    code, out = call(capsys, "--store", ws, "audit", "gate", str(file), "--junit", str(full))
    assert code == 1 and _lines(out)[-1] == said, out
    # The listings printed to a full disk, from a process of their own (its own stdout).
    for listing in (["runs", "--json"], ["audit", "list", "--json"]):
        with full.open("w") as stdout:
            done = subprocess.run(scripted_cli(Path(ws), *listing), stdout=stdout,
                                  stderr=subprocess.PIPE, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 1, done.stderr
        assert _lines(done.stderr) == [said], done.stderr


def test_a_second_audit_run_beside_the_first_is_told_what_it_can_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its words are audit run's: no --wait or --watch, which audit run does not take."""
    file = planted_audit(tmp_path / "a.yaml", GATES, MASC, FEM, name="hx", seed=2,
                         model_params={"latency": 0.5})  # fmt: skip
    ws = tmp_path / "ws"
    first = subprocess.Popen(
        scripted_cli(ws, "audit", "run", str(file), "--quiet"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 90
        running: list[str] = []
        while not running and time.monotonic() < deadline:
            time.sleep(0.2)
            if (ws / "diptych.db").exists():
                with Workspace.open(ws) as w:
                    running = [s.run.id for s in w.runs.list() if s.run.status == "running"]
        assert running, "the first audit run never started its run"
        code, out = call(capsys, "--store", str(ws), "audit", "run", str(file), "--quiet")
        assert code == 2, out
        line = _lines(out)[-1]
        assert line.startswith(f"error: run {running[0]} of this audit is being run by pid "), line
        assert line.endswith(
            ": watch it with 'diptych audit list', and run the same command again once that "
            "process stops"
        ), line
        assert "--wait" not in out and "--watch" not in out
    finally:
        first.kill()
        first.wait()


def test_audit_gate_refuses_a_pipe_or_a_huge_file_before_reading_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pipe named like an audit file would keep ``audit gate`` waiting for a writer; a 50 MB
    file is no audit file. Both are refused at once, as ``audit run`` refuses them."""
    ws, _ = _audited(tmp_path, capsys)
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    done = subprocess.run(scripted_cli(Path(ws), "audit", "gate", str(fifo)),
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert _lines(done.stderr) == [
        f"error: audit file {fifo}: not a regular file (a directory, device, pipe or socket); "
        "give the audit's YAML file"
    ]
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as f:
        f.truncate(50 * 1024**2)
    code, out = call(capsys, "--store", ws, "audit", "gate", str(huge))
    assert code == 2 and _lines(out) == [
        f"error: audit file {huge}: 52,428,800 bytes, more than the 4,194,304 an audit file may "
        "hold; give the audit's YAML file"
    ], out


def test_an_empty_report_out_is_refused_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``diptych report RUN --out "$DIR"`` with DIR unset does not write into the current
    directory: it is refused in one line, exit 2."""
    ws, _ = _audited(tmp_path, capsys)
    with Workspace.open(ws) as w:
        run = w.runs.list()[0].run.id
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    for blank in ("", "  "):
        code, out = call(capsys, "--store", ws, "report", str(run), "--out", blank)
        assert code == 2, out
        assert _lines(out) == ["error: --out is empty; give the directory to write the report in"]
    assert list(here.iterdir()) == []
