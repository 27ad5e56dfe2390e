"""A run stopped part way (a cancel, as the terminal app's ``c`` does) whose remaining trials
another run of its design stored since has nothing pending: ``runs``, its JSON and ``show`` call
it complete, never "interrupted" beside "pending 0", and so does the store once that run ends."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.stopped_runs import FirstTrials

pytestmark = pytest.mark.usefixtures("scripted_plugin")

MODEL = ("scripted-likelihood", {"latency": 0.01, "max_concurrency": 1})


def _cancelled(ws: str) -> str:
    """A run of 30 trials cancelled once a few have finished: its id."""
    with Workspace.open(ws) as opened:
        reporter = FirstTrials()

        async def stop_early() -> None:
            task = asyncio.create_task(
                opened.runs.run("scripted", [MODEL], params={"n": 30}, reporter=reporter)
            )
            await reporter.some.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(stop_early())
        (summary,) = opened.runs.list()
    return summary.run.id


def _said(capsys: pytest.CaptureFixture[str], *words: str) -> str:
    code, out = call(capsys, *words)
    assert code == 0, out
    return out


def _reads_complete(capsys: pytest.CaptureFixture[str], ws: str, run_id: str) -> None:
    listed = {r["id"]: r for r in json.loads(_said(capsys, "--store", ws, "runs", "--json"))}
    assert listed[run_id]["status"] == "complete", listed[run_id]
    assert listed[run_id]["status_text"] == "complete", listed[run_id]
    assert listed[run_id]["counts"]["pending"] == 0, listed[run_id]
    listing = _said(capsys, "--store", ws, "runs")
    assert "interrupted" not in listing, listing
    show = " ".join(_said(capsys, "--store", ws, "show", run_id).split())
    assert "status complete" in show and "interrupted" not in show, show
    assert "pending 0" in show, show


def test_a_cancelled_run_whose_trials_another_run_stored_reads_complete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")
    ws = str(tmp_path / "ws")
    first = _cancelled(ws)
    with open_store(ws) as store:
        assert store.get_run(first).status == "interrupted"
        assert store.status_counts(first)["pending"] > 0
    # A new run of the same design reuses what the first stored and buys the rest.
    _said(
        capsys, "--store", ws, "run", "scripted", "-p", "n=30", "-m", "scripted-likelihood",
        "-M", "latency=0.01", "--new",
    )  # fmt: skip
    with open_store(ws) as store:
        assert len(store.list_runs()) == 2
        assert store.get_run(first).status == "complete"
        assert store.status_counts(first) == {"done": 30, "refused": 0, "failed": 0, "pending": 0}
    _reads_complete(capsys, ws, first)


def test_a_stopped_run_stored_as_interrupted_with_nothing_pending_reads_complete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A workspace whose stopped run was completed by another run before its status followed
    (the status stored is still "interrupted"): every listing reads what the store holds."""
    monkeypatch.setenv("COLUMNS", "260")
    ws = str(tmp_path / "ws")
    first = _cancelled(ws)
    _said(
        capsys, "--store", ws, "run", "scripted", "-p", "n=30", "-m", "scripted-likelihood",
        "-M", "latency=0.01", "--new",
    )  # fmt: skip
    with open_store(ws) as store:
        store.set_run_status(first, "interrupted")
    _reads_complete(capsys, ws, first)
