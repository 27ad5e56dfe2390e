"""Runs stopped early: one whose status write was lost (what a stop during the engine's clean-up
leaves behind), and a decided run bought on and stopped after a few trials (Ctrl-C on
``diptych resume``), then audited again."""

from __future__ import annotations

import asyncio
import hashlib
import shutil
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from diptych.cli.signals import settle_stopped
from diptych.core.engine import Reporter
from diptych.core.store import open_store
from diptych.core.workspace import RunSummary, Workspace


def stopped_left_running(ws: Workspace, reporter: Reporter, started: asyncio.Event) -> RunSummary:
    """A run of 30 trials on the scripted likelihood model, one at a time, cancelled once
    ``reporter`` has set ``started``, then stored as "running" as a stop landing between the
    last answer and the status write leaves it. The workspace holds no other run."""
    model = ("scripted-likelihood", {"latency": 0.02, "max_concurrency": 1})

    async def stop_early() -> None:
        task = asyncio.create_task(
            ws.runs.run("scripted", [model], params={"n": 30}, reporter=reporter)
        )
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(stop_early())
    (summary,) = ws.runs.list()
    with open_store(ws.path) as store:
        store.set_run_status(summary.run.id, "running")
    return summary


class FirstTrials:
    """A Reporter that says (``some``) when ``after`` trials (three) have finished."""

    def __init__(self, after: int = 3) -> None:
        self.some = asyncio.Event()
        self.finished = 0
        self.after = after

    def __getattr__(self, name: str) -> Any:  # every other Reporter call is ignored
        return lambda *args, **kwargs: None

    def trial_finished(self, model_id: str, status: str, error: str | None) -> None:
        self.finished += 1
        if self.finished >= self.after:
            self.some.set()


def bought_on_and_interrupted(ws: str, run_id: str, after: int = 3) -> None:
    """Buy on the run as ``diptych resume`` does, stopped (Ctrl-C) after a few trials (once
    ``after`` have finished), and settled as the CLI settles a stop."""
    with Workspace.open(ws) as opened:
        reporter = FirstTrials(after)

        async def stop_early() -> None:
            task = asyncio.create_task(opened.runs.resume(run_id, reporter=reporter))
            await reporter.some.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(stop_early())
        settle_stopped(opened, run_id)


def bought_on_and_audited_again(
    capsys: Any, ws: str, *model: str, lists: Sequence[str] | None = None
) -> tuple[str, str]:
    """A run decided at look 1 of 4 (:func:`~tests.support.sequential_audits.
    decided_at_first_look`), bought on and interrupted, then the same ``--until-decided``
    command again, which decides it again on the same looks: the run's id and what that
    command printed. ``lists``: the identity lists' ``-p`` words, if not the usual six a list."""
    from tests.support.cli import call
    from tests.support.sequential_audits import LISTS, decided_at_first_look, until_decided

    lists = LISTS if lists is None else lists
    run_id = decided_at_first_look(capsys, ws, *model, lists=lists)
    bought_on_and_interrupted(ws, run_id)
    code, out = call(capsys, "--store", ws, *until_decided(*model, lists=lists))
    assert code == 0, out
    return run_id, out


def last_look(ws: str) -> Any:
    """The last look the one audit part of ``ws`` recorded (its figures as that look read them)."""
    from pathlib import Path

    from diptych.core.audit.record import list_audits
    from diptych.core.audit.sequential import PartLooks

    with open_store(Path(ws)) as store:
        (part,) = [p for a in list_audits(store) for p in a.parts]
    looks = PartLooks.of(part.detail)
    assert looks is not None and looks.last is not None
    return looks.last


def look_keys(ws: Path, run_id: str, seed: int, bought: int) -> list[str]:
    """The requests the look read, found here from the store alone: the run's distinct
    requests in the order the audit's seed fixes (sha256 of the seed and the key), the first
    ``bought`` of them with an answer."""
    with sqlite3.connect(ws / "diptych.db") as db:
        keys = {k for (k,) in db.execute("SELECT key FROM trials WHERE run_id = ?", (run_id,))}
        answered = {k for (k,) in db.execute("SELECT key FROM results WHERE status != 'failed'")}
    order = sorted(keys, key=lambda k: hashlib.sha256(f"{seed}:{k}".encode()).hexdigest())
    return [k for k in order if k in answered][:bought]


def look_trials_alone(ws: Path, alone: Path, run_id: str, bought: int) -> None:
    """A copy at ``alone`` of the workspace ``ws`` whose run ``run_id`` (the one part of its
    one audit) holds only the ``bought`` trials its last look read: a run decided at its look
    and never bought on, to read by hand what a bought-on run's look read."""
    shutil.copytree(ws, alone)
    with Workspace.open(str(alone)) as opened:
        (part,) = [p for audit in opened.audits.list() for p in audit.parts]
        seed = int(part.detail["sequential"]["order_seed"])
    keys = look_keys(alone, run_id, seed, bought)
    assert len(keys) == bought
    with sqlite3.connect(alone / "diptych.db") as db:
        marks = ",".join("?" * len(keys))
        db.execute(f"DELETE FROM trials WHERE run_id = ? AND key NOT IN ({marks})", (run_id, *keys))


def forget_one_answer(ws: Path, run_id: str) -> None:
    """One answered trial of ``run_id`` left to ask again (its result deleted): a run with a
    trial pending, which a status of "interrupted" then describes."""
    with sqlite3.connect(ws / "diptych.db") as db:
        db.execute(
            "DELETE FROM results WHERE key = (SELECT t.key FROM trials t JOIN results r"
            " ON r.key = t.key WHERE t.run_id = ? LIMIT 1)",
            (run_id,),
        )
