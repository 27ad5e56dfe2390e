"""SIGKILL during a batch of ``audit run --until-decided``, then the same command again: no
answer stored before the kill is lost or asked again, and the looks, the stop and the gates are
exactly those of the same audit run without a kill."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from diptych.audit import run_audit
from diptych.core.audit.sequential import PartLooks
from diptych.core.workspace import Workspace
from diptych.testing.drills.kills import integrity, kill_after, log_lines, scripted_cli

FIGURE = "STS paired (expected from P(he), P(she))"
MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
#: 6 × 6 scenes, both orders, both people: 144 prompts, 4 batches of 36.
REQUESTS, BATCHES = 144, 4


def _audit(path: Path, calls: Path, limit: float) -> Path:
    planted = {**{m: 0.2 for m in MASC}, **{f: 0.8 for f in FEM}}
    params = {"p_feminine": planted, "noise": 0.3, "calls_log": str(calls), "latency": 0.01,
              "max_concurrency": 2}  # fmt: skip
    data = {
        "name": "drill",
        "seed": 4,
        "models": {"target": {"plugin": "scripted-likelihood", "params": params}},
        "probes": [{"probe": "pst-text", "models": ["target"],
                    "params": {"masculine": MASC, "feminine": FEM, "setting": "paired"}}],
        "report": {"formats": ["json"]},
        "gates": [{"part": "pst-text", "figure": FIGURE, "below": limit,
                   "on_inconclusive": "warn"}],
    }  # fmt: skip
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _looks(store: Path) -> tuple[str, list[tuple[int, int, float]]]:
    with Workspace.open(store, create=False) as ws:
        (audit,) = ws.audits.list()
        looks = PartLooks.of(audit.parts[0].detail)
    assert looks is not None
    return audit.status, [
        (look.batch, look.bought, look.numbers[FIGURE]["value"]) for look in looks.looks
    ]


def _asked(calls: Path) -> list[str]:
    return [json.loads(line)["text"] for line in log_lines(calls)]


def _stored(store: Path) -> dict[str, Any]:
    """Prompt -> output of every stored answer (none before the workspace exists)."""
    if not (store / "diptych.db").exists():
        return {}
    with Workspace.open(store, create=False) as ws:
        runs = ws.runs.list()
        if not runs:
            return {}
        view = ws.runs.view(runs[0].run.id)
        prompt = {t.key: t.payload["prompt"] for t in view.trials}
        return {prompt[k]: r.output for k, r in view.results.items() if k in prompt}


@pytest.fixture(scope="module")
def scripted_models() -> Iterator[None]:
    """The scripted models for the module's own fixture (the subprocesses register their own)."""
    import diptych.testing
    from diptych.core import plugins

    plugins.load_plugins()
    if plugins.plugin_manager().is_registered(diptych.testing):
        yield
        return
    name = plugins.register_plugin(diptych.testing, "testing")
    yield
    plugins.unregister_plugin(name)


@pytest.fixture(scope="module")
def reference(
    tmp_path_factory: pytest.TempPathFactory, scripted_models: None
) -> tuple[float, str, list[Any]]:
    """The limit (the complete design's value: the gate stays undecided to the end) and the
    looks of the audit run without a kill."""
    where = tmp_path_factory.mktemp("reference")
    fixed = _audit(where / "fixed.yaml", where / "fixed.jsonl", 0.0)
    with Workspace.open(where / "fixed-ws") as ws:
        outcome = asyncio.run(run_audit(ws, fixed, out_dir=where / "fixed-rep"))
        limit = ws.audits.gates(outcome.audit_id).results[0].value
    assert limit is not None
    path = _audit(where / "a.yaml", where / "calls.jsonl", limit)
    args = ("audit", "run", str(path), "--until-decided", "--batches", str(BATCHES), "--quiet",
            "--out", str(where / "rep"))  # fmt: skip
    done = subprocess.run(scripted_cli(where / "ws", *args), capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    status, looks = _looks(where / "ws")
    assert status == "complete" and [b for b, _, _ in looks] == [1, 2, 3, 4]
    return limit, status, looks


@pytest.mark.parametrize("after_calls", [5, 40, 72, 110])
def test_a_kill_during_a_batch_loses_nothing(
    tmp_path: Path, reference: tuple[float, str, list[Any]], after_calls: int
) -> None:
    limit, status, looks = reference
    store, calls = tmp_path / "ws", tmp_path / "calls.jsonl"
    path = _audit(tmp_path / "a.yaml", calls, limit)
    args = ("audit", "run", str(path), "--until-decided", "--batches", str(BATCHES), "--quiet",
            "--out", str(tmp_path / "rep"))  # fmt: skip
    proc = subprocess.Popen(scripted_cli(store, *args), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    kill_after(proc, calls, after_calls)
    assert proc.returncode == -signal.SIGKILL  # killed during the run, not after it
    stored = _stored(store)
    seen = len(log_lines(calls))
    again = subprocess.run(scripted_cli(store, *args), capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stdout + again.stderr
    after = _stored(store)
    assert [p for p, out in stored.items() if after.get(p) != out] == []
    assert set(_asked(calls)[seen:]) & set(stored) == set()
    # The looks and the stop of the audit run without a kill, each batch whole.
    assert _looks(store) == (status, looks)
    assert len(after) == REQUESTS
    assert integrity(store) == "ok"
