"""A decided run's outcome counts are what it stored or reused up to its decision, and stay
so: results are shared by request across runs, so another run that later stores requests of
the decided run's design adds nothing to its "done" (in ``diptych runs``, its JSON and
``diptych show``, and the terminal app's Runs row)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import FIGURE

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
#: 6 × 6 scenes, both orders, both people: 144 distinct prompts (and as many trials).
REQUESTS = 144
LISTS = ["-p", "masculine=" + ",".join(MASC), "-p", "feminine=" + ",".join(FEM)]

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _listed(capsys: pytest.CaptureFixture[str], ws: str, run_id: str) -> dict[str, int]:
    code, out = call(capsys, "--store", ws, "runs", "--json")
    assert code == 0, out
    (row,) = [r for r in json.loads(out) if r["id"] == run_id]
    return dict(row["counts"])


def test_a_decided_runs_done_count_is_fixed_when_another_run_stores_its_requests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    code, out = call(capsys, "--store", ws, "run", "pst-text", "-m", "scripted-likelihood",
                     "-p", "setting=paired", *LISTS, "--gate", f"{FIGURE} below 60",
                     "--until-decided", "--batches", "4")  # fmt: skip
    assert code == 0, out
    said = re.search(r"^run (\S+) decided at look (\d) of 4: (\d+) of 144 requests", out, re.M)
    assert said is not None, out
    decided, bought = said[1], int(said[3])
    assert bought < REQUESTS
    before = _listed(capsys, ws, decided)
    # The listing's: none pending, the rest not bought; the store's: the rest without outcome.
    assert before == {"done": bought, "refused": 0, "failed": 0, "pending": 0,
                      "not_bought": REQUESTS - bought}  # fmt: skip
    stored = {"done": bought, "refused": 0, "failed": 0, "pending": REQUESTS - bought}

    # The same design again, as a new run bought whole: every one of the decided run's
    # requests is now stored, most of them by this second run.
    code, out = call(capsys, "--store", ws, "run", "pst-text", "-m", "scripted-likelihood",
                     "-p", "setting=paired", *LISTS, "--new", "--quiet")  # fmt: skip
    assert code == 0, out
    with Workspace.open(ws) as opened:
        rows = {r.run.id: r for r in opened.runs.list()}
        (second,) = [r for r in rows if r != decided]
        # The second run reused the decided run's requests and bought the rest.
        assert rows[second].counts["done"] == REQUESTS
        # What the terminal app's Runs row and the Review read.
        assert rows[decided].counts == stored
        assert opened.runs.counts(decided) == stored
        assert opened.runs.show(decided).counts == stored

    assert _listed(capsys, ws, decided) == before
    code, out = call(capsys, "--store", ws, "show", decided)
    assert code == 0, out
    assert (f"trials: done {bought}, refused 0, failed 0, not bought {REQUESTS - bought}"
            in out)  # fmt: skip

    # A resume buys the rest on purpose: the run's counts are its own again, and whole.
    code, out = call(capsys, "--store", ws, "resume", decided, "--yes", "--quiet")
    assert code == 0, out
    assert _listed(capsys, ws, decided) == {"done": REQUESTS, "refused": 0, "failed": 0,
                                            "pending": 0, "not_bought": 0}  # fmt: skip
