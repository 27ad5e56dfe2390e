"""``diptych audit list`` says an audit its gates decided, before any buy-on, in the words
``diptych runs`` says its run: the look that decided it and what stopping there saved, in the
table (whole at 60 columns, its one part named beside it) and in its JSON (the audit's and the
part's ``status_text``, the part's ``look`` and ``requests``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look

pytestmark = pytest.mark.usefixtures("scripted_plugin")

SAID = re.compile(r"decided at look 1 of 4: ([\d,]+) of ([\d,]+) requests, ([\d,]+) saved")


def test_audit_list_says_the_look_and_what_a_decided_audit_saved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws)
    (run,) = json.loads(call(capsys, "--store", ws, "runs", "--json")[1])
    code, shown = call(capsys, "--store", ws, "show", run_id)
    said = SAID.search(" ".join(shown.split()))
    assert said is not None, shown
    bought, planned, saved = (int(n.replace(",", "")) for n in said.groups())
    assert bought + saved == planned and run["status"] == "decided", (said[0], run)

    (audit,) = json.loads(call(capsys, "--store", ws, "audit", "list", "--json")[1])
    (part,) = audit["parts"]
    assert audit["status"] == part["status"] == "decided", audit
    assert audit["status_text"] == part["status_text"] == said[0], audit
    assert part["look"] == {"at": 1, "of": 4}, part
    assert part["requests"] == {"bought": bought, "planned": planned, "saved": saved}, part

    monkeypatch.setenv("COLUMNS", "60")
    code, table = call(capsys, "--store", ws, "audit", "list")
    assert code == 0, table
    assert max(len(line) for line in table.splitlines()) <= 60, table
    assert audit["id"] in table.split(), table  # the id whole, to copy
    head, _, *rows = [line for line in table.splitlines() if line.strip()]
    status, parts = head.index("status"), head.index("parts")
    column = " ".join(" ".join(row[parts:].split()) for row in rows)
    # The audit says the look and what it saved; its one part, beside it, by name alone.
    assert column.strip() == "pst-text", table
    assert " ".join(" ".join(row[status:parts].split()) for row in rows).strip() == said[0], table
