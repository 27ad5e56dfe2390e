"""``diptych audit list`` in a workspace without an audit says so, and what records one; its
JSON is the empty list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diptych.core.store import open_store
from tests.support.cli import call


def test_an_empty_audit_list_says_what_records_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    with open_store(ws):
        pass
    code, out = call(capsys, "--store", str(ws), "audit", "list")
    assert code == 0, out
    said = " ".join(out.split())
    assert said.startswith("No audits recorded in ") and str(ws.name) in said, out
    assert said.endswith("yet: diptych audit run FILE records one."), out
    code, out = call(capsys, "--store", str(ws), "audit", "list", "--json")
    assert code == 0 and json.loads(out) == [], out
