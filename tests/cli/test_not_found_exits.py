"""A run, audit or report named wrongly is bad input: every command says so in one line and
exits 2, as it does for a wrongly named probe or option."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.audit.record import PartRecord
from diptych.core.workspace import Workspace
from tests.support.cli import call

WRONG = "nosuchrun"


@pytest.fixture
def workspace(tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]) -> str:
    ws = str(tmp_path / "ws")
    code, out = call(capsys, "--store", ws, "run", "scripted", "-m", "scripted-likelihood",
                     "-p", "n=2", "--quiet")  # fmt: skip
    assert code == 0, out
    return ws


@pytest.mark.parametrize(
    "args",
    [
        ["show", WRONG],
        ["report", WRONG, "--out", "{tmp}/report"],
        ["export", WRONG],
        ["export", WRONG, "--bundle", "{tmp}/evidence.zip"],
        ["annotate", WRONG, "--template", "{tmp}/labels.csv"],
        ["resume", WRONG],
        ["verify", "{tmp}/no-such-report"],
    ],
    ids=lambda args: " ".join(a for a in args if "{" not in a),
)
def test_a_wrong_id_exits_2_with_one_line(
    workspace: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, out = call(capsys, "--store", workspace, *(a.format(tmp=tmp_path) for a in args))
    assert code == 2, out
    said = out.strip().splitlines()
    assert len(said) == 1 and said[0].startswith("error:"), out
    assert WRONG in said[0] or "no-such-report" in said[0]
    # Nothing was written for the run that is not there.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ws"]


@pytest.mark.parametrize("command", ["report", "resume"])
def test_an_audits_id_where_a_run_is_asked_for_points_at_the_audit_commands(
    workspace: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    # The id `audit run` prints is the audit's, not a run's: the line says so, names the
    # commands that take it and the runs it holds.
    audit = "smollm2-offline-5c366747d6"
    with Workspace.open(workspace) as ws:
        (run,) = [r.run.id for r in ws.runs.list()]
        ws.audits.begin(audit, "smollm2-offline", "0" * 64, "audit.yaml", "name: x\n")
        ws.audits.save_part(audit, PartRecord(0, "text", "probe", run, "complete", 0.0))
        ws.audits.finish(audit, "complete")
    extra = ["--out", str(tmp_path / "report")] if command == "report" else []
    code, out = call(capsys, "--store", workspace, command, audit, *extra)
    assert code == 2, out
    assert " ".join(out.split()) == (
        f"error: '{audit}' is a recorded audit, not a run: 'diptych audit gate {audit}' decides "
        f"its gates, 'diptych audit list' shows the audits; its runs: {run} (give one)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ws"]


def test_show_takes_an_audits_id_as_every_listing_prints_it(
    workspace: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Ids printed anywhere are taken everywhere: `audit list` and the terminal app print an
    # audit's id, and `show` shows that audit (a unique start of its id too).
    audit = "smollm2-offline-5c366747d6"
    with Workspace.open(workspace) as ws:
        (run,) = [r.run.id for r in ws.runs.list()]
        ws.audits.begin(audit, "smollm2-offline", "0" * 64, "audit.yaml", "name: x\n")
        ws.audits.save_part(audit, PartRecord(0, "text", "probe", run, "complete", 0.0))
        ws.audits.finish(audit, "complete")
    for ref in (audit, audit[:20]):
        code, out = call(capsys, "--store", workspace, "show", ref)
        assert code == 0, out
        said = out.splitlines()
        assert said[0] == f"audit {audit} (smollm2-offline)  status complete", out
        assert said[1] == f"file audit.yaml  sha256 {'0' * 12}", out
        assert said[2] == f"part text: run {run}, complete", out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ws"]
