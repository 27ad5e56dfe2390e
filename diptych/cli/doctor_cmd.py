"""``diptych doctor drill``: fault, kill and blob drills on an auditor's own machine.

The drills run in a scratch directory beside the workspace (the same disk and file system an
audit uses), never in the workspace itself, against the loopback fake OpenAI service and the
scripted models: they cost nothing and touch no audit. See :mod:`diptych.testing.drills`.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

from diptych.cli.context import state

app = typer.Typer(no_args_is_help=True, help="Check this machine's setup.")

#: What the drill's scratch directory is named from, beside the workspace (removed when the
#: drill ends, left behind if it is killed).
DRILL_PREFIX = "diptych-drill-"


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="doctor", help="Check this machine's setup (drills).")


@app.command("drill")
def drill(
    ctx: typer.Context,
    kill_points: Annotated[
        int, typer.Option("--kill-points", min=0, help="Runs to SIGKILL and resume.")
    ] = 5,
    trials: Annotated[int, typer.Option("--trials", min=10, help="Trials per drill run.")] = 40,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of faults and kills.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show that nothing is lost or paid twice here: 20% of service requests fail, runs are
    killed and resumed, blobs are damaged and the disk fills up; the service asks to wait an
    hour and answers 200 with nothing usable; a run is stopped by SIGTERM; the database fills
    up mid-run; an annotation and a label import are killed."""
    import diptych.testing
    from diptych.core.plugins import load_plugins, register_plugin
    from diptych.core.workspace import Workspace
    from diptych.testing.drills import blob_drill, fault_drill, kill_point

    load_plugins()
    register_plugin(diptych.testing, "testing")
    where = state(ctx).store_path or Path(os.environ.get("DIPTYCH_STORE") or ".diptych")
    parent = where.resolve().parent
    # The nearest directory that exists: a workspace not made yet still names its disk.
    while not parent.is_dir():
        parent = parent.parent
    scratch = Path(tempfile.mkdtemp(prefix=DRILL_PREFIX, dir=parent))
    results: dict[str, Any] = {}
    try:
        with (
            diptych.testing.FakeOpenAIServer(image_size=(16, 16)) as fake,
            Workspace.open(scratch / "faults") as ws,
        ):
            faults = fault_drill(ws, fake, trials=trials, seed=seed)
        results["faults"] = {
            "ok": faults.ok,
            "trials": faults.trials,
            "requests": faults.requests,
            "faults_injected": faults.faults,
            "outcomes": faults.outcomes,
            "paid_twice": len(faults.paid_twice),
            # Sent and not answered (timeouts, dropped connections): a real service may have
            # billed them; each was asked again only by a resume.
            "maybe_paid": faults.maybe_paid,
            "resumes": faults.resumes,
        }
        rng = random.Random(seed)
        points = []
        for i in range(kill_points):
            (scratch / f"kill-{i}").mkdir()
            point = kill_point(scratch / f"kill-{i}", rng.randint(0, trials), trials=trials)
            points.append(point)
        results["kills"] = {
            "ok": all(p.ok for p in points),
            "points": len(points),
            "ok_points": sum(p.ok for p in points),
            "lost": sum(len(p.lost) for p in points),
            # Every request the resumes sent again: the calls in flight at each kill (their
            # answers never arrived, so a paid service would bill them twice), plus any stored
            # trial asked again (never expected).
            "asked_again": sum(len(p.asked_again) + len(p.in_flight_asked_again) for p in points),
            "in_flight_at_kill": sum(len(p.in_flight) for p in points),
            "stored_asked_again": sum(len(p.asked_again) for p in points),
            "most_asked_again_per_kill": max(
                (len(p.in_flight_asked_again) for p in points), default=0
            ),
        }
        blobs = blob_drill(scratch / "blobs", trials=max(4, trials // 4))
        results["blobs"] = {
            "ok": blobs.ok,
            "reported": blobs.reported,
            "used_silently": blobs.used_silently,
            "refetched": blobs.refetched,
            "full_disk": blobs.full_disk_error,
            "status_after_full_disk": blobs.full_disk_status,
        }
        results.update(hostile_drills(scratch, trials, rng))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if as_json:
        typer.echo(json.dumps(results, indent=2))
    else:
        for name, outcome in results.items():
            details = ", ".join(f"{k} {v}" for k, v in outcome.items() if k not in ("ok",))
            typer.echo(f"{name}: {'ok' if outcome['ok'] else 'FAILED'} ({details})")
    if not all(outcome["ok"] for outcome in results.values()):
        raise typer.Exit(1)


def hostile_drills(scratch: Path, trials: int, rng: random.Random) -> dict[str, dict[str, Any]]:
    """The drills of a hostile service (an hour's Retry-After, unusable 200s), a hostile stop
    (SIGTERM), a full database and killed label work, each in a directory of ``scratch`` and
    against a fake service of its own; one record each, ``ok`` first."""
    import diptych.testing
    from diptych.core.workspace import Workspace
    from diptych.testing.drills import (
        annotation_kill,
        bad_success_drill,
        disk_full_drill,
        import_kill,
        retry_after_drill,
        sigterm_drill,
    )

    out: dict[str, dict[str, Any]] = {}
    with (
        diptych.testing.FakeOpenAIServer(image_size=(16, 16)) as fake,
        Workspace.open(scratch / "retry-after") as ws,
    ):
        waited = retry_after_drill(ws, fake, trials=6, cap=1.0)
    out["retry_after"] = {
        "ok": waited.ok,
        "waited_past_cap": waited.waited_past_cap,
        "failed_with_reason": f"{waited.failed_with_reason} of {waited.rounds}",
        "obeyed_under_cap": waited.obeyed_under_cap,
        "unfinished": waited.unfinished,
    }
    with (
        diptych.testing.FakeOpenAIServer(image_size=(16, 16)) as fake,
        Workspace.open(scratch / "bad-success") as ws,
    ):
        spoilt = bad_success_drill(ws, fake, trials=10, paid_retries=2, deliberate=1)
    out["bad_success"] = {
        "ok": spoilt.ok,
        "delivered": spoilt.delivered,
        "bought_beyond_allowance": spoilt.beyond_budget,
        "plain_resume_requests": spoilt.plain_resume_requests,
        "dry_run_said": spoilt.dry_run_to_run,
        "deliberate_requests": spoilt.deliberate_requests,
        "miscounted": len(spoilt.miscounted),
        "failed_without_reason": spoilt.without_reason,
    }
    (scratch / "sigterm").mkdir()
    stop = sigterm_drill(scratch / "sigterm", rng.randint(1, max(1, trials - 8)), trials=trials)
    out["sigterm"] = {
        "ok": stop.resumable and not stop.error,
        "exit_code": stop.exit_code,
        "status": stop.status,
        "leases_left": stop.leases_left,
        "resume_exit_code": stop.resume_exit_code,
        "asked_again": len(stop.asked_again),
        "unfinished": stop.unfinished,
        **({"error": stop.error} if stop.error else {}),
    }
    (scratch / "disk-full").mkdir()
    # As the benchmark drills it: 24 images of 64×64 fill the capped database early.
    with diptych.testing.FakeOpenAIServer(image_size=(64, 64)) as fake:
        full = disk_full_drill(scratch / "disk-full", fake, trials=24, back_after=0.3)
    out["database_full"] = {
        "ok": full.ok,
        "filled": full.filled,
        "delivered": full.delivered,
        "stored": full.stored,
        "paid_unstored": full.paid_unstored,
    }
    for name, kill in (
        # The annotated run holds 128 images; the import takes about a second.
        ("annotation_kill", lambda d: annotation_kill(d, rng.randint(1, 100))),
        ("label_import_kill", lambda d: import_kill(d, rng.uniform(0.1, 1.0))),
    ):
        (scratch / name).mkdir()
        point = kill(scratch / name)
        out[name] = {
            "ok": point.ok,
            "killed": point.killed,
            "stored_before": point.stored_before,
            "lost": len(point.lost),
            "asked_again": point.asked_again,
            "stored_twice": len(point.stored_twice),
            "missing": point.missing,
        }
    return out
