"""``diptych doctor drill``: the drills of :mod:`diptych.testing.drills` run from the CLI, in a
scratch directory beside the workspace that is gone afterwards."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_doctor_drill_runs_every_drill_and_leaves_nothing_behind(tmp_path: Path) -> None:
    store = tmp_path / "audits" / ".diptych"  # not made yet: its parent still names the disk
    store.parent.mkdir()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "diptych.cli.main",
            "--store",
            str(store),
            "doctor",
            "drill",
            "--kill-points",
            "1",
            "--trials",
            "10",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    results = json.loads(done.stdout)
    assert set(results) == {"faults", "kills", "blobs"}
    # The command fails exactly when a drill found a loss.
    assert (done.returncode == 0) == all(r["ok"] for r in results.values()), done.stderr
    assert results["faults"]["paid_twice"] == 0 and results["faults"]["trials"] == 10
    assert results["kills"]["ok"] and results["kills"]["points"] == 1
    assert results["kills"]["lost"] == 0 and results["kills"]["stored_asked_again"] == 0
    assert results["blobs"]["ok"] and results["blobs"]["used_silently"] == 0
    # The scratch directory was beside the workspace, and it is removed; no workspace was made.
    assert list(store.parent.iterdir()) == []
