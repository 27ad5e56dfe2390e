"""A mitigation session stopped before its first run is resumed by the command ``diptych show``
and ``diptych resume`` print for it: ``diptych agent mitigate`` with its baseline run, never a
``RUN`` to fill in, and that command, pasted with the agent model it started with, goes on."""

from __future__ import annotations

import shlex
import threading
from pathlib import Path

import pytest
from support.agent_cli import use_hashing_memory
from typer.testing import CliRunner

from diptych.agent.stopping import SearchStopped
from diptych.cli.main import app
from diptych.core.workspace import Workspace
from tests.support.cli import call

SESSION = "mit-5e55f0c1"
MASCULINE = ["carpenter", "driver", "farmer", "lawyer"]
FEMININE = ["nurse", "editor", "baker", "clerk"]


def _stopped_before_its_first_run(store: Path) -> str:
    """The baseline run's id, after a mitigation session on it was stopped as it started."""
    from diptych.agent.chat_model import agent_model
    from diptych.agent.session import search_mitigations

    planted = {**dict.fromkeys(MASCULINE, 0.3), **dict.fromkeys(FEMININE, 0.7)}
    with Workspace.open(store) as ws:
        target = ws.plugins.model(("scripted-likelihood", {"p_feminine": planted}))
        base = ws.runs.run_sync(
            "pst-text",
            [target],
            params={"masculine": MASCULINE, "feminine": FEMININE, "setting": "paired"},
        )
        stop = threading.Event()
        stop.set()
        with pytest.raises(SearchStopped):
            search_mitigations(
                ws, agent_model("scripted-chat"), base.id, session=SESSION, stop=stop
            )
        assert [r.run.id for r in ws.runs.list()] == [base.id]
    return base.id


def test_a_started_mitigation_is_resumed_by_the_command_printed_for_it(
    scripted: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    use_hashing_memory(monkeypatch)
    store = tmp_path / "ws"
    baseline = _stopped_before_its_first_run(store)
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
