"""A recorded audit's verdict is its own: a second audit file of the same design that buys the
run further never rewrites what the first file's gates decided. The first record's ``audit
gate``, ``show``, ``audit list`` row and report read its own looks (look 2 of 4, its interval),
while the second record reads the looks it took (look 3 of 4) (docs/gates.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.bought_further import AT_LOOK_2, AT_LOOK_3, FIRST, SECOND, UNTIL, gated_file
from tests.support.cli import call

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _said(capsys: pytest.CaptureFixture[str], name: str) -> dict[str, Any]:
    """What every surface of audit ``name`` says of its verdict: ``audit gate``'s stop sentence
    and gate line, ``show AUDIT``'s, its ``audit list`` row and JSON, its report's gates."""
    code, out = call(capsys, "audit", "list", "--json")
    assert code == 0, out
    (listed,) = [a for a in json.loads(out) if a["name"] == name]
    code, out = call(capsys, "audit", "gate", f"{name}.yaml")
    gate = [line for line in out.splitlines() if re.match(r"^(The audit |PASS |FAIL )", line)]
    code, out = call(capsys, "show", listed["id"])
    assert code == 0, out
    shown = [line.strip() for line in out.splitlines() if "look" in line]
    code, out = call(capsys, "audit", "list")
    row = next(r for r in out.splitlines() if r.strip().startswith(f"{name}-"))
    report = json.loads(Path(f"audit-{name}/report.json").read_text(encoding="utf-8"))
    return {
        "gate": gate,
        "show": shown,
        "row": re.sub(r"\s+", " ", row),
        "status_text": listed["status_text"],
        "parts": [(p["status_text"], p["look"], p["requests"]) for p in listed["parts"]],
        "report": report["gates"],
    }


def test_a_second_file_buying_the_run_further_leaves_the_first_verdict_as_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    first = gated_file(tmp_path, "first", FIRST)
    code, out = call(capsys, "audit", "run", first, *UNTIL)
    assert code == 0 and "part pst-text: decided at look 2 of 4" in out, out
    before = _said(capsys, "first")
    assert before["status_text"] == AT_LOOK_2
    assert any("look 2 of 4" in line and line.startswith("PASS ") for line in before["gate"])
    assert any("after 72 of 144 requests (50.0%), at look 2 of 4" in s for s in before["gate"])
    assert any("look 2 of 4" in line for line in before["show"]), before["show"]

    code, out = call(capsys, "audit", "run", gated_file(tmp_path, "second", SECOND), *UNTIL)
    assert code == 0 and "part pst-text: decided at look 3 of 4" in out, out
    after = _said(capsys, "first")
    assert after == before
    assert not any("look 3" in line for line in after["show"] + after["gate"])

    # The second record reads the looks it took.
    second = _said(capsys, "second")
    assert second["status_text"] == AT_LOOK_3
    assert any("look 3 of 4); below 69" in line for line in second["gate"]), second["gate"]
    assert any("after 108 of 144 requests (75.0%), at look 3 of 4" in s for s in second["gate"])

    # Running the first file again decides it again on its own looks, its report as before.
    code, out = call(capsys, "audit", "run", first, *UNTIL)
    assert code == 0 and "look 3" not in out, out
    again = _said(capsys, "first")
    # Its report, written again, holds the same verdict at its look; the trials the second
    # file bought are beside its figures as values since, never read into its gate.
    ((gate,), (was,)) = again["report"].pop("gates"), before["report"].pop("gates")
    assert gate.pop("note").startswith("the gate's reading at look 2 of 4; the run was bought on")
    assert was.pop("note") == ""
    assert gate == was and gate["value"] == "56.6" and gate["interval"] == "38.3 to 70.7"
    assert again == before
