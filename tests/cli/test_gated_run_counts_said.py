"""A run its gate decided, bought with ``diptych run --gate … --until-decided``: its final
output says the requests bought and saved once, and its report (report.json's ``counts``, the
scope line of report.md and report.html) gives its untried trials as every listing does: not
bought, none pending (``diptych runs --json``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import FIGURE

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
#: 6 × 6 scenes, both orders, both people: 144 distinct prompts, one trial each.
REQUESTS = 144

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_a_decided_gated_run_says_its_counts_once_and_its_report_as_the_listings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws, report = str(tmp_path / "ws"), tmp_path / "report"
    code, out = call(capsys, "--store", ws, "run", "pst-text", "-m", "scripted-likelihood",
                     "-p", "setting=paired", "-p", "masculine=" + ",".join(MASC),
                     "-p", "feminine=" + ",".join(FEM), "--gate", f"{FIGURE} below 60",
                     "--until-decided", "--batches", "4", "--report", str(report))  # fmt: skip
    assert code == 0, out
    said = re.search(r"^run (\S+) decided at look \d of 4: (\d+) of 144 requests, (\d+) saved",
                     out, re.M)  # fmt: skip
    assert said is not None, out
    run_id, bought, saved = said[1], int(said[2]), int(said[3])
    assert bought + saved == REQUESTS and saved > 0
    # Said once before the gates (their block is ``audit gate``'s own): the run's line names
    # them; the stop line only why and where it stopped.
    final = out[out.index(said[0]) : out.index("gates of audit")]
    assert final.count(f"{bought} of 144 requests") == 1, final
    assert len(re.findall(rf"\b{saved}\b", final)) == 1, final
    assert re.search(r"^stopped: every gate decided in \d of 4 batches$", final, re.M), final

    code, listed = call(capsys, "--store", ws, "runs", "--json")
    assert code == 0, listed
    (row,) = [r for r in json.loads(listed) if r["id"] == run_id]
    expected = {"done": bought, "refused": 0, "failed": 0, "pending": 0, "not_bought": saved}
    assert row["counts"] == expected
    (part,) = json.loads((report / "report.json").read_text(encoding="utf-8"))["runs"]
    assert part["counts"] == expected
    for name in ("report.md", "report.html"):
        text = (report / name).read_text(encoding="utf-8")
        scope = next(line for line in text.splitlines() if "Scope:" in line)
        assert f"{saved} not bought" in scope and "pending" not in scope, (name, scope)
