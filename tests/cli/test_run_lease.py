"""Exactly once across processes: one process per run, one request per paid image.

Real ``diptych run`` processes on one new workspace against the loopback fake OpenAI service.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from diptych.core.store import open_store
from diptych.testing import FakeOpenAIServer

# 40 single-person images (20 + 20 identities, one sample each): small, and every one paid.
PST_SMALL = ["-p", "aspects=occupation", "-p", "setting=single", "-p", "samples_single=1"]
N_IMAGES = 40
ENV = {**os.environ, "OPENAI_API_KEY": "sk-test"}


def run_cli(store: Path, base_url: str, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "diptych.cli.main",
        "--store",
        str(store),
        "run",
        "pst",
        "-m",
        "openai-images",
        "-M",
        f"base_url={base_url}",
        "-M",
        "max_concurrency=2",
        *PST_SMALL,
        "--quiet",
        *extra,
    ]


def start(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        args, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def wait_for_requests(fake: FakeOpenAIServer, n: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while fake.count(path="/v1/images/generations") < n:
        assert time.monotonic() < deadline, "the first process never called the service"
        time.sleep(0.01)


def prompts_asked(fake: FakeOpenAIServer) -> list[str]:
    return [r.prompt for r in fake.requests if r.path == "/v1/images/generations"]


def test_two_processes_at_once_send_each_request_once(tmp_path: Path) -> None:
    with FakeOpenAIServer(latency=0.05, image_size=(8, 8)) as fake:
        procs = [start(run_cli(tmp_path / "ws", fake.base_url)) for _ in range(2)]
        outs = [p.communicate(timeout=120) for p in procs]
        asked = prompts_asked(fake)
    codes = sorted(p.returncode for p in procs)
    assert codes in ([0, 0], [0, 2]), outs
    assert len(asked) == N_IMAGES and len(set(asked)) == N_IMAGES
    for proc, (_, err) in zip(procs, outs, strict=True):
        if proc.returncode == 2:
            assert "is being run by pid" in err and len(err.strip().splitlines()) == 1, err
    with open_store(tmp_path / "ws") as store:
        (run,) = store.list_runs()
        assert store.status_counts(run.id)["done"] == N_IMAGES
        assert store.claims() == []


def test_second_process_names_the_holder_and_exits_2(tmp_path: Path) -> None:
    # The first process holds the run for as long as the second takes to start (a slow
    # service: 40 images two at a time), then finishes at once.
    with FakeOpenAIServer(latency=2.0, image_size=(8, 8)) as fake:
        first = start(run_cli(tmp_path / "ws", fake.base_url))
        wait_for_requests(fake, 1)
        second = subprocess.run(
            run_cli(tmp_path / "ws", fake.base_url), env=ENV, capture_output=True, text=True
        )
        fake.latency = 0.0
        first.communicate(timeout=120)
        asked = prompts_asked(fake)
    assert second.returncode == 2, second.stderr
    line = second.stderr.strip()
    assert len(line.splitlines()) == 1
    assert f"is being run by pid {first.pid} on " in line and "--wait" in line
    assert "diptych show pst-" in line
    assert first.returncode == 0
    assert sorted(asked) == sorted(set(asked)) and len(asked) == N_IMAGES


def test_wait_continues_after_the_holder_and_finds_everything_stored(tmp_path: Path) -> None:
    with FakeOpenAIServer(latency=0.1, image_size=(8, 8)) as fake:
        first = start(run_cli(tmp_path / "ws", fake.base_url))
        wait_for_requests(fake, 1)
        second = subprocess.run(
            run_cli(tmp_path / "ws", fake.base_url, "--wait"),
            env=ENV,
            capture_output=True,
            text=True,
            timeout=120,
        )
        first.communicate(timeout=120)
        asked = prompts_asked(fake)
    assert first.returncode == 0 and second.returncode == 0, second.stderr
    assert len(asked) == N_IMAGES == len(set(asked))
    assert f"{N_IMAGES} already stored, 0 requests to run" in second.stdout


def test_sigkilled_holder_is_stale_and_its_run_taken_over(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with FakeOpenAIServer(latency=0.2, image_size=(8, 8)) as fake:
        first = start(run_cli(ws, fake.base_url))
        wait_for_requests(fake, 3)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        with open_store(ws) as store:
            (run,) = store.list_runs()
            held = store.lease(run.id)
            assert held is not None and held.pid == first.pid and not held.alive()
            # Requests were in flight when it died: their claims are still there.
            dead_claims = store.claims(held.owner)
            assert dead_claims
        listing = subprocess.run(
            [sys.executable, "-m", "diptych.cli.main", "--store", str(ws), "runs", "--json"],
            env=ENV,
            capture_output=True,
            text=True,
        )
        assert '"status": "stale"' in listing.stdout, listing.stdout
        killed_at = len(prompts_asked(fake))
        resumed = subprocess.run(
            [sys.executable, "-m", "diptych.cli.main", "--store", str(ws), "resume", run.id],
            env=ENV,
            capture_output=True,
            text=True,
            timeout=120,
        )
        after = prompts_asked(fake)[killed_at:]
    assert resumed.returncode == 0, resumed.stderr
    with open_store(ws) as store:
        assert store.status_counts(run.id)["done"] == N_IMAGES
        assert store.claims() == [] and store.lease(run.id) is None
        assert store.get_run(run.id).status == "complete"
    # Only what was not stored at the kill is asked again (in-flight ones included).
    assert len(after) == len(set(after)) <= N_IMAGES


def test_timeout_must_be_positive_and_sample_counts_bounded(tmp_path: Path) -> None:
    for extra, needle in (
        (["--timeout", "0"], "--timeout"),
        (["-p", "samples_single=1000"], "samples_single"),
    ):
        done = subprocess.run(
            run_cli(tmp_path / "ws", "http://127.0.0.1:9", *extra),
            env=ENV,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 2, done.stderr
        assert needle in done.stderr and "Traceback" not in done.stderr
