"""A decided run bought on (``diptych resume RUN --yes``) and stopped part way holds trials a user
chose to buy and has not got: the next resume asks them, so every surface calls them "pending"
(``show``, ``runs`` and its JSON, ``export`` as CSV and JSON lines, the report's display fields),
in its status words too, never "not bought"; each count is the store's. Before the buy-on the
same trials were "not bought" everywhere (tests/cli/test_unbought_word.py)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from diptych.core.store import open_store
from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look
from tests.support.stopped_runs import bought_on_and_interrupted

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _said(capsys: pytest.CaptureFixture[str], *words: str) -> str:
    code, out = call(capsys, *words)
    assert code == 0, out
    return out


def _flat(text: str) -> str:
    return " ".join(text.replace("\u00a0", " ").split())


def test_a_bought_on_run_stopped_part_way_calls_what_it_did_not_get_pending_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    bought_on_and_interrupted(ws, run_id)
    with open_store(ws) as store:
        counts = store.status_counts(run_id)
        answered, planned = store.requests_answered(run_id)
        status = store.run_with_id(run_id).status  # type: ignore[union-attr]
    done, pending = counts["done"], counts["pending"]
    assert status == "interrupted" and done > 0 and pending > 0 and answered < planned
    words = (
        f"interrupted: decided at look 1 of 4, bought on since: {answered} of {planned} "
        f"requests stored, {planned - answered} pending"
    )

    show = _flat(_said(capsys, "--store", ws, "show", run_id))
    assert f"status {words}" in show, show
    assert f"trials: done {done}, refused 0, failed 0, pending {pending}" in show, show

    # The wide listing has no column of trials not bought: nothing of this run is.
    listing = _flat(_said(capsys, "--store", ws, "runs"))
    assert "failed pending created" in listing, listing
    assert re.search(rf" {done} 0 0 {pending} \d{{4}}-", listing), listing
    (listed,) = json.loads(_said(capsys, "--store", ws, "runs", "--json"))
    assert listed["status_text"] == words and listed["counts"] == {**counts, "not_bought": 0}, (
        listed
    )

    # `audit list` names the part in its run's own words, the decision and the buy-on kept.
    audits = _flat(_said(capsys, "--store", ws, "audit", "list"))
    assert f" {words}" in audits and f"interrupted: {answered} of" not in audits, audits

    out_dir = tmp_path / "rep"
    _said(capsys, "--store", ws, "report", run_id, "-o", str(out_dir))
    report = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    (part,) = report["runs"]
    assert part["status_text"] == words and part["counts"] == {**counts, "not_bought": 0}, part
    scope = report["verdict"]["scope"]
    assert f"({done} done, 0 refused, 0 failed, {pending} pending)" in scope, scope
    markdown = _flat((out_dir / "report.md").read_text(encoding="utf-8"))
    assert f"status **{words}**" in markdown and f"{done} done, {pending} pending" in markdown

    table = _said(capsys, "--store", ws, "export", run_id, "--format", "csv")
    lines = _said(capsys, "--store", ws, "export", run_id).splitlines()
    for statuses in (
        [r["status"] for r in csv.DictReader(io.StringIO(table))],
        [json.loads(x)["status"] for x in lines],
    ):
        assert statuses.count("pending") == pending and statuses.count("done") == done

    for where, text in {"show": show, "runs": listing, "report.md": markdown}.items():
        assert "not bought" not in text, (where, text)
    assert "not bought" not in json.dumps(report) + table + "".join(lines)
