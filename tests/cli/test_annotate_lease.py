"""Annotation passes hold the run's lease: two ``diptych annotate`` processes at once never pay
for one image twice.

A small pst run is generated on the loopback fake OpenAI service, then annotated by the ``vqa``
annotator asking ``openai-vision`` on the same fake: every chat request there is paid.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from diptych.core.store import open_store
from diptych.testing import FakeOpenAIServer

# 40 single-person images: one vqa question each.
PST_SMALL = ["-p", "aspects=occupation", "-p", "setting=single", "-p", "samples_single=1"]
ENV = {**os.environ, "OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": ""}
CHAT = "/v1/chat/completions"


def cli(store: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "diptych.cli.main", "--store", str(store), *args]


def make_run(store: Path, base_url: str) -> tuple[str, int]:
    done = subprocess.run(
        cli(store, "run", "pst", "-m", "openai-images", "-M", f"base_url={base_url}")
        + PST_SMALL
        + ["--quiet"],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    with open_store(store) as ws:
        (run,) = ws.list_runs()
        return run.id, ws.status_counts(run.id)["done"]


def annotate(store: Path, run_id: str, base_url: str, *extra: str) -> list[str]:
    params = json.dumps({"base_url": base_url, "max_concurrency": 2})
    return cli(
        store,
        "annotate",
        run_id,
        "--annotator",
        "vqa",
        "--model",
        "openai-vision",
        "-A",
        f"model_params={params}",
        "--quiet",
        *extra,
    )


def start(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        args, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def chat_prompts(fake: FakeOpenAIServer) -> list[str]:
    return [r.prompt or "" for r in fake.requests if r.path == CHAT]


def test_two_annotation_passes_at_once_pay_each_image_once(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with FakeOpenAIServer(image_size=(8, 8)) as fake:
        run_id, images = make_run(ws, fake.base_url)
        fake.latency = 0.1
        procs = [start(annotate(ws, run_id, fake.base_url, "--wait")) for _ in range(2)]
        outs = [p.communicate(timeout=120) for p in procs]
        asked = fake.count(path=CHAT)
    assert images > 0
    assert [p.returncode for p in procs] == [0, 0], outs
    assert asked == images
    with open_store(ws) as store:
        assert len(store.labels(run_id)) == images
        assert store.claims() == []


def test_second_annotation_pass_is_refused_in_one_line(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with FakeOpenAIServer(image_size=(8, 8)) as fake:
        run_id, images = make_run(ws, fake.base_url)
        # Slow answers: the first pass is still asking when the second one starts.
        fake.latency = 1.0
        first = start(annotate(ws, run_id, fake.base_url))
        deadline = time.monotonic() + 60
        while fake.count(path=CHAT) < 1:
            assert time.monotonic() < deadline, "the first pass never asked"
            time.sleep(0.01)
        second = subprocess.run(
            annotate(ws, run_id, fake.base_url), env=ENV, capture_output=True, text=True
        )
        # Refused: the first pass may finish at full speed now.
        fake.latency = 0.0
        first.communicate(timeout=120)
        asked = fake.count(path=CHAT)
    assert second.returncode == 2
    line = second.stderr.strip()
    assert len(line.splitlines()) == 1, line
    assert f"pid {first.pid}" in line and "--wait" in line and "annotate" in line
    assert first.returncode == 0
    assert asked == images
