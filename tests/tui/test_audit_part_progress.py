"""ctrl+r on the Audit screen shows the running part's progress as it goes: its row's trials
stored and requests to run are read again from the store while the part runs (every few
seconds, as the engine stores trials), never left at the counts of when the file was opened
until the part ends. Here the model holds its call after a few answers, the part still
running, and the row says what the store holds then."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from steps import SIZE, open_audit, shown, wait_for

import diptych.tui.screens.audit.buying as buying
from diptych.audit import plan_audit
from diptych.core import plugins
from diptych.core.workspace import Workspace
from diptych.testing.scripted import ScriptedLikelihood
from diptych.tui.app import DiptychApp
from diptych.tui.widgets.fit_table import FitTable
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = [pytest.mark.surface, pytest.mark.usefixtures("scripted_plugin")]

#: Calls answered before the one that holds its thread.
ANSWERED = 6


class HeldAfterSome(ScriptedLikelihood):
    """A local model, one call at a time, whose call after :data:`ANSWERED` holds until
    ``release`` is set (the timeout only keeps a broken test from hanging the suite)."""

    name = "held-after-some"
    calls_seen = 0
    held = threading.Event()
    release = threading.Event()

    def __init__(self, params: Any = None) -> None:
        super().__init__(params)
        self.hints.blocking = True
        self.hints.max_concurrency = 1

    async def next_token_logprobs(self, prompt: str, candidates: Sequence[str]) -> dict[str, float]:
        HeldAfterSome.calls_seen += 1
        if HeldAfterSome.calls_seen == ANSWERED + 1:
            HeldAfterSome.held.set()
            HeldAfterSome.release.wait(timeout=120)
        return await super().next_token_logprobs(prompt, candidates)


@pytest.fixture
def held_model(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[HeldAfterSome]]:
    HeldAfterSome.calls_seen = 0
    HeldAfterSome.held.clear()
    HeldAfterSome.release.clear()
    monkeypatch.setattr(buying, "REFRESH_EVERY", 0.2)  # a test need not wait seconds
    name = plugins.register_plugin(
        plugins.plugin_module(register_models=lambda register: register(HeldAfterSome)), "held"
    )
    yield HeldAfterSome
    HeldAfterSome.release.set()
    plugins.unregister_plugin(name)


def _stored(file: Path) -> tuple[str, str]:
    """The part's trials stored and requests to run, as the store holds them now."""
    with Workspace.open(".diptych") as ws:
        (part,) = plan_audit(ws, file).parts
    assert part.estimate is not None
    return f"{part.estimate.cached:,}", f"{part.estimate.to_run:,}"


async def test_the_running_parts_counts_move_with_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held_model: type[HeldAfterSome]
) -> None:
    monkeypatch.chdir(tmp_path)
    gate = {"part": "pst-text", "figure": FIGURE, "below": 60}
    file = planted_audit(tmp_path / "held.yaml", [gate], MASC, FEM, name="held", seed=0)
    audit = yaml.safe_load(file.read_text(encoding="utf-8"))
    audit["models"]["target"]["plugin"] = HeldAfterSome.name
    file.write_text(yaml.safe_dump(audit, sort_keys=False), encoding="utf-8")
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_audit(pilot)
        await pilot.press(*file.name, "enter")
        await wait_for(pilot, lambda: screen.plan is not None, "the plan", lambda: shown(app))
        parts = screen.query_one("#parts", FitTable)
        columns = [list(parts.headers).index(c) for c in ("trials stored", "requests to run")]

        def drawn() -> tuple[str, str]:
            (row,) = [cells for key, cells in parts.source if key == "pst-text"]
            return row[columns[0]], row[columns[1]]

        before = drawn()
        assert before[0] == "0" and before == _stored(file), before
        await pilot.press("ctrl+r")
        try:
            await wait_for(pilot, held_model.held.is_set, "the call that holds")
            # The trials answered before the held call are stored; the part still runs.
            await wait_for(pilot, lambda: _stored(file)[0] != "0", "trials stored")
            now = _stored(file)
            assert now[1] != before[1], (now, before)
            await wait_for(pilot, lambda: drawn() == now, "the row's counts as stored",
                           lambda: f"{drawn()} {now} {shown(app)}")  # fmt: skip
            assert screen.status["pst-text"].startswith("running"), screen.status
        finally:
            held_model.release.set()
        await wait_for(pilot, lambda: drawn() == _stored(file) and drawn()[1] == "0",
                       "the part's end", lambda: f"{drawn()} {shown(app)}")  # fmt: skip
