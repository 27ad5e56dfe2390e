"""The trials a decided run's gates left unbought have one name wherever a user reads them —
``show``, ``runs``, the report and ``export`` (CSV and JSON lines): "not bought", never
"pending" (nothing waits to buy them). A run with nothing unbought says neither."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _said(capsys: pytest.CaptureFixture[str], *words: str) -> str:
    code, out = call(capsys, *words)
    assert code == 0, out
    return out


def test_a_decided_run_calls_its_unbought_trials_not_bought_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws)
    with Workspace.open(ws) as opened:
        unbought = opened.runs.counts(run_id)["pending"]
    assert unbought > 0
    said = f"{unbought:,} not bought"
    out_dir = tmp_path / "rep"
    _said(capsys, "--store", ws, "report", run_id, "-o", str(out_dir))
    # The wide listing counts them in a column of their own, beside "pending" (0 for this run).
    listing = " ".join(_said(capsys, "--store", ws, "runs").split())
    assert "failed pending not bought created" in listing, listing
    assert re.search(rf" 0 0 0 {unbought:,} \d{{4}}-", listing), listing
    surfaces = {
        "show": _said(capsys, "--store", ws, "show", run_id),
        "report.md": (out_dir / "report.md").read_text(encoding="utf-8"),
        "report scope": json.loads((out_dir / "report.json").read_text(encoding="utf-8"))[
            "verdict"
        ]["scope"],
    }
    for where, text in surfaces.items():
        flat = " ".join(text.split())
        assert not re.search(r"\bpending\b", flat), (where, text)
        assert said in flat or f"not bought {unbought:,}" in flat, (where, text)

    table = _said(capsys, "--store", ws, "export", run_id, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(table)))
    lines = _said(capsys, "--store", ws, "export", run_id).splitlines()
    for statuses in ([r["status"] for r in rows], [json.loads(x)["status"] for x in lines]):
        assert "pending" not in statuses
        assert statuses.count("not bought") == unbought


def test_a_run_with_nothing_unbought_counts_neither_pending_nor_not_bought(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    out = _said(capsys, "--store", ws, "run", "pst-text", "-m", "scripted-likelihood",
                "-p", "masculine=carpenter,farmer", "-p", "feminine=nurse,editor")  # fmt: skip
    run_id = re.search(r"^run (\S+) complete", out, re.M)
    assert run_id is not None, out
    out_dir = tmp_path / "rep"
    _said(capsys, "--store", ws, "report", run_id[1], "-o", str(out_dir), "-f", "json")
    scope = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))["verdict"]["scope"]
    assert " done" in scope and not re.search(r"\bpending\b|not bought", scope), scope
