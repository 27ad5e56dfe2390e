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
    killed and resumed, blobs are damaged and the disk fills up."""
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
    scratch = Path(tempfile.mkdtemp(prefix="diptych-drill-", dir=parent))
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
