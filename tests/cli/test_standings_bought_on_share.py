"""A run bought on past the look its gates stopped it at is ranked on what that look read, and
its standings line says that share of its design, the look's, with what it was bought on to
named after it: while interrupted mid-buy and once settled as decided and bought on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diptych.core.digits import percent_text
from diptych.core.store import open_store
from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look
from tests.support.stopped_runs import bought_on_and_interrupted, last_look

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _said(capsys: pytest.CaptureFixture[str], ws: str, run_id: str) -> tuple[str, str]:
    """The row's share of its design (``--json``) and the standings' line of the run."""
    code, out = call(capsys, "--store", ws, "standings", "--json")
    assert code == 0, out
    (table,) = json.loads(out)["tables"]
    (row,) = [r for r in table["standings"] if r["run"] == run_id]
    code, out = call(capsys, "--store", ws, "standings")
    assert code == 0, out
    line = " ".join(next(s for s in out.splitlines() if "ranked on" in s).split())
    return str(row["partial"]), line


def test_a_bought_on_run_is_said_ranked_on_its_looks_share(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    look = last_look(ws)
    bought_on_and_interrupted(ws, run_id, after=40)
    share = f"{percent_text(look.fraction)} of its design"
    planned = f"of {look.planned:,} requests"
    for status in ("interrupted", "decided"):
        with open_store(Path(ws)) as store:
            store.set_run_status(run_id, status)
        partial, line = _said(capsys, ws, run_id)
        state = "" if status == "decided" else f"{status}: "
        assert partial.startswith(f"{share} ({state}decided at look 1 of 4, bought on since: "), (
            partial
        )
        assert planned in partial and " trials" not in partial, partial
        assert f"ranked on {partial}" in line, line
