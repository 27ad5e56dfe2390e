"""A mitigation session stopped before its first run is resumed by the command ``diptych show``
and ``diptych resume`` print for it: ``diptych agent mitigate`` with its baseline run, never a
``RUN`` to fill in, and that command, pasted with the agent model it started with, goes on."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from support.agent_cli import use_hashing_memory
from support.started_sessions import stopped_mitigation
from typer.testing import CliRunner

from diptych.cli.main import app
from diptych.core.workspace import Workspace
from tests.support.cli import call

SESSION = "mit-5e55f0c1"


def test_a_started_mitigation_is_resumed_by_the_command_printed_for_it(
    scripted: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    use_hashing_memory(monkeypatch)
    store = tmp_path / "ws"
    baseline = stopped_mitigation(store, SESSION)
    command = f"diptych agent mitigate {baseline} --session {SESSION}"

    code, out = call(capsys, "--store", str(store), "show", SESSION)
    assert code == 0, out
    assert out.splitlines()[-1] == (
        f"'{command}' with the options it started with resumes it; once it ends, "
        f"'diptych show {SESSION}' lists its findings"
    )
    code, out = call(capsys, "--store", str(store), "resume", SESSION)
    assert (code, out) == (
        2,
        f"error: '{SESSION}' is an agent session, not a run: '{command}' with the options it "
        "started with resumes it\n",
    )

    # Pasted as printed, with the agent model it started with, in its workspace.
    words = shlex.split(command)
    assert words[0] == "diptych"
    result = CliRunner().invoke(
        app,
        [*words[1:], "--agent-model", "scripted-chat"],
        env={"DIPTYCH_STORE": str(store)},
    )
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].startswith(f"session {SESSION}: 1 round done; ")
    with Workspace.open(store) as ws:
        assert ws.findings.get(SESSION) is not None
