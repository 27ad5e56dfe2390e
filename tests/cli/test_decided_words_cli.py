"""``--until-decided`` from the command line in the words of what happened: the run output,
``diptych runs`` and ``diptych show`` call the run decided (the look, the requests bought and
saved) and its untried trials "not bought", never "interrupted" or "pending"; ``diptych
resume`` buys the rest on purpose."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import FIGURE

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
#: 6 × 6 scenes, both orders, both people: 144 distinct prompts (and as many trials).
REQUESTS = 144

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _column(out: str, name: str) -> str:
    """The cells of a table's last column ``name`` read down, their lines joined by spaces."""
    lines = out.splitlines()
    header = next(line for line in lines if re.search(rf"\b{name}\b", line))
    start = re.search(rf"\b{name}\b", header).start()  # type: ignore[union-attr]
    return " ".join(line[start:].strip() for line in lines[lines.index(header) + 1 :])


def test_a_run_stopped_by_its_gates_reads_decided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    lists = ["-p", "masculine=" + ",".join(MASC), "-p", "feminine=" + ",".join(FEM)]
    code, out = call(capsys, "--store", ws, "run", "pst-text", "-m", "scripted-likelihood",
                     "-p", "setting=paired", *lists, "--gate", f"{FIGURE} below 60",
                     "--until-decided", "--batches", "4")  # fmt: skip
    assert code == 0, out
    assert "interrupted" not in out
    said = re.search(r"^run (\S+) decided at look (\d) of 4: (\d+) of 144 requests, (\d+) saved",
                     out, flags=re.M)  # fmt: skip
    assert said is not None, out
    run_id, looks, bought, saved = said[1], int(said[2]), int(said[3]), int(said[4])
    # Batches of a quarter: 36 requests each; what was not bought was saved.
    assert bought == 36 * looks < REQUESTS and saved == REQUESTS - bought
    # Each batch before the deciding look was bought in full, and said so.
    assert out.count("partial: its batch bought") == looks
    words = f"decided at look {looks} of 4: {bought} of 144 requests, {saved} saved"

    # At a terminal's 80 columns the table wraps its cells between words, the outcomes in one
    # column: the words are the JSON's, checked exactly below.
    monkeypatch.setenv("COLUMNS", "80")
    code, out = call(capsys, "--store", ws, "runs")
    assert code == 0 and "interrupted" not in out and "pending" not in out
    # Side by side, or stacked a run to a block where the cells do not fit the width.
    trials = _column(out, "trials") or " ".join(out.split())
    assert "decided at" in out and f"{saved} not bought" in trials
    code, out = call(capsys, "--store", ws, "runs", "--json")
    (listed,) = json.loads(out)
    assert (listed["status"], listed["status_text"]) == ("decided", words)

    code, out = call(capsys, "--store", ws, "show", run_id)
    assert code == 0 and f"status {words}" in " ".join(out.split())
    assert f"trials: done {bought}, refused 0, failed 0, not bought {saved}" in out
    # Wrapped between words at 80 columns, the command whole.
    assert f"'diptych resume {run_id} --yes' buys it" in " ".join(out.split())
    assert any(f"'diptych resume {run_id} --yes'" in line for line in out.splitlines())

    # A resume buys the rest on purpose: it says what the rest buys, and where nobody can
    # answer (a script, CI) buys nothing without --yes.
    code, out = call(capsys, "--store", ws, "resume", run_id, "--quiet")
    said = " ".join(out.split())
    assert code == 2 and f"nothing bought: add --yes to buy the rest of {run_id}" in said, out
    # In the words the terminal app's u says: where it was decided, what the rest buys.
    assert f"{run_id} is {words}; its gates were decided on the trials bought. Resuming " \
        f"buys the remaining {saved} requests ({saved} trials), estimated cost not priced." \
        in said, out  # fmt: skip
    code, listed_out = call(capsys, "--store", ws, "runs", "--json")
    (listed,) = json.loads(listed_out)
    assert listed["status"] == "decided" and listed["counts"]["not_bought"] == saved
    assert listed["counts"]["pending"] == 0, listed
    code, out = call(capsys, "--store", ws, "resume", run_id, "--yes", "--quiet")
    assert code == 0, out
    code, out = call(capsys, "--store", ws, "runs", "--json")
    (listed,) = json.loads(out)
    assert listed["status"] == "complete" and listed["counts"]["pending"] == 0
