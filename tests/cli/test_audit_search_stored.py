"""A search's "trials stored" in an audit's plan counts every trial its session holds — its
placebo words', its scored proposals', its held-out tests' — not its placebo words' alone,
in ``diptych audit check`` and on the Audit screen alike; before it runs, the placebo words'
stored trials it would reuse."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import FEM, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A pst-text part and an identity search of two rounds on the scripted models."""
    from diptych.agent import session
    from diptych.agent.memory import HashingEmbedder

    monkeypatch.setattr(session, "SentenceEmbedder", HashingEmbedder)
    monkeypatch.setenv("COLUMNS", "400")
    planted = {**dict.fromkeys(MASC, 0.2), **dict.fromkeys(FEM, 0.8)}
    target = {"plugin": "scripted-likelihood", "params": {"p_feminine": planted, "noise": 0.3}}
    search = {"name": "identities", "kind": "identities", "target": "target",
              "agent_model": "agent", "rounds": 2, "per_round": 1, "patience": 0}  # fmt: skip
    path = planted_audit(
        tmp_path / "a.yaml", [], MASC, FEM, name="stored", seed=2,
        models={"target": target, "agent": {"plugin": "scripted-chat"}}, searches=[search],
        report={"formats": ["json"], "out": str(tmp_path / "rep")},
    )  # fmt: skip
    return str(path)


def _search_row(capsys: pytest.CaptureFixture[str], ws: str, file: str) -> tuple[list[str], int]:
    """The search's row of ``audit check``'s plan, by cell, and its placebo words' stored
    trials as the line under the plan says them."""
    code, out = call(capsys, "--store", ws, "audit", "check", file)
    assert code == 0, out
    row = next(line for line in out.splitlines() if line.startswith("identities "))
    said = re.search(r"take [\d,]+ trials(?: of its [\d,]+)?(?: \(([\d,]+) of them stored)?", out)
    assert said is not None, out
    return re.split(r"\s{2,}", row.strip()), int((said[1] or "0").replace(",", ""))


def test_a_search_counts_every_trial_its_session_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from diptych.agent.audit_search import plan_placebos
    from diptych.audit import plan_audit
    from diptych.tui.screens.audit.rows import part_rows

    file, ws = _searched(tmp_path, monkeypatch), str(tmp_path / "ws")
    cells, placebo = _search_row(capsys, ws, file)
    assert cells[4] == "0" and placebo == 0, cells  # nothing stored before it runs

    code, out = call(capsys, "--store", ws, "audit", "run", file, "--quiet")
    assert code == 0, out
    with Workspace.open(ws) as opened:
        (audit,) = opened.audits.list()
    # What its session holds, read from ``diptych show SESSION``'s list of its runs.
    code, shown = call(capsys, "--store", ws, "show", f"audit-{audit.id}-identities")
    assert code == 0, shown
    held = sum(int(n.replace(",", "")) for n in re.findall(r"complete\s+([\d,]+) trials", shown))
    runs = re.search(r"^(\d+) runs", shown, re.M)
    assert runs is not None and len(re.findall(r"complete\s+[\d,]+ trials", shown)) == int(runs[1])

    cells, placebo = _search_row(capsys, ws, file)
    # Its proposals' runs are more than its placebo words': the cell counts them all.
    assert 0 < placebo < held, (placebo, held, shown)
    assert cells[4] == f"{held:,}", (cells, held)

    with Workspace.open(ws) as opened:
        plan = plan_placebos(opened, plan_audit(opened, Path(file)))
    rows = dict(part_rows(plan, {}))
    assert rows["identities"][4] == f"{held:,}", rows
