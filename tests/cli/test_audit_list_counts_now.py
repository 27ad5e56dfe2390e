"""``diptych audit list --json`` gives each part's counts as the store holds them now, the ones
``diptych runs`` gives: a decided run bought on and interrupted since its audit recorded it has
more trials done than the audit recorded, and the recorded counts stand beside them with when."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look
from tests.support.stopped_runs import bought_on_and_interrupted

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_audit_list_reads_a_bought_on_parts_counts_from_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    ((part,),) = [a["parts"] for a in json.loads(call(capsys, "--store", ws, "audit", "list",
                                                      "--json")[1])]  # fmt: skip
    recorded = part["detail"]["counts"]
    # Before any buy-on the audit's counts are the run's, with nothing recorded beside them.
    assert "counts_recorded" not in part["detail"], part

    bought_on_and_interrupted(ws, run_id)
    (listed,) = json.loads(call(capsys, "--store", ws, "runs", "--json")[1])
    ((part,),) = [a["parts"] for a in json.loads(call(capsys, "--store", ws, "audit", "list",
                                                      "--json")[1])]  # fmt: skip
    assert part["status"] == listed["status"] == "interrupted", (part, listed)
    assert part["detail"]["counts"] == listed["counts"], (part, listed)
    assert part["detail"]["counts"]["done"] > recorded["done"], (part, recorded)
    then = part["detail"]["counts_recorded"]
    assert then["counts"] == recorded, then
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", then["at"]), then
