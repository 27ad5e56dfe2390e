"""An audit bought until its gates are decided says so wherever its run is listed: "decided at
look k of K: bought of planned requests, saved saved", in the Workspace's listing and detail,
the report (JSON, Markdown, HTML) and the part's progress events; its status and its events
agree at every look; and a resume of the decided run buys the rest on purpose."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from diptych.audit import run_audit
from diptych.audit.sequential import part_status_words
from diptych.core.audit.run_status import status_text
from diptych.core.audit.sequential import Look, PartLooks
from diptych.core.workspace import Workspace
from tests.support.sequential_audits import FIGURE, planted_audit
from tests.support.stopped_runs import forget_one_answer

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer", "driver", "sheriff"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher", "baker", "clerk"]
#: 8 × 8 scenes, both orders, both people: 256 distinct prompts, bought in 4 batches of 64.
REQUESTS = 256
BATCHES = 4


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    with Workspace.open(tmp_path / "ws") as workspace:
        yield workspace


def test_the_words_of_each_stop() -> None:
    looks = PartLooks(10, 0, [Look(1, 164, 1640, {})], stop="decided")
    assert status_text("decided", looks) == (
        "decided at look 1 of 10: 164 of 1,640 requests, 1,476 saved"
    )
    assert status_text("partial", looks) == "partial: look 1 of 10 undecided, 164 of 1,640 requests"
    assert status_text("interrupted", looks) == "interrupted"
    assert status_text("complete") == "complete"
    assert part_status_words("running", {"batch": 2, "batches": 10}) == "running batch 2 of 10"
    assert part_status_words("decided", {"look": 2, "batches": 10}) == "decided at look 2 of 10"
    assert part_status_words("complete", {}) == "complete"


def test_a_decided_run_reads_decided_everywhere_and_its_events_agree(
    tmp_path: Path, ws: Workspace, calls: Path
) -> None:
    path = planted_audit(
        tmp_path / "a.yaml", [{"part": "pst-text", "figure": FIGURE, "below": 95}], MASC, FEM,
        name="seq", seed=11, model_params={"calls_log": str(calls)},
    )  # fmt: skip
    said: list[tuple[str, str]] = []

    def stored() -> str:
        (summary,) = ws.runs.list()
        return summary.run.status

    def on_part(name: str, status: str, detail: dict[str, Any]) -> None:
        # At every event the run's stored status is the one the event names.
        if status != "running":
            assert stored() == status
        said.append((status, part_status_words(status, detail)))

    def on_look(batch: int, batches: int, report: Any) -> None:
        decided = all(r.verdict != "inconclusive" for r in report.results)
        assert stored() == ("decided" if decided else "partial")

    outcome = asyncio.run(
        run_audit(ws, path, out_dir=tmp_path / "rep", until_decided=True, batches=BATCHES,
                  on_part=on_part, on_look=on_look)
    )  # fmt: skip
    assert outcome.status == "decided"
    (part,) = outcome.parts
    looks = PartLooks.of(part.detail)
    assert looks is not None
    n = len(looks.looks)
    bought = 64 * n
    assert 0 < bought < REQUESTS
    words = f"decided at look {n} of {BATCHES}: {bought} of {REQUESTS} requests, " \
        f"{REQUESTS - bought} saved"  # fmt: skip
    # The events: each batch bought and waiting for its look, then the look that decided.
    expected = []
    for k in range(1, n + 1):
        expected.append(("running", f"running batch {k} of {BATCHES}"))
        expected.append(("partial", f"partial at look {k} of {BATCHES}"))
    expected.append(("decided", f"decided at look {n} of {BATCHES}"))
    assert said[: len(expected)] == expected
    assert set(said[len(expected) :]) <= {("decided", f"decided at look {n} of {BATCHES}")}

    run_id = part.run_id or ""
    (summary,) = ws.runs.list()
    assert summary.run.status == "decided" and summary.said == words
    assert ws.runs.show(run_id).status_text == words
    assert ws.runs.status_text(run_id) == words
    # The report, in every format.
    out = tmp_path / "again"
    files = ws.analysis.report_files(run_id, out, formats=["json", "md", "html"])
    (run_json,) = json.loads(files["json"].read_text())["runs"]
    assert (run_json["status"], run_json["status_text"]) == ("decided", words)
    assert f"status **{words}**" in files["md"].read_text()
    html = files["html"].read_text()
    assert f"status {words}" in html and "interrupted" not in html

    # A resume buys the rest on purpose.
    done = ws.runs.resume_sync(run_id)
    assert done.status == "complete" and ws.runs.counts(run_id)["pending"] == 0
    assert ws.runs.status_text(run_id) == "complete"


def test_a_workspace_of_an_older_diptych_reads_its_decided_runs_as_decided(
    tmp_path: Path, calls: Path
) -> None:
    """Before the ``decided`` status, such a run was stored as ``interrupted`` while its audit
    part said ``decided``; the migration stores it as what happened, unless it was bought
    further since."""
    path = planted_audit(
        tmp_path / "a.yaml", [{"part": "pst-text", "figure": FIGURE, "below": 95}], MASC, FEM,
        name="seq", seed=11, model_params={"calls_log": str(calls)},
    )  # fmt: skip
    where = tmp_path / "ws"
    with Workspace.open(where) as ws:
        outcome = asyncio.run(run_audit(ws, path, out_dir=tmp_path / "rep", until_decided=True,
                                        batches=BATCHES))  # fmt: skip
        run_id = outcome.parts[0].run_id or ""
        words = ws.runs.status_text(run_id)
    assert words.startswith("decided at look ")

    def as_before(status: str) -> None:
        # The store as the older diptych left it: the run "interrupted", migration 8 not run.
        db = sqlite3.connect(where / "diptych.db")
        with db:
            db.execute("UPDATE runs SET status = ? WHERE id = ?", (status, run_id))
            db.execute("DELETE FROM _migrations WHERE number = 8")
        db.close()

    as_before("interrupted")
    with Workspace.open(where) as ws:
        assert ws.runs.get(run_id).status == "decided"
        assert ws.runs.status_text(run_id) == words
    # A run whose outcomes changed since its part was recorded keeps its own status.
    as_before("interrupted")
    forget_one_answer(Path(where), run_id)
    with Workspace.open(where) as ws:
        assert ws.runs.get(run_id).status == "interrupted"


def test_the_same_audit_again_restores_a_decided_run_a_cancelled_resume_left_interrupted(
    tmp_path: Path, ws: Workspace, calls: Path
) -> None:
    path = planted_audit(
        tmp_path / "a.yaml", [{"part": "pst-text", "figure": FIGURE, "below": 95}], MASC, FEM,
        name="seq", seed=11, model_params={"calls_log": str(calls)},
    )  # fmt: skip
    first = asyncio.run(run_audit(ws, path, out_dir=tmp_path / "r1", until_decided=True,
                                  batches=BATCHES))  # fmt: skip
    assert first.status == "decided"
    run_id = first.parts[0].run_id or ""
    # A resume that bought more and was cancelled (tests/core/engine/test_planned_stop.py).
    ws.runs._store.set_run_status(run_id, "interrupted")
    again = asyncio.run(run_audit(ws, path, out_dir=tmp_path / "r2", until_decided=True,
                                  batches=BATCHES))  # fmt: skip
    # Its gates are decided on what is stored: the run says so again, and buys nothing more.
    assert again.status == "decided" and again.parts[0].status == "decided"
    assert ws.runs.get(run_id).status == "decided"
    assert ws.runs.status_text(run_id).startswith("decided at look")
