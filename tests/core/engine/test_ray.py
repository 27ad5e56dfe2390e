"""The Ray executor: local-model trials in Ray actors, the same results as a local run.

A Ray instance with 2 CPUs is started once for the module and shut down at its end.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import ray

from diptych.core.engine import RunOptions, run_async, run_probe
from diptych.core.engine.executors.ray import ResultSink
from diptych.core.errors import MissingDependencyError
from diptych.core.store import RunRecord, Store, open_store
from diptych.testing import ScriptedImageGenerator, ScriptedLikelihood, ScriptedParams

RAY = RunOptions(executor="ray")


@pytest.fixture(scope="module", autouse=True)
def ray_instance() -> Any:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


class Tally:
    """A reporter that counts finished trials by status and keeps the notes."""

    def __init__(self) -> None:
        self.finished: Counter[str] = Counter()
        self.notes: list[str] = []

    def run_started(self, run: RunRecord, total: int, cached: int, to_run: int) -> None:
        self.to_run = to_run

    def trial_finished(self, model_id: str, status: str, error: str | None) -> None:
        self.finished[status] += 1

    def note(self, text: str) -> None:
        self.notes.append(text)

    def run_finished(self, run: RunRecord, counts: dict[str, int]) -> None:
        pass


def results(store: Store, run_id: str) -> dict[str, tuple[str, Any, bytes | None]]:
    """Each result of the run by key: status, output and the bytes of its blob."""
    return {
        key: (r.status, r.output, store.get_blob(r.blob) if r.blob else None)
        for key, r in store.run_results(run_id).items()
    }


def diptych_actors() -> list[str]:
    return [name for name in ray.util.list_named_actors() if name.startswith("diptych:")]


def images(**params: Any) -> ScriptedImageGenerator:
    return ScriptedImageGenerator(ScriptedParams(**params))


def test_results_and_blobs_match_a_local_run(scripted: None, tmp_path: Path) -> None:
    plan = {"n": 24, "capability": "image_generator", "samples": 2}
    with open_store(tmp_path / "local") as here, open_store(tmp_path / "ray") as there:
        local = run_probe(here, "scripted", [images(batch_size=4)], probe_params=plan)
        tally = Tally()
        driver_side = images(batch_size=4)
        remote = run_probe(
            there, "scripted", [driver_side], probe_params=plan, options=RAY, reporter=tally
        )
        assert remote.status == local.status == "complete"
        assert remote.fingerprint == local.fingerprint
        assert results(there, remote.id) == results(here, local.id)
        assert len(results(there, remote.id)) == 48
        # The calls were made in the actors, never by the driver's own instance ...
        assert driver_side.calls == 0
        # ... in batches of the model's batch size, and progress counted each trial once.
        batches = {r.provenance.get("batch_size") for r in there.run_results(remote.id).values()}
        assert batches == {4}
        assert tally.finished == {"done": 48} and tally.to_run == 48
    assert diptych_actors() == []


def test_a_tiny_clip_embeds_the_same_in_ray_actors(tmp_path: Path) -> None:
    """A real torch model (the tiny CLIP) through the Ray executor: the counterfactual probe's
    PAIRS trials give the embeddings of a local run."""
    import numpy as np
    from support.tiny.clip import build_tiny_clip

    clip_dir = tmp_path / "tiny-clip"
    build_tiny_clip(clip_dir)
    model, plan = f"clip:{clip_dir}", {"sets": "pairs"}
    with open_store(tmp_path / "local") as here, open_store(tmp_path / "ray") as there:
        local = run_probe(here, "counterfactual-retrieval", [model], probe_params=plan)
        remote = run_probe(
            there, "counterfactual-retrieval", [model], probe_params=plan, options=RAY
        )
        assert remote.status == local.status == "complete"
        assert remote.fingerprint == local.fingerprint
        mine, theirs = here.run_results(local.id), there.run_results(remote.id)
        assert mine.keys() == theirs.keys() and len(mine) > 0
        for key, result in mine.items():
            assert theirs[key].status == result.status == "done"
            np.testing.assert_allclose(
                theirs[key].output["embeddings"], result.output["embeddings"], atol=1e-5
            )
    assert diptych_actors() == []


def test_paid_models_stay_on_the_driver(scripted: None, store: Store, tmp_path: Path) -> None:
    paid = ScriptedLikelihood(ScriptedParams(price_per_call=0.01))
    free = ScriptedLikelihood(ScriptedParams(version="2", calls_log=str(tmp_path / "calls")))
    run = run_probe(store, "scripted", [paid, free], probe_params={"n": 10}, options=RAY)
    assert store.status_counts(run.id)["done"] == 20
    # The paid model answered in this process, the free local one only in Ray actors.
    assert paid.calls == 10 and free.calls == 0
    pids = {json.loads(line)["pid"] for line in (tmp_path / "calls").read_text().splitlines()}
    assert len(pids) >= 1 and os.getpid() not in pids
    assert store.claims() == []


def test_a_result_that_arrives_twice_is_stored_and_counted_once(
    scripted: None, store: Store
) -> None:
    run = run_probe(store, "scripted", [ScriptedLikelihood()], probe_params={"n": 1})
    ((key, stored),) = store.run_results(run.id).items()
    again = dataclasses.replace(stored, key="k" * 64, attempts=1)
    tally = Tally()
    sink = ResultSink(store, stored.model_id, tally)
    assert sink.persist(([again], {}, ["a note"])) == 1
    assert sink.persist(([again], {}, [])) == 0
    twice = store.result("k" * 64)
    assert twice is not None and twice.attempts == 1
    assert tally.finished == {"done": 1} and tally.notes == ["a note"]


def test_a_worker_killed_mid_run_loses_and_repeats_nothing(scripted: None, tmp_path: Path) -> None:
    log = tmp_path / "calls"
    model = ScriptedLikelihood(ScriptedParams(latency=0.05, max_concurrency=1, calls_log=str(log)))
    tally = Tally()
    outcome: dict[str, RunRecord] = {}

    def run() -> None:
        with open_store(tmp_path / "ws") as store:
            outcome["run"] = run_probe(
                store, "scripted", [model], probe_params={"n": 80}, options=RAY, reporter=tally
            )

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 60
    while sum(tally.finished.values()) < 10 and time.monotonic() < deadline:
        time.sleep(0.05)
    victim = sorted(diptych_actors())[0]
    ray.kill(ray.get_actor(victim), no_restart=True)
    thread.join(120)
    assert not thread.is_alive()
    with open_store(tmp_path / "ws") as store:
        run_id = outcome["run"].id
        if outcome["run"].status != "complete":
            outcome["run"] = run_probe(
                store, "scripted", [model], probe_params={"n": 80}, options=RAY, reporter=tally
            )
        assert outcome["run"].status == "complete" and outcome["run"].id == run_id
        stored = store.run_results(run_id)
        assert len(stored) == 80 and {r.status for r in stored.values()} == {"done"}
        assert {r.attempts for r in stored.values()} == {1}
    # Every trial reported once: none lost, none counted twice.
    assert tally.finished == {"done": 80}
    assert any("died" in note for note in tally.notes)
    prompts = Counter(json.loads(line)["text"] for line in log.read_text().splitlines())
    # Only calls in flight on the killed worker were asked twice.
    assert set(prompts) == {f"request {i}" for i in range(80)}
    assert sum(prompts.values()) - 80 <= 4
    assert diptych_actors() == []


async def test_cancelling_kills_the_actors_and_resume_finishes(
    scripted: None, store: Store
) -> None:
    from diptych.core.plugins import get_probe

    model = ScriptedLikelihood(ScriptedParams(latency=0.05, max_concurrency=1))
    tally = Tally()
    task = asyncio.create_task(
        run_async(store, get_probe("scripted", {"n": 200}), [model], options=RAY, reporter=tally)
    )
    while sum(tally.finished.values()) < 10:
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert diptych_actors() == []
    (run,) = store.list_runs()
    done = store.status_counts(run.id)["done"]
    assert 10 <= done < 200 and store.get_run(run.id).status != "complete"
    resumed = await run_async(
        store,
        get_probe("scripted", {"n": 200}),
        [model],
        options=RunOptions(executor="ray", run_id=run.id),
        reporter=tally,
    )
    assert resumed.status == "complete"
    assert store.status_counts(run.id)["done"] == 200
    assert tally.finished["done"] == 200


def test_without_ray_the_run_names_the_extra(
    scripted: None, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(MissingDependencyError, match=r"diptych\[ray\]"):
        run_probe(store, "scripted", [ScriptedLikelihood()], probe_params={"n": 2}, options=RAY)


def test_an_unknown_executor_is_refused() -> None:
    with pytest.raises(ValueError, match="executor must be one of local, ray"):
        RunOptions(executor="spark")
