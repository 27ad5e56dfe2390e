"""SIGTERM is handled as Ctrl-C: inside an event loop the main task is cancelled (so a run
abandons its calls in flight, finishes and gives its lease back), elsewhere KeyboardInterrupt."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest
from support.stopped_runs import FirstTrials, stopped_left_running

from diptych.cli.signals import settle_stopped, terminate_as_interrupt
from diptych.core.workspace import Workspace


def test_sigterm_raises_keyboard_interrupt_outside_a_loop() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), terminate_as_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
        signal.sigtimedwait([], 0)  # a point at which Python runs the handler
    assert signal.getsignal(signal.SIGTERM) is before


def test_sigterm_cancels_the_running_task_as_ctrl_c_does() -> None:
    seen: list[str] = []

    async def run() -> None:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            seen.append("cancelled")  # the engine's clean-up runs here
            raise
        finally:
            seen.append("finally")

    with pytest.raises(KeyboardInterrupt), terminate_as_interrupt():
        asyncio.run(run())
    assert seen == ["cancelled", "finally"]


def test_a_stop_that_left_the_run_running_is_recorded_as_interrupted(
    diptych_workspace: Workspace, scripted_plugin: None
) -> None:
    ws = diptych_workspace
    reporter = FirstTrials()
    # A signal landing between the last answer and the status write leaves it "running" with
    # no process holding it: listings would call it stale.
    summary = stopped_left_running(ws, reporter, reporter.some)
    settle_stopped(ws, summary.run.id)
    assert ws.runs.get(summary.run.id).status == "interrupted"
    counts = ws.runs.counts(summary.run.id)
    assert counts["pending"] > 0 and counts["done"] >= 3


def test_a_finished_run_is_left_as_it_is(
    diptych_workspace: Workspace, scripted_plugin: None
) -> None:
    run = diptych_workspace.runs.run_sync("scripted", ["scripted-likelihood"], params={"n": 2})
    settle_stopped(diptych_workspace, run.id)
    assert diptych_workspace.runs.get(run.id).status == "complete"
