"""What buying a run until decided starts from, for its forecast: a run an audit decided at
look 1 of 4 holds the first quarter of its purchase order; the looks that would follow read
the first half, three quarters and the whole design, that first look read again as it was."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.sequential_audits import decided_at_first_look


@pytest.mark.usefixtures("scripted_plugin")
def test_a_decided_first_quarter_is_read_by_every_later_look(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, store)
    with Workspace.open(store) as ws:
        total = len({t.key for t in ws.runs.view(run_id).trials})
        # Its own seed and batches are the looks', whatever the forecast asks for.
        held = ws.audits.reads_ahead(run_id, order_seed=12345, batches=10)
    quarter = [math.ceil(k * total / 4) for k in range(1, 5)]
    assert (held.stored, held.total) == (quarter[0], total)
    assert held.reads == quarter
    assert held.shares() == (quarter[0] / total, [r / total for r in quarter])
