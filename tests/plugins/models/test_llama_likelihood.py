"""Likelihood requests evaluated in their template's pieces on the real SmolLM2.

A stored value must not depend on what ran before it: these tests ask the same requests in
plan order, shuffled, in batches of every size, from a fresh model, after a kill and resume,
split across processes and from several threads at once, and demand byte-identical values.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from diptych.core.capabilities import LikelihoodRequest
from diptych.core.engine import run_probe
from diptych.core.plugins import get_probe
from diptych.core.store import Store
from diptych.core.trials import canonical_json
from diptych.plugins.models import llamacpp
from diptych.plugins.models.llamacpp import SmolLM2

pytestmark = pytest.mark.slow

#: One male-stereotyped and two female-stereotyped occupations: 8 paired prompts in 4 scenes
#: (the carpenter's first piece shared by two of them) and 3 single ones.
SUBSET = {"masculine": ["carpenter"], "feminine": ["nurse", "secretary"]}
CLI_SUBSET = ["-p", "masculine=carpenter", "-p", "feminine=nurse,secretary"]


def subset_requests() -> list[LikelihoodRequest]:
    """The subset's distinct likelihood requests, in plan order."""
    out: dict[str, LikelihoodRequest] = {}
    for spec in get_probe("pst-text", SUBSET).plan():
        request = LikelihoodRequest.from_payload(spec.payload)
        out.setdefault(request.prompt, request)
    return list(out.values())


def as_bytes(values: list[dict[str, float]]) -> str:
    """The values as the store keeps them: JSON, so equal text means equal bits."""
    return canonical_json(values)


@pytest.fixture(scope="module")
def model() -> Iterator[SmolLM2]:
    # One thread: values are the same for any count, and a busy machine slows two a lot.
    loaded = SmolLM2(SmolLM2.Params(n_threads=1))
    loaded.load()
    yield loaded
    asyncio.run(loaded.aclose())


@pytest.fixture(scope="module")
def reference(model: SmolLM2) -> list[dict[str, float]]:
    """Every request from an empty cache, one at a time, nothing kept between them."""
    values = []
    for request in subset_requests():
        model._evaluator.forget()
        values.append(model._batch_sync([request])[0])
    model._evaluator.forget()
    return values


def test_the_probe_states_the_pieces_of_its_template() -> None:
    requests = subset_requests()
    assert len(requests) == 8 + 3
    first = requests[0]
    assert first.segments == (
        "One ",
        "carpenter stands on the left and one ",
        "nurse stands on the right. The ",
        "carpenter on the left says that",
    )
    assert first.siblings == ("carpenter on the left says that", "nurse on the right says that")
    single = requests[-1]
    assert single.segments == ("One ", "secretary stands here. The secretary says that")
    assert single.siblings == ()


def test_values_are_those_of_a_fresh_evaluation_in_any_order_and_batch(
    model: SmolLM2, reference: list[dict[str, float]]
) -> None:
    requests = subset_requests()
    in_order = model._batch_sync(requests)
    assert as_bytes(in_order) == as_bytes(reference)
    rng = random.Random(26)
    for size in (1, 2, 3, 5, len(requests)):
        order = list(range(len(requests)))
        rng.shuffle(order)
        got: dict[int, dict[str, float]] = {}
        for start in range(0, len(order), size):
            chunk = order[start : start + size]
            for i, value in zip(
                chunk, model._batch_sync([requests[i] for i in chunk]), strict=True
            ):
                got[i] = value
        assert as_bytes([got[i] for i in range(len(requests))]) == as_bytes(reference), size


def test_kept_states_and_rows_change_nothing(
    model: SmolLM2, reference: list[dict[str, float]]
) -> None:
    requests = subset_requests()
    model._evaluator.forget()
    model._batch_sync(requests[:3])
    # A chat call in between leaves the context in a state the evaluator does not know.
    from diptych.core.capabilities import Message, Sampling

    asyncio.run(model.complete([Message(role="user", content="Hi")], Sampling(max_tokens=3)))
    backwards = [model._batch_sync([r])[0] for r in reversed(requests)]
    assert as_bytes(list(reversed(backwards))) == as_bytes(reference)


def test_a_prompt_stated_whole_keeps_the_values_of_one_batch_evaluation(
    model: SmolLM2,
) -> None:
    """Requests without pieces (earlier runs, other probes) keep their stored values."""
    import llama_cpp
    import numpy

    with llamacpp.amx_safe_loading():
        plain = llama_cpp.Llama(
            model_path=str(llamacpp.bundled_smollm2_gguf()), n_ctx=2048, verbose=False
        )
    try:
        for request in subset_requests():
            ids = plain.tokenize(request.prompt.encode(), add_bos=True, special=False)
            plain.reset()
            plain.eval(ids)
            logits = numpy.ctypeslib.as_array(
                llama_cpp.llama_cpp.llama_get_logits(plain.ctx), shape=(plain.n_vocab(),)
            )
            row = llama_cpp.Llama.logits_to_logprobs(logits)
            expected = {
                c: float(
                    row[plain.tokenize((request.prompt + c).encode(), special=False)[len(ids)]]
                )
                for c in request.candidates
            }
            assert model._logprobs_sync(request.prompt, request.candidates) == expected
            if not request.siblings:
                # A single prompt's pieces are the constant "One" and the rest, decoded in
                # one batch: the same values as the prompt stated whole.
                assert model._batch_sync([request])[0] == expected
    finally:
        plain.close()


def test_the_two_people_of_a_scene_are_two_sequences_of_one_batch(
    model: SmolLM2, monkeypatch: pytest.MonkeyPatch
) -> None:
    batches: list[tuple[int, set[int], int]] = []
    context = model._llm._ctx
    real_decode = context.decode

    def recording_decode(batch: Any) -> None:
        b = batch.batch
        seqs = {b.seq_id[i][s] for i in range(b.n_tokens) for s in range(b.n_seq_id[i])}
        outputs = sum(1 for i in range(b.n_tokens) if b.logits[i])
        batches.append((b.n_tokens, seqs, outputs))
        real_decode(batch)

    monkeypatch.setattr(context, "decode", recording_decode)
    model._evaluator.forget()
    requests = subset_requests()
    model._batch_sync(requests)
    scenes = [b for b in batches if b[1] == {0, 1}]
    # 4 scenes of two people; each batch outputs one row per person.
    assert len(scenes) == 4 and all(outputs == 2 for _, _, outputs in scenes)
    # "One" once, the first identity's piece once per identity (3), 4 scenes, 3 singles:
    # 11 batches for 11 prompts, each much shorter than a whole prompt.
    assert len(batches) == 1 + 3 + 4 + 3
    tokens = sum(n for n, _, _ in batches)
    whole = sum(len(model._tokenize(r.prompt)) for r in requests)
    assert tokens < 0.75 * whole


def test_a_batched_run_stores_what_one_trial_at_a_time_stores(tmp_path: Path) -> None:
    """The engine's batched road and its one-trial road (a retried trial) agree."""
    stored = []
    for batch_size in (64, 1):
        with Store(tmp_path / f"b{batch_size}") as store:
            run = run_probe(
                store,
                "pst-text",
                [SmolLM2(SmolLM2.Params(batch_size=batch_size, n_threads=1))],
                probe_params=SUBSET,
            )
            assert run.status == "complete"
            stored.append(outputs_of(store))
    assert len(stored[0]) == 11 and stored[0] == stored[1]


def outputs_of(store: Store | Path) -> dict[str, str]:
    """Each trial key's stored output, as the JSON text the store holds."""
    if isinstance(store, Store):
        (run,) = store.list_runs()
        results = store.run_results(run.id)
        return {k: canonical_json(r.output) for k, r in results.items() if r.status == "done"}
    with Store(store) as opened:
        return outputs_of(opened)


def cli(store: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "diptych.cli.main", "--store", str(store), *args]


def test_a_run_killed_and_resumed_stores_what_an_uninterrupted_run_stores(
    tmp_path: Path,
) -> None:
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    run = ["run", "pst-text", "-m", "smollm2", "-M", "n_threads=1", *CLI_SUBSET, "--quiet"]
    subprocess.run(cli(whole, *run), check=True, capture_output=True)
    # Two trials per call, so that the kill falls between stored results.
    proc = subprocess.Popen(
        cli(killed, *run, "-M", "batch_size=2"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and proc.poll() is None:
        if stored_results(killed) >= 4:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = outputs_of(killed)
    assert 4 <= len(partial) < 11
    (run_id,) = [r.id for r in Store(killed).list_runs()]
    subprocess.run(cli(killed, "resume", run_id, "--quiet"), check=True, capture_output=True)
    assert outputs_of(killed) == outputs_of(whole)


def stored_results(store: Path) -> int:
    database = next(store.rglob("diptych.db"), None)
    if database is None:
        return 0
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=0.1) as db:
            return int(db.execute("SELECT count(*) FROM results").fetchone()[0])
    except sqlite3.Error:
        return 0


HALF = """
import json, sys
from diptych.core.capabilities import LikelihoodRequest
from diptych.plugins.models.llamacpp import SmolLM2
requests = [LikelihoodRequest(**r) for r in json.loads(sys.stdin.read())]
model = SmolLM2(SmolLM2.Params(n_threads=1))
print(json.dumps(model._batch_sync(requests)))
"""


def test_requests_split_across_processes_give_the_same_values(
    reference: list[dict[str, float]],
) -> None:
    requests = subset_requests()
    halves = [list(range(0, len(requests), 2)), list(range(1, len(requests), 2))[::-1]]
    procs = []
    for half in halves:
        payload = [
            {
                "prompt": requests[i].prompt,
                "candidates": list(requests[i].candidates),
                "segments": list(requests[i].segments),
                "siblings": list(requests[i].siblings),
            }
            for i in half
        ]
        proc = subprocess.Popen(
            [sys.executable, "-c", HALF],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(payload))
        proc.stdin.close()
        procs.append(proc)
    got: dict[int, dict[str, float]] = {}
    for proc, half in zip(procs, halves, strict=True):
        assert proc.stdout is not None
        values = json.loads(proc.stdout.read())
        assert proc.wait() == 0
        got.update(zip(half, values, strict=True))
    assert as_bytes([got[i] for i in range(len(requests))]) == as_bytes(reference)


def test_concurrent_callers_get_the_same_values(
    model: SmolLM2, reference: list[dict[str, float]]
) -> None:
    requests = subset_requests()
    other = SmolLM2(SmolLM2.Params(n_threads=1))
    other.load()
    results: dict[tuple[int, int], dict[str, float]] = {}
    errors: list[BaseException] = []

    def worker(who: SmolLM2, seed: int) -> None:
        order = list(range(len(requests)))
        random.Random(seed).shuffle(order)
        try:
            for start in range(0, len(order), 3):
                chunk = order[start : start + 3]
                for i, value in zip(
                    chunk, who._batch_sync([requests[i] for i in chunk]), strict=True
                ):
                    results[(seed, i)] = value
        except BaseException as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)

    threads = [
        threading.Thread(target=worker, args=(who, seed))
        for seed, who in enumerate([model, model, other, other])
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    asyncio.run(other.aclose())
    assert not errors
    for seed in range(4):
        values = [results[(seed, i)] for i in range(len(requests))]
        assert as_bytes(values) == as_bytes(reference), seed
