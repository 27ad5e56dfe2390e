"""SIGTERM is handled as Ctrl-C: inside an event loop the main task is cancelled (so a run
abandons its calls in flight, finishes and gives its lease back), elsewhere KeyboardInterrupt."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from diptych.cli.signals import terminate_as_interrupt


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
