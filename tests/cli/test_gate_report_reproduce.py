"""The report of a gated ``diptych run … --until-decided`` (an audit made on the command line)
is titled once by what made it, and its reproduce command is the run with its gates, which
stops at the same look: pasted from the report's directory, it buys nothing and continues the
audit record the report names (``--report`` is where the report goes, not what was audited)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import FIGURE
from tests.support.surfaces.reproduce import (
    fingerprints,
    printed_commands,
    shared_folders,
    written_to,
)

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_a_gated_runs_report_reproduces_it_without_buying_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    lists = ["-p", "masculine=" + ",".join(MASC), "-p", "feminine=" + ",".join(FEM)]
    gate = f"{FIGURE} below 95"
    code, out = call(capsys, "--store", "ws", "run", "pst-text", "-m", "scripted-likelihood",
                     *lists, "--gate", gate, "--until-decided", "--batches", "4",
                     "--quiet")  # fmt: skip
    assert code == 0, out
    assert "decided at look 1 of 4" in out
    report = tmp_path / "ws" / "gate-reports" / "run-pst-text"
    md = (report / "report.md").read_text(encoding="utf-8")
    html = (report / "report.html").read_text(encoding="utf-8")
    title = "Audit run-pst-text (command line): 1 of 1 gate passes, release not blocked"
    assert md.splitlines()[0] == f"# {title}"
    assert f"<title>{title}</title>" in html and "((command line))" not in html
    assert "Audit file" not in md

    commands = printed_commands(md)
    (again,) = [c for c in commands if " run pst-text " in c]
    words = shlex.split(again)
    assert words[words.index("--gate") + 1] == gate
    assert "--until-decided" in words and words[words.index("--batches") + 1] == "4"
    # Pasted where the report says, it stops at the same look and asks for nothing.
    before = fingerprints(tmp_path / "ws")
    audits = _audit_ids(tmp_path / "ws")
    (audit_id,) = audits
    assert f"record {audit_id}" in md or audit_id in md
    monkeypatch.chdir(report)
    code, out = call(capsys, *words[1:])
    assert code == 0, out
    assert "0 requests to run" in out or "decided at look 1 of 4" in out, out
    assert fingerprints(tmp_path / "ws") == before
    assert _audit_ids(tmp_path / "ws") == audits, "pasted, the command recorded a new audit"
    assert f"(audit {audit_id})" in out
    # Then the report's other command, as printed: each writes a folder of its own beside the
    # report, and neither overwrites nor refuses the other's.
    assert shared_folders(commands) == []
    (other,) = [c for c in commands if c != again]
    code, out = call(capsys, *shlex.split(other)[1:])
    assert code == 0, out
    folders = {written_to(c) for c in commands}
    assert folders == {"reproduced", "reproduced-audit"}, commands
    for folder in folders:
        assert (report / str(folder) / "report.md").is_file(), folder
    assert fingerprints(tmp_path / "ws") == before


def _audit_ids(store: Path) -> list[str]:
    with Workspace.open(store) as ws:
        return [a.id for a in ws.audits.list()]
