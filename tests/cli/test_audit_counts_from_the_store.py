"""An audit's closing line counts from the store: what the runs hold is every answered request
of every part's runs, an agent search's session's runs included, whichever command answered
them (a search stopped twice and finished by a third command); what was "answered now" is only
what this command sent to a model, and the answers a new run found stored (``--set`` making a
run whose requests an earlier run answered) are said reused, and read from the store, never
bought."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.searched_audits import searched_audit
from tests.support.sequential_audits import gated_below_95

pytestmark = pytest.mark.usefixtures("scripted_plugin")


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from a temporary directory: an audit's report is written where it is run from."""
    monkeypatch.chdir(tmp_path)


def _searched(target_log: Path, agent_log: Path) -> str:
    """The audit of a paired part and an identity search, each model logging its calls."""
    return searched_audit(
        "stopped-search",
        "  target:\n"
        "    plugin: scripted-likelihood\n"
        f"    params: {{p_feminine: {{astronaut: 0.02, florist: 0.98}}, calls_log: {target_log}}}\n"
        f"  agent: {{plugin: scripted-chat, params: {{calls_log: {agent_log}}}}}\n",
    )


#: The closing line of a run that answered some of what its runs hold.
SOME_NOW = re.compile(
    r"^audit \S+ complete: cost not priced for ([\d,]+) requests answered now"
    r"(?: and ([\d,]+) agent calls?)?; the runs hold "
    r"([\d,]+) answered requests, the agent's calls ([\d,]+) more, cost not priced; report ",
    re.M,
)
#: The closing line of a run that answered none.
NONE_NOW = re.compile(
    r"^audit \S+ (\w+): none answered now(?:, ([\d,]+) reused, stored by an earlier run)?; "
    r"the runs hold ([\d,]+) answered requests(?:, the agent's calls ([\d,]+) more)?, "
    r"cost not priced; report ",
    re.M,
)


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


def _answered(ws: str) -> int:
    """The distinct answered requests of every run of the workspace (a request shared by runs
    once)."""
    keys: set[str] = set()
    with Workspace.open(ws) as opened:
        for summary in opened.runs.list():
            view = opened.runs.view(summary.run.id)
            for trial in view.trials:
                result = view.results.get(trial.key)
                if result is not None and result.status in ("done", "refused"):
                    keys.add(trial.key)
    return len(keys)


class _StopAfter(threading.Event):
    """A search's stop, set as a user's Ctrl-C would set it once the target's calls log has
    ``calls`` lines more than when the search began."""

    def __init__(self, log: Path, calls: int) -> None:
        super().__init__()
        self.log, self.calls = log, _lines(log) + calls

    def is_set(self) -> bool:
        return super().is_set() or _lines(self.log) >= self.calls


def _proposing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scripted agent proposes one pair in its round; the memory embeds by hashing."""
    from diptych.agent import chat_model, session
    from diptych.agent.memory import HashingEmbedder

    monkeypatch.setattr(session, "SentenceEmbedder", HashingEmbedder)
    made = chat_model.agent_model
    proposal = {"masculine": "astronaut", "feminine": "florist", "kind": "occupation",
                "rationale": "r"}  # fmt: skip

    def proposing(spec: str, params: Any) -> Any:
        agent = made(spec, params)
        agent.enqueue(json.dumps({"proposals": [proposal]}))
        return agent

    monkeypatch.setattr(chat_model, "agent_model", proposing)


def _stopped_at(monkeypatch: pytest.MonkeyPatch, log: Path, calls: int) -> None:
    """``audit run``'s search stopped (as Ctrl-C stops it) once the target answered ``calls``
    requests of it: the search stops at its next trial, and the command is interrupted."""
    from diptych.agent.audit_search import run_search
    from diptych.agent.stopping import SearchStopped
    from diptych.cli import audit_cmd

    def stopping(*args: Any) -> dict[str, Any]:
        try:
            return run_search(*args[:6], _StopAfter(log, calls))
        except SearchStopped:
            raise KeyboardInterrupt from None

    monkeypatch.setattr(audit_cmd, "run_search", stopping)


def test_a_search_stopped_twice_and_finished_counts_every_request_its_runs_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _proposing(monkeypatch)
    target_log, agent_log = tmp_path / "target.jsonl", tmp_path / "agent.jsonl"
    audit = tmp_path / "audit.yaml"
    audit.write_text(_searched(target_log, agent_log), "utf-8")
    ws = str(tmp_path / "ws")
    command = ("--store", ws, "audit", "run", str(audit), "--out", str(tmp_path / "r"), "--quiet")
    monkeypatch.setenv("COLUMNS", "200")  # the closing line read whole

    # The probe part answers its requests, then the search is stopped twice, each time having
    # answered more of its own.
    held = []
    for calls in (60, 140):
        with monkeypatch.context() as stopped:
            _stopped_at(stopped, target_log, calls)
            code, out = call(capsys, *command)
        assert code == 130 and "interrupted in part identities" in out, out
        held.append(_answered(ws))
    assert held[0] < held[1], held

    before, agent_before = _answered(ws), _lines(agent_log)
    code, out = call(capsys, *command)
    assert code == 0, out
    found = SOME_NOW.search(out)
    assert found is not None, out
    now, calls, runs, agent = (int((found[i] or "0").replace(",", "")) for i in (1, 2, 3, 4))
    # The runs hold every answered request of the store (the probe's and the search's, stored
    # by three commands); this command answered what it added, and its agent's calls apart.
    assert runs == _answered(ws) > before, (runs, before, out)
    assert (now, calls) == (runs - before, _lines(agent_log) - agent_before), (now, calls, out)
    assert 1 <= agent <= _lines(agent_log), (agent, out)

    # Run again, every part finished: none now, the same held.
    code, again = call(capsys, *command)
    assert code == 0, again
    said = NONE_NOW.search(again)
    assert said is not None and said[2] is None, again
    assert (int(said[3].replace(",", "")), int(said[4])) == (runs, agent), again


def test_a_set_run_whose_answers_are_all_stored_says_them_reused_and_bought_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    file = gated_below_95(tmp_path, "reused")
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--quiet")
    assert code == 0, out
    held = _answered(ws)
    assert f"; {held} requests answered now; report " in out, out

    # Two samples a pair ask the same requests as one: a new run, every answer of it stored.
    code, again = call(capsys, "--store", ws, "audit", "run", file, "--until-decided",
                       "--batches", "4", "--set", "probes.0.params.samples_paired=2",
                       "--quiet")  # fmt: skip
    assert code == 0, again
    assert _answered(ws) == held, "every request was stored: nothing to ask"
    said = NONE_NOW.search(again)
    assert said is not None, again
    assert (int(said[2]), int(said[3]), said[4]) == (held, held, None), again
    assert "requests answered now" not in again, again
    stop = re.search(r"^stopped: .*$", again, re.M)
    assert stop is not None, again
    assert re.match(
        rf"stopped: [^;]+; read {held} of {held} requests \(100\.0%\) from the store at look 1, "
        r"which read the whole design, nothing bought;",
        stop[0],
    ), stop[0]
