"""drill.*: "nothing lost, nothing paid twice", shown by drills.

* ``drill.kill_points_ok`` — the share of kill points (a run of 40 scripted trials killed with
  SIGKILL after N model calls, N drawn with a fixed seed, then resumed) after which nothing
  finished was lost or asked again and SQLite's integrity check passed; want 1.0. The number
  of points, and of finished trials lost and asked again, are beside it.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Iterator
from pathlib import Path

from bench.harness import Result, bench, result

POINTS = 12
TRIALS = 40


@bench(drill__kill_points_ok=">= 1.0")
def kill_points() -> Iterator[Result]:
    from diptych.testing.drills import kill_point

    rng = random.Random(0)
    points = []
    with tempfile.TemporaryDirectory() as scratch:
        for i in range(POINTS):
            workdir = Path(scratch) / str(i)
            workdir.mkdir()
            points.append(kill_point(workdir, rng.randint(0, TRIALS), trials=TRIALS))
    yield result(
        "drill.kill_points_ok",
        sum(p.ok for p in points) / len(points),
        "share",
        points=len(points),
        lost=sum(len(p.lost) for p in points),
        asked_again=sum(len(p.asked_again) for p in points),
    )


DISK_TRIES = 5
ANNOTATE_TRIES = 2


@bench(drill__disk_full_paid_unstored="== 0")
def disk_full() -> Iterator[Result]:
    from diptych.testing import FakeOpenAIServer
    from diptych.testing.drills import disk_full_drill

    drills = []
    with tempfile.TemporaryDirectory() as scratch, FakeOpenAIServer(image_size=(64, 64)) as fake:
        for i in range(DISK_TRIES):
            workdir = Path(scratch) / str(i)
            workdir.mkdir()
            drills.append(disk_full_drill(workdir, fake, trials=24, back_after=0.3))
    yield result(
        "drill.disk_full_paid_unstored",
        sum(d.paid_unstored for d in drills),
        "images",
        tries=len(drills),
        filled=sum(d.filled for d in drills),
        delivered=sum(d.delivered for d in drills),
    )


@bench(drill__annotate_two_process_duplicates="== 0")
def annotate_two_processes() -> Iterator[Result]:
    import os
    import subprocess
    import sys

    from diptych.core.store import open_store
    from diptych.testing import FakeOpenAIServer

    env = {**os.environ, "OPENAI_API_KEY": "sk-bench", "OPENAI_BASE_URL": ""}
    cli = [sys.executable, "-m", "diptych.cli.main", "--store"]
    pst = ["-p", "aspects=occupation", "-p", "setting=single", "-p", "samples_single=1"]
    duplicates, images = 0, 0
    with tempfile.TemporaryDirectory() as scratch, FakeOpenAIServer(image_size=(8, 8)) as fake:
        for i in range(ANNOTATE_TRIES):
            ws = str(Path(scratch) / str(i))
            made = [
                *cli,
                ws,
                "run",
                "pst",
                "-m",
                "openai-images",
                "-M",
                f"base_url={fake.base_url}",
            ]
            subprocess.run([*made, *pst, "--quiet"], env=env, check=True, capture_output=True)
            with open_store(ws) as store:
                (run,) = store.list_runs()
                done = store.status_counts(run.id)["done"]
            before = fake.count(path="/v1/chat/completions")
            fake.latency = 0.05
            vision = f'model_params={{"base_url": "{fake.base_url}", "max_concurrency": 2}}'
            annotate = [*cli, ws, "annotate", run.id, "--annotator", "vqa", "--model"]
            annotate += ["openai-vision", "-A", vision, "--quiet", "--wait"]
            procs = [
                subprocess.Popen(
                    annotate, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                )
                for _ in range(2)
            ]
            for proc in procs:
                proc.wait(timeout=300)
            fake.latency = 0.0
            duplicates += fake.count(path="/v1/chat/completions") - before - done
            images += done
    yield result(
        "drill.annotate_two_process_duplicates",
        duplicates,
        "requests",
        tries=ANNOTATE_TRIES,
        images=images,
    )


@bench(drill__hostile_inputs_tracebacks="== 0")
def hostile_inputs() -> Iterator[Result]:
    from tests.cli.test_hostile_command_lines import CASES, run_cli

    tracebacks, slow, multi_line = 0, 0, 0
    with tempfile.TemporaryDirectory() as scratch:
        for i, (_, make) in enumerate(sorted(CASES.items())):
            workdir = Path(scratch) / str(i)
            workdir.mkdir()
            code, err, took = run_cli(["--store", str(workdir / "ws"), *make(workdir)])
            tracebacks += "Traceback" in err
            slow += took >= 10
            multi_line += len(err.strip().splitlines()) != 1
    yield result(
        "drill.hostile_inputs_tracebacks",
        tracebacks,
        "command lines",
        cases=len(CASES),
        over_10_s=slow,
        not_one_line=multi_line,
    )
