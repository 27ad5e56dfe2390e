"""The stop line of a run bought until decided says what happened in every case: bought, or read
from the store, or both, and in how many of the plan's batches, where a look that read the
whole design (bought whole since its gates stopped it, then audited again) is said as that
look, never "in 2 of 4 batches" as if the other two were not read (docs/gates.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diptych.core.store import open_store
from tests.support.cli import call
from tests.support.sequential_audits import until_decided

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _stop(out: str) -> str:
    found = re.search(r"^stopped: .*$", out, re.M)
    assert found is not None, out
    return found[0]


def test_the_stop_line_says_the_looks_read_and_what_was_bought_in_each_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    code, first = call(capsys, "--store", ws, *until_decided())
    assert code == 0, first
    said = re.search(r"^run (\S+) decided at look 1 of 4: ", first, re.M)
    assert said is not None, first
    run_id = said[1]
    with open_store(Path(ws)) as store:
        answered, planned = store.requests_answered(run_id)
    # Four batches of a quarter each: look 1 bought 156 / 4 = 39 requests, 25.0%.
    assert (answered, planned) == (39, 156)
    # Nothing stored before: all of look 1's 39 bought now, the counts said once, on the
    # run's line.
    assert _stop(first) == "stopped: every gate decided in 1 of 4 batches"

    # Everything stored, decided at look 1 again: its 39 read, nothing bought.
    code, again = call(capsys, "--store", ws, *until_decided())
    assert code == 0, again
    assert "decided at look 1 of 4: 39 of 156 requests, 117 saved" in again, again
    assert _stop(again) == (
        "stopped: every gate decided in 1 of 4 batches, read from the store, nothing bought"
    )

    # Bought whole since (the other 156 − 39 = 117), then audited again: look 2 read all 156
    # from the store, the whole design, never "in 2 of 4 batches".
    code, resumed = call(capsys, "--store", ws, "resume", run_id, "--yes")
    assert code == 0 and f"run {run_id} complete: 180 trials (180 done)" in resumed, resumed
    code, whole = call(capsys, "--store", ws, *until_decided())
    assert code == 0, whole
    assert _stop(whole).startswith(
        "stopped: every gate decided; read 156 of 156 requests (100.0%) from the store at look "
        "2, which read the whole design, nothing bought; "
    ), _stop(whole)
    assert "of 4 batches" not in whole, whole
