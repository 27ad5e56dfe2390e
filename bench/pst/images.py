"""pst.*: the real ``pst`` probe and ``openai-images`` plugin against the loopback fake service.

Both benchmarks ask only for the 800 paired images of the occupation aspect and have the fake
(diptych.testing.FakeOpenAIServer, driven through the official openai SDK) return 8×8 PNGs.
No network is involved and nothing is paid for.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Iterator

from bench.harness import Result, bench, result, rounded

PST_PAIRED = ["-p", "aspects=occupation", "-p", "setting=paired"]  # the 800 paired images
SERVER_LIMIT = 600  # requests/min: the paper's 60/min DALL-E 3 tier scaled up tenfold
SERVER_LATENCY = 0.1


def _pst_cli(store: str, base_url: str, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "diptych.cli.main",
        "--store",
        store,
        "run",
        "pst",
        "-m",
        "openai-images",
        "-M",
        f"base_url={base_url}",
        *PST_PAIRED,
        "--quiet",
        *extra,
    ]


@bench(pst__rate_limit_ratio="<= 1.15")
def pst_rate_limit() -> Iterator[Result]:
    """800 paired generations against a rate-limited fake service: wall ÷ the limit's bound."""
    from diptych.core.engine import run_probe
    from diptych.core.plugins import get_model, get_probe
    from diptych.core.store import Store
    from diptych.testing import FakeOpenAIServer

    bound = 800 / SERVER_LIMIT * 60
    with (
        FakeOpenAIServer(
            latency=SERVER_LATENCY, rate_limit_per_min=SERVER_LIMIT, image_size=(8, 8)
        ) as fake,
        tempfile.TemporaryDirectory(prefix="diptych-bench-") as tmp,
        Store(tmp) as store,
    ):
        # The client paces itself just under the service's limit, so it is never refused.
        model = get_model(
            "openai-images",
            {
                "base_url": fake.base_url,
                "rate_limit_per_min": SERVER_LIMIT * 0.99,
                "max_concurrency": 8,
            },
        )
        probe = get_probe("pst", {"aspects": ["occupation"], "setting": "paired"})
        t0 = time.perf_counter()
        run = run_probe(store, probe, [model])
        wall = time.perf_counter() - t0
        assert run.status == "complete", run.status
        yield result(
            "pst.rate_limit_ratio",
            wall / bound,
            "ratio",
            wall_s=rounded(wall),
            bound_s=bound,
            http_429=fake.count(status=429),
        )


@bench(pst__duplicate_requests_after_kill="== 0")
def pst_kill_resume() -> Iterator[Result]:
    """SIGKILL a pst run half-way, resume it; count requests for images already stored."""
    import os
    import signal
    import subprocess

    from diptych.core.store import Store
    from diptych.testing import FakeOpenAIServer

    env = {**os.environ, "OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY", "sk-bench")}
    with (
        FakeOpenAIServer(latency=0.02, image_size=(8, 8)) as fake,
        tempfile.TemporaryDirectory(prefix="diptych-bench-") as tmp,
    ):
        proc = subprocess.Popen(
            _pst_cli(tmp, fake.base_url),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 300
        while fake.count(path="/v1/images/generations") < 400 and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        killed_at = fake.total_requests
        with Store(tmp) as store:
            (run,) = store.list_runs()
            results = store.run_results(run.id)
            finished = {
                t.payload["prompt"]
                for t in store.trials(run.id)
                if t.key in results and results[t.key].status in ("done", "refused")
            }
        subprocess.run(
            [sys.executable, "-m", "diptych.cli.main", "--store", tmp, "resume", run.id, "--quiet"],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        after = fake.requests[killed_at:]
        duplicates = sum(1 for r in after if r.prompt in finished)
        with Store(tmp) as store:
            assert store.get_run(run.id).status == "complete"
        yield result(
            "pst.duplicate_requests_after_kill",
            duplicates,
            "requests",
            stored_at_kill=len(finished),
            requests_after_resume=len(after),
        )
