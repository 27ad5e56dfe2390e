"""An audit's closing lines count what THIS command asked: with everything stored already, it
says none was answered now and what its runs hold, apart; its stop line says the gated designs'
requests read from the store, nothing bought, never "bought" by it; and where it asked some, it
counts those alone, beside what the runs hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diptych.core.store import open_store
from tests.support.cli import call
from tests.support.sequential_audits import (
    design,
    file_decided_and_bought_on,
    gated_below_95,
    until_decided,
)

pytestmark = pytest.mark.usefixtures("scripted_plugin")


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from a temporary directory: an audit's report is written where it is run from."""
    monkeypatch.chdir(tmp_path)


#: An audit's closing line where it asked nothing: what its runs hold, said apart.
NONE_NOW = re.compile(
    r"^audit \S+ (\w+)(?: [^;]*)?[:;] none answered now; the runs hold ([\d,]+) answered "
    r"requests, "
    r"cost not priced; report ",
    re.M,
)


def _answered(ws: str) -> int:
    """The answered requests of every run of the workspace, as the store counts them."""
    with open_store(Path(ws)) as store:
        return sum(store.requests_answered(r.id)[0] for r in store.list_runs())


def _stop(out: str) -> str:
    found = re.search(r"^stopped: .*$", out, re.M)
    assert found is not None, out
    return found[0]


def test_an_audit_bought_until_decided_with_everything_stored_asks_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    file = gated_below_95(tmp_path, "stored")
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--quiet")
    assert code == 0, out
    first = re.search(r"; ([\d,]+) requests answered now; report ", out)
    held = _answered(ws)
    assert first is not None and int(first[1]) == held, out

    code, again = call(capsys, "--store", ws, "audit", "run", file, "--until-decided",
                       "--batches", "4", "--quiet")  # fmt: skip
    assert code == 0, again
    said = NONE_NOW.search(again)
    assert said is not None and int(said[2]) == held, again
    assert "requests answered now" not in again, again
    stop = _stop(again)
    assert stop.count("bought") == 1 and "nothing bought" in stop, stop
    assert re.search(
        rf"; read {held} of {held} requests \(100\.0%\) from the store at look 1, which read "
        "the whole design, nothing bought;",
        stop,
    )


def test_a_gated_run_with_everything_stored_says_none_asked_now(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    code, out = call(capsys, "--store", ws, "run", *design())
    assert code == 0, out
    held = _answered(ws)
    code, again = call(capsys, "--store", ws, *until_decided())
    assert code == 0, again
    assert _answered(ws) == held, "the design was stored whole: nothing to ask"
    stop = _stop(again)
    assert stop.count("bought") == 1 and "nothing bought" in stop, stop
    # Stored whole: its one look read the whole design, never "in 1 of 4 batches".
    whole = "from the store at look 1, which read the whole design, nothing bought;"
    assert f"read {held} of {held} requests (100.0%) {whole}" in stop, stop


def test_an_audit_decided_again_after_its_run_was_bought_on_asked_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws, file, run_id = file_decided_and_bought_on(capsys, tmp_path)
    with open_store(Path(ws)) as store:
        held, _ = store.requests_answered(run_id)
    code, again = call(capsys, "--store", ws, "audit", "run", file, "--until-decided",
                       "--batches", "4", "--quiet")  # fmt: skip
    assert code == 0, again
    said = NONE_NOW.search(again)
    assert said is not None and (said[1], int(said[2])) == ("decided", held), again
    # What its run holds, said once, in the closing line as `audit list` says it.
    said = f"decided at look 1 of 4, bought on since: {held} of 144 requests stored, "
    assert said in again, again
    assert _stop(again) == "stopped: every gate decided in 1 of 4 batches"


def test_an_audit_that_asked_part_of_what_its_runs_hold_counts_those_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    file = gated_below_95(tmp_path, "part")
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--until-decided",
                     "--batches", "4", "--quiet")  # fmt: skip
    assert code == 0, out
    looked = _answered(ws)
    code, whole = call(capsys, "--store", ws, "audit", "run", file, "--yes", "--quiet")
    assert code == 0, whole
    held = _answered(ws)
    assert 0 < looked < held, (looked, held)
    closing = (
        f"cost not priced for {held - looked} requests answered now; the runs hold {held} "
        "answered requests, cost not priced; report "
    )
    assert closing in whole, whole
