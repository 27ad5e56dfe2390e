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
    assert set(results) == {
        "faults", "kills", "blobs", "retry_after", "bad_success", "sigterm", "database_full",
        "annotation_kill", "label_import_kill",
    }  # fmt: skip
    # The command fails exactly when a drill found a loss.
    assert (done.returncode == 0) == all(r["ok"] for r in results.values()), done.stderr
    assert results["faults"]["paid_twice"] == 0 and results["faults"]["trials"] == 10
    assert results["kills"]["ok"] and results["kills"]["points"] == 1
    assert results["kills"]["lost"] == 0 and results["kills"]["stored_asked_again"] == 0
    assert results["blobs"]["ok"] and results["blobs"]["used_silently"] == 0
    # The hostile service: three hour-long Retry-Afters (seconds, HTTP date, milliseconds)
    # each failed a trial with the reason, none waited on; 10 images answered once each and
    # the spoilt one bought again within the allowances 2 + 1: 13 delivered, none beyond.
    hour = results["retry_after"]
    assert (hour["waited_past_cap"], hour["failed_with_reason"], hour["unfinished"]) == (
        0, "3 of 3", 0,
    )  # fmt: skip
    spoilt = results["bad_success"]
    assert (spoilt["delivered"], spoilt["bought_beyond_allowance"]) == (13, 0)
    assert spoilt["dry_run_said"] == spoilt["deliberate_requests"] == 1
    # SIGTERM: "interrupted", exit 130, no lease left, and a resume at once finishes it.
    stop = results["sigterm"]
    assert (stop["exit_code"], stop["status"], stop["leases_left"]) == (130, "interrupted", 0)
    assert (stop["resume_exit_code"], stop["asked_again"], stop["unfinished"]) == (0, 0, 0)
    full = results["database_full"]
    assert full["filled"] and full["paid_unstored"] == 0 and full["stored"] == 24
    for name in ("annotation_kill", "label_import_kill"):
        killed = results[name]
        assert (killed["lost"], killed["stored_twice"], killed["missing"]) == (0, 0, 0), name
    # The scratch directory was beside the workspace, and it is removed; no workspace was made.
    assert list(store.parent.iterdir()) == []
