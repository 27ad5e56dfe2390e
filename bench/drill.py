"""drill.*: "nothing lost, nothing paid twice", shown by drills.

* ``drill.kill_points_ok`` — the share of kill points (a run of 40 scripted trials killed with
  SIGKILL after N model calls, N drawn with a fixed seed, then resumed) after which nothing
  finished was lost or asked again and SQLite's integrity check passed; want 1.0. The number
  of points, and of finished trials lost and asked again, are beside it.
* ``drill.retry_after_capped`` — 429s with a Retry-After of an hour (as seconds, an HTTP date,
  milliseconds) after which a run waited past its ``--max-retry-wait``; want 0.
* ``drill.bad_success_paid_retries`` — answers bought again beyond the allowances of paid
  retries, while the service answers 200 with unreadable images, no data or URLs; want 0.
* ``drill.sigterm_resumable`` — the share of runs stopped by SIGTERM (after N calls, N drawn
  with a fixed seed) that printed "interrupted", gave their lease back and resumed at once to
  the end; want 1.0.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Iterator
from pathlib import Path

from bench.harness import Result, bench, result

POINTS = 12
TRIALS = 40


def _workdirs(scratch: str, n: int) -> Iterator[Path]:
    """``n`` fresh work directories under ``scratch``, one a drill."""
    for i in range(n):
        workdir = Path(scratch) / str(i)
        workdir.mkdir()
        yield workdir


@bench(drill__kill_points_ok=">= 1.0")
def kill_points() -> Iterator[Result]:
    from diptych.testing.drills import kill_point

    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as scratch:
        points = [
            kill_point(workdir, rng.randint(0, TRIALS), trials=TRIALS)
            for workdir in _workdirs(scratch, POINTS)
        ]
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

    with tempfile.TemporaryDirectory() as scratch, FakeOpenAIServer(image_size=(64, 64)) as fake:
        drills = [
            disk_full_drill(workdir, fake, trials=24, back_after=0.3)
            for workdir in _workdirs(scratch, DISK_TRIES)
        ]
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
        for workdir, (_, make) in zip(
            _workdirs(scratch, len(CASES)), sorted(CASES.items()), strict=True
        ):
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


RETRY_AFTER_CAPS = (0.5, 1.0, 2.0)


@bench(drill__retry_after_capped="== 0")
def retry_after_capped() -> Iterator[Result]:
    from diptych.core.workspace import Workspace
    from diptych.testing import FakeOpenAIServer
    from diptych.testing.drills import retry_after_drill

    drills = []
    with tempfile.TemporaryDirectory() as scratch:
        for i, cap in enumerate(RETRY_AFTER_CAPS):
            with (
                FakeOpenAIServer(image_size=(16, 16)) as fake,
                Workspace.open(Path(scratch) / str(i)) as ws,
            ):
                drills.append(retry_after_drill(ws, fake, trials=8, cap=cap))
    yield result(
        "drill.retry_after_capped",
        sum(d.waited_past_cap for d in drills),
        "429s",
        tries=len(drills),
        hour_long_429s=sum(d.rounds for d in drills),
        failed_with_reason=sum(d.failed_with_reason for d in drills),
        obeyed_under_cap=sum(d.obeyed_under_cap for d in drills),
        unfinished=sum(d.unfinished for d in drills),
    )


#: (paid retries in the run, paid retries of the deliberate resume) per try.
ALLOWANCES = ((0, 0), (0, 2), (2, 1), (5, 3))


@bench(drill__bad_success_paid_retries="== 0")
def bad_success_paid_retries() -> Iterator[Result]:
    from diptych.core.workspace import Workspace
    from diptych.testing import FakeOpenAIServer
    from diptych.testing.drills import bad_success_drill

    drills = []
    with tempfile.TemporaryDirectory() as scratch:
        for i, (in_run, deliberate) in enumerate(ALLOWANCES):
            with (
                FakeOpenAIServer(image_size=(16, 16)) as fake,
                Workspace.open(Path(scratch) / str(i)) as ws,
            ):
                drills.append(
                    bad_success_drill(ws, fake, paid_retries=in_run, deliberate=deliberate)
                )
    yield result(
        "drill.bad_success_paid_retries",
        sum(d.beyond_budget for d in drills),
        "answers",
        tries=len(drills),
        delivered=sum(d.delivered for d in drills),
        allowed=sum(d.allowed for d in drills),
        bought_again=sum(d.delivered - d.delivered_trials for d in drills),
        plain_resume_requests=sum(d.plain_resume_requests for d in drills),
        dry_run_mismatches=sum(d.dry_run_to_run != d.deliberate_requests for d in drills),
        miscounted=sum(len(d.miscounted) for d in drills),
    )


SIGTERM_POINTS = 6


@bench(drill__sigterm_resumable=">= 1.0")
def sigterm_resumable() -> Iterator[Result]:
    from diptych.testing.drills import sigterm_drill

    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as scratch:
        drills = [
            sigterm_drill(workdir, rng.randint(1, TRIALS - 8), trials=TRIALS)
            for workdir in _workdirs(scratch, SIGTERM_POINTS)
        ]
    yield result(
        "drill.sigterm_resumable",
        sum(d.resumable for d in drills) / len(drills),
        "share",
        points=len(drills),
        exit_130=sum(d.exit_code == 130 for d in drills),
        leases_left=sum(max(d.leases_left, 0) for d in drills),
        asked_again=sum(len(d.asked_again) for d in drills),
    )
