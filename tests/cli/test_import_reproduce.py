"""A report imported with its bundle names the workspace it was written from (its text is
signed and stays so); ``import`` says the command that writes it again from the importing
workspace, and that command works where it is printed."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.support.cli import call


def test_import_prints_a_report_command_that_works_in_the_importing_workspace(
    tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    origin = tmp_path / "origin"
    ws, report, bundle = origin / "ws", origin / "report", tmp_path / "evidence.zip"
    origin.mkdir()
    code, out = call(capsys, "--store", str(ws), "run", "scripted", "-m", "scripted-likelihood",
                     "-p", "n=3", "--quiet", "--report", str(report))  # fmt: skip
    assert code == 0, out
    run_id = out.split("run ", 1)[1].split(":", 1)[0]
    code, out = call(capsys, "--store", str(ws), "export", run_id, "--bundle", str(bundle),
                     "--report", str(report))  # fmt: skip
    assert code == 0, out

    fresh = tmp_path / "fresh"
    fresh.mkdir()
    monkeypatch.chdir(fresh)
    code, out = call(capsys, "--store", "received", "import", str(bundle))
    assert code == 0, out
    (said,) = [line for line in out.splitlines() if "to write it again from this one" in line]
    command = said.split("from this one: ", 1)[1]
    # It names what the report covered (no audit's gates), as the report's own command does.
    assert command == f"diptych --store received report {run_id} --audit none --out reproduced"
    # The imported report's own text is as it was written (and signed): unchanged.
    assert (fresh / "received" / "reports" / "report" / "report.md").read_bytes() == (
        report / "report.md"
    ).read_bytes()
    # Pasted where it was printed, it writes the report again from the imported records.
    words = shlex.split(command)
    code, out = call(capsys, *words[1:], "--format", "md")
    assert code == 0, out
    assert (fresh / "reproduced" / "report.md").is_file()
