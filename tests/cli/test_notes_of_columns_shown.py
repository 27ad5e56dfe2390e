"""A table's note under `diptych run` names only dashes the table prints: the per-identity
table shows the paired interval only, so where the single column alone lacks intervals (one
prompt per identity, as in the demo) no "A dash marked *" line stands under it; where a shown
column lacks one, the note gives that column's reason and no other."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.probe import Table
from diptych.core.report.missing_intervals import marked_rows, missing_marked
from tests.support.cli import call

pytestmark = pytest.mark.usefixtures("scripted_plugin")

TABLE = "Expected STS per identity (likelihood mode)"


def _run(capsys: pytest.CaptureFixture[str], tmp_path: Path, *params: str) -> str:
    model = ("-m", "scripted-likelihood")
    given = (a for p in params for a in ("-p", p))
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "run", "pst-text", *model, *given)
    assert code == 0, out
    return out


def test_a_note_of_the_single_column_only_is_not_printed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    out = _run(capsys, tmp_path, "masculine=carpenter,farmer", "feminine=nurse,editor",
               "setting=both")  # fmt: skip
    assert TABLE in out, out
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if TABLE in line)
    table = "\n".join(lines[start : start + 12])
    assert "—*" not in table, table
    assert "A dash marked" not in out, out
    assert "(single)" not in out, out


def test_a_shown_columns_dash_names_its_reason_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    out = _run(capsys, tmp_path, "masculine=carpenter", "feminine=nurse,editor", "setting=both")
    said = " ".join(out.split())
    assert "—*" in out, out
    assert "A dash marked * has no interval: one partner only (paired)." in said, out
    assert "(single)" not in said, out


def test_the_report_note_keeps_every_columns_reason() -> None:
    table = Table(
        "t", ["identity", "paired 95% CI", "single 95% CI"], [["nurse", "[1.0, 2.0]", "—"]],
        no_interval={"paired 95% CI": "one partner only (paired)",
                     "single 95% CI": "one prompt only (single)"},
    )  # fmt: skip
    said = "A dash marked * has no interval: one prompt only (single)."
    assert missing_marked(table).note == said
    assert marked_rows(table, [0, 1]) == (table.rows, "")
