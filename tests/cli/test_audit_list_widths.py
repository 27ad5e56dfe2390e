"""``diptych audit list`` says each state of an audit in one wording, the same in its table's
status column and in its JSON's ``status_text`` (the audit's and its part's alike), while the
machine ``status`` stays the short one; a bought-on audit says what its run holds now and what
its gates still save; and at 60 and 80 columns no line runs past the width, the audit's id
whole and its row a few lines high."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look
from tests.support.stopped_runs import bought_on_and_audited_again

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _status_cells(table: str, audit_id: str) -> tuple[str, int]:
    """The status column's words of the audit's row (over the lines it wraps to), and how many
    lines the row takes."""
    head, _, *rows = [line for line in table.splitlines() if line.strip()]
    status, parts = head.index("status"), head.index("parts")
    (start,) = [i for i, row in enumerate(rows) if audit_id in row.split()]
    mine = rows[start:]
    return " ".join(" ".join(row[status:parts].split()) for row in mine).strip(), len(mine)


@pytest.mark.parametrize("state", ["decided", "bought on"])
def test_each_state_has_one_wording_in_the_table_and_its_json_at_60_and_80_columns(
    state: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    if state == "decided":
        decided_at_first_look(capsys, ws)
    else:
        bought_on_and_audited_again(capsys, ws, "-M", "latency=0.01")
    (audit,) = json.loads(call(capsys, "--store", ws, "audit", "list", "--json")[1])
    (part,) = audit["parts"]
    said = audit["status_text"]
    assert part["status_text"] == said, audit
    assert (
        audit["status"] == part["status"] == {"decided": "decided"}.get(state, "decided, bought on")
    ), audit
    if state == "bought on":
        # What the run holds now and what its gates still save, as `diptych runs` says it.
        (run,) = json.loads(call(capsys, "--store", ws, "runs", "--json")[1])
        assert said == run["status_text"] and "requests stored, " in said and " not bought" in said
    for width in (60, 80):
        monkeypatch.setenv("COLUMNS", str(width))
        code, table = call(capsys, "--store", ws, "audit", "list")
        assert code == 0, table
        assert max(len(line) for line in table.splitlines()) <= width, table
        assert audit["id"] in table.split(), table  # the id whole, to copy
        shown, lines = _status_cells(table, audit["id"])
        assert shown == said, table
        # At 60 columns a look and each count with its noun are kept whole: a line more.
        assert lines <= (6 if width == 60 else 2), table
        assert any("look 1 of 4" in line for line in table.splitlines()), table
