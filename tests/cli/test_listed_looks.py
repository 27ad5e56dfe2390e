"""A run bought further by a second audit file than the first file's gates stopped it: every
listing of the first record — ``audit list`` (its table and ``--json``) — names the look its
own gates stopped at, as ``audit gate`` reads it, never the second record's; the first file's
gate verdict and stop reason are its own gates' on its own looks; and ``audit run`` says what
it bought and saved once (docs/gates.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.bought_further import (
    AT_LOOK_2,
    NEVER,
    SECOND,
    UNTIL,
    bought_further,
    gated_file,
)
from tests.support.cli import call

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _gate(capsys: pytest.CaptureFixture[str], name: str) -> tuple[str, str]:
    """``audit gate NAME.yaml``'s stop sentence and its gate's line."""
    _, out = call(capsys, "audit", "gate", f"{name}.yaml")
    sentence = re.search(r"^The audit .*$", out, re.M)
    line = re.search(r"^(PASS|FAIL|INCONCLUSIVE).*pst-text: .*$", out, re.M)
    assert sentence is not None and line is not None, out
    return sentence[0], line[0]


@pytest.fixture
def first_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> str:
    """The first file decided, its run bought further by the second (:func:`bought_further`):
    what the first ``audit run`` printed."""
    monkeypatch.chdir(tmp_path)
    # A listing's row is read whole: one width, whatever the worker's terminal.
    monkeypatch.setenv("COLUMNS", "200")
    return bought_further(capsys, tmp_path)


def test_every_listing_of_the_first_record_reads_its_own_look(
    first_run: str, capsys: pytest.CaptureFixture[str]
) -> None:
    sentence, line = _gate(capsys, "first")
    assert line.startswith("PASS ") and "(anytime-valid, look 2 of 4); below 72" in line, line
    assert "after 72 of 144 requests (50.0%), at look 2 of 4" in sentence, sentence

    code, out = call(capsys, "audit", "list")
    assert code == 0, out
    row = next(r for r in out.splitlines() if r.strip().startswith("first-"))
    assert AT_LOOK_2 in row and "look 3 of 4" not in row and "bought on" not in row, row

    code, out = call(capsys, "audit", "list", "--json")
    assert code == 0, out
    (listed,) = [a for a in json.loads(out) if a["name"] == "first"]
    assert listed["status_text"] == AT_LOOK_2
    (part,) = listed["parts"]
    assert part["status_text"] == AT_LOOK_2
    assert part["look"] == {"at": 2, "of": 4}
    assert part["requests"] == {"bought": 72, "planned": 144, "saved": 72}


def test_a_files_stop_is_its_own_gates_on_its_own_looks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # Its budget ($0.72, 72 requests at a cent) stops it at look 2 with its gate undecided.
    capped = gated_file(tmp_path, "first", NEVER, budget={"max_cost": 0.72})
    code, out = call(capsys, "audit", "run", capped, *UNTIL)
    assert code == 3 and "stopped: the budget (--max-cost) was reached; bought 72 " in out, out
    code, out = call(capsys, "audit", "run", gated_file(tmp_path, "second", SECOND), *UNTIL)
    assert code == 0 and "part pst-text: decided at look 3 of 4" in out, out

    sentence, line = _gate(capsys, "first")
    # Its gate on its own two looks, as its budget left it: undecided, never the third look.
    assert line.startswith("INCONCLUSIVE ") and "look 2 of 4); below 64" in line, line
    assert sentence.startswith(
        "The audit stopped early (the budget (--max-cost) was reached) after 72 of 144 "
        "requests (50.0%), at look 2 of 4;"
    ), sentence
    sentence, line = _gate(capsys, "second")
    assert line.startswith("PASS ")
    assert sentence.startswith("The audit stopped early (every gate decided) after 108 "), sentence


def test_an_early_decided_audit_run_says_what_it_bought_and_saved_once(
    first_run: str,
) -> None:
    closing = re.search(r"^audit first-\S+ (.*)$", first_run, re.M)
    stop = re.search(r"^stopped: .*$", first_run, re.M)
    assert closing is not None and stop is not None, first_run
    # In the words `audit list` says it: 72 of 144 requests bought at look 2, 72 saved.
    assert closing[1].startswith("decided at look 2 of 4: 72 of 144 requests, 72 saved; ")
    # Why it stopped, where, and the money the 72 unbought requests would have cost.
    assert stop[0] == "stopped: every gate decided in 2 of 4 batches; saved about $0.72 at the " \
        "plan's prices"  # fmt: skip
