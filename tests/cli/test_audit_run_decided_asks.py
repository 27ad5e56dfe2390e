"""``diptych audit run FILE`` on an audit whose part its gates decided short of its design asks
before it buys the rest, in the words and with the cost line of ``diptych resume``: ``--yes``
buys without asking, a script without ``--yes`` buys nothing and says to pass it, ``n`` at the
question buys nothing. ``--until-decided`` decides it again on its looks and asks nothing."""

from __future__ import annotations

import io
import re
import sqlite3
from pathlib import Path

import pytest

from diptych.core.cost import cost_text
from diptych.core.workspace import Workspace
from tests.support.cli import Terminal, call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")


@pytest.fixture(autouse=True)
def _run_from_its_temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An audit run without --out writes audit-NAME/ where it is run from: the test's temp dir."""
    monkeypatch.chdir(tmp_path)


def _lines(out: str) -> list[str]:
    return [" ".join(x.replace("\u00a0", " ").split()) for x in out.splitlines()]


def _requests(ws: str, run_id: str) -> tuple[int, int]:
    """The run's distinct requests with a stored outcome, and all of them, read in the store."""
    with sqlite3.connect(Path(ws) / "diptych.db") as db:
        row = db.execute(
            "SELECT COUNT(DISTINCT r.key), COUNT(DISTINCT t.key) FROM trials t"
            " LEFT JOIN results r ON r.key = t.key WHERE t.run_id = ?",
            (run_id,),
        ).fetchone()
    return int(row[0]), int(row[1])


def test_audit_run_asks_before_it_buys_the_rest_of_a_decided_part(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    ws = str(tmp_path / "ws")
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    file = str(planted_audit(tmp_path / "a.yaml", gates, MASC, FEM, name="asks", seed=2))
    decide = ["--store", ws, "audit", "run", file, "--until-decided", "--batches", "4", "--quiet"]
    code, out = call(capsys, *decide)
    assert code == 0, out
    found = re.search(r"^part pst-text: decided at look (\d) of 4", out, re.M)
    assert found is not None, out
    with Workspace.open(ws) as opened:
        (audit,) = opened.audits.list()
        run_id = audit.parts[0].run_id
        assert run_id is not None and opened.runs.get(run_id).status == "decided"
        before = opened.runs.counts(run_id)
        est = opened.runs.plan_resume(run_id)
    assert est.to_run > 0
    held, planned = _requests(ws, run_id)
    assert est.to_run == planned - held
    line = (
        f"{run_id} is decided at look {found[1]} of 4: {held:,} of {planned:,} requests, "
        f"{planned - held:,} saved; its gates were decided on the trials bought. Resuming buys "
        f"the remaining {est.to_run:,} requests ({est.planned - est.cached:,} trials), "
        f"estimated cost {cost_text(est.cost)}."
    )

    def counts() -> dict[str, int]:
        with Workspace.open(ws) as opened:
            return opened.runs.counts(run_id)

    # Until decided again: already decided on its looks, nothing to ask and nothing bought.
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, out = call(capsys, *decide)
    assert code == 0 and "Resuming buys" not in out and "nothing bought:" not in out, out
    assert counts() == before

    # A script without --yes: the line, then one line saying to pass --yes; nothing bought.
    run = ["--store", ws, "audit", "run", file, "--quiet"]
    code, out = call(capsys, *run)
    assert code == 2, out
    assert _lines(out).count(line) == 1, out
    assert f"nothing bought: add --yes to buy the rest of {run_id}" in out, out
    assert counts() == before

    # At a terminal: the same line and the question; no buys nothing.
    asked: list[str] = []

    def no(text: str, **_: object) -> bool:
        asked.append(text)
        return False

    monkeypatch.setattr("sys.stdin", Terminal(""))
    monkeypatch.setattr("typer.confirm", no)
    code, out = call(capsys, *run)
    assert code == 0 and asked == ["Buy the rest?"], out
    assert _lines(out).count(line) == 1 and "nothing bought" in out, out
    # Its one part is that run: the question says nothing else is left, as ctrl+r does.
    assert _lines(out).count("Nothing else of the audit is left to run.") == 1, out
    assert counts() == before

    # --yes: the same line, no question, and the rest bought.
    code, out = call(capsys, *run, "--yes")
    assert code == 0, out
    assert _lines(out).count(line) == 1 and asked == ["Buy the rest?"], out
    assert f"audit {audit.id} complete: cost " in out, out
    with Workspace.open(ws) as opened:
        assert opened.runs.get(run_id).status == "complete"
        assert opened.runs.counts(run_id)["pending"] == 0


def test_audit_run_asks_before_it_buys_the_rest_of_a_part_bought_on_and_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A decided part's run bought on since and stopped part way ("interrupted" in every
    listing) still has the rest of its design to buy: asked first, as the Audit screen asks."""
    from tests.support.sequential_audits import file_decided_and_bought_on

    monkeypatch.setenv("COLUMNS", "400")
    ws, file, run_id = file_decided_and_bought_on(capsys, tmp_path)
    with Workspace.open(ws) as opened:
        before = opened.runs.counts(run_id)
        assert opened.runs.get(run_id).status == "interrupted"
        est = opened.runs.plan_resume(run_id)
        (audit,) = opened.audits.list()
    looks = audit.parts[0].detail["sequential"]["looks"]
    held, planned = _requests(ws, run_id)
    assert held > looks[-1]["bought"] and est.to_run == planned - held

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--quiet")
    assert code == 2, out
    # Its gates stopped it, a user stopped its buying on: the question says the first.
    line = (
        f"{run_id} is decided at look {len(looks)} of 4, bought on since: {held:,} of "
        f"{planned:,} requests stored, {planned - held:,} pending; its gates were decided on the "
        f"trials bought. Resuming buys the remaining {est.to_run:,} requests "
        f"({est.planned - est.cached:,} trials), estimated cost {cost_text(est.cost)}."
    )
    assert _lines(out).count(line) == 1, out
    assert "interrupted" not in out, out
    assert f"nothing bought: add --yes to buy the rest of {run_id}" in out, out
    with Workspace.open(ws) as opened:
        assert opened.runs.counts(run_id) == before
