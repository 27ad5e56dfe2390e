"""Quitting while the Audit screen's audit buys from a local model whose call holds its thread (as
llama.cpp does mid-generation) does not wait for that call: the app exits while it is still
held, the run is ``interrupted`` with the held trial pending (none failed, nothing stored of
it), and a resume asks exactly the trials not stored, the held one among them."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from steps import open_audit, shown, wait_for

from diptych.core import plugins
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.testing.scripted import ScriptedLikelihood
from diptych.tui.app import DiptychApp
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")

#: Calls answered before the one that holds its thread.
ANSWERED = 4


class HeldInThread(ScriptedLikelihood):
    """A blocking local model, one call at a time, whose call after :data:`ANSWERED` holds its
    worker thread until ``release`` is set (the timeout only keeps a broken stop from hanging
    the suite)."""

    name = "held-in-thread"
    calls_seen = 0
    prompts: list[str] = []
    held = threading.Event()
    release = threading.Event()
    returned = threading.Event()

    def __init__(self, params: Any = None) -> None:
        super().__init__(params)
        self.hints.blocking = True
        self.hints.max_concurrency = 1

    async def next_token_logprobs(self, prompt: str, candidates: Sequence[str]) -> dict[str, float]:
        HeldInThread.calls_seen += 1
        HeldInThread.prompts.append(prompt)
        if HeldInThread.calls_seen == ANSWERED + 1:
            HeldInThread.held.set()
            HeldInThread.release.wait(timeout=120)
            HeldInThread.returned.set()
        return await super().next_token_logprobs(prompt, candidates)


@pytest.fixture
def held_in_thread() -> Iterator[type[HeldInThread]]:
    HeldInThread.calls_seen, HeldInThread.prompts = 0, []
    for event in (HeldInThread.held, HeldInThread.release, HeldInThread.returned):
        event.clear()
    name = plugins.register_plugin(
        plugins.plugin_module(register_models=lambda register: register(HeldInThread)), "held"
    )
    yield HeldInThread
    # The held call ends, whatever the test saw: no thread outlives the test waiting.
    HeldInThread.release.set()
    plugins.unregister_plugin(name)


async def test_quitting_while_a_local_call_holds_its_thread_exits_and_keeps_it_pending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held_in_thread: type[HeldInThread]
) -> None:
    monkeypatch.chdir(tmp_path)
    path = planted_audit(tmp_path / "held.yaml", [{"part": "pst-text", "figure": FIGURE,
                         "below": 60}], MASC, FEM, name="held", seed=0)  # fmt: skip
    audit = yaml.safe_load(path.read_text(encoding="utf-8"))
    audit["models"]["target"]["plugin"] = HeldInThread.name
    path.write_text(yaml.safe_dump(audit, sort_keys=False), encoding="utf-8")
    ws = tmp_path / ".diptych"
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test() as pilot:
        screen = await open_audit(pilot)
        await pilot.press(*"held.yaml", "enter")
        await wait_for(pilot, lambda: screen.plan is not None, "the plan", lambda: shown(app))
        await pilot.press("ctrl+r")
        await wait_for(pilot, HeldInThread.held.is_set, "a call holding its thread")
        await pilot.press("q")
    # The app has exited, its audit's thread ended, while the call still holds its own.
    assert not HeldInThread.returned.is_set()
    assert screen._control is not None and screen._control.finished.is_set()

    with Workspace.open(ws) as opened:
        (run,) = opened.runs.list()
    with open_store(ws) as store:
        answered, planned = store.requests_answered(run.run.id)
        pending = {t.payload["prompt"] for t in store.pending_trials(run.run.id)}
    assert run.run.status == "interrupted", run.counts
    assert run.counts["failed"] == 0 and run.counts["refused"] == 0, run.counts
    assert answered == ANSWERED and run.counts["pending"] > 0, (answered, run.counts)
    assert HeldInThread.prompts[ANSWERED] in pending

    # A resume asks exactly the trials not stored, each once: the held one among them.
    HeldInThread.release.set()
    HeldInThread.prompts = []
    with Workspace.open(ws) as opened:
        resumed = await opened.runs.resume(run.run.id)
    assert resumed.status == "complete"
    assert sorted(HeldInThread.prompts) == sorted(pending)
    with open_store(ws) as store:
        assert store.requests_answered(run.run.id) == (planned, planned)
