"""The line ``diptych audit run`` ends on says the audit's status in the words ``diptych audit
list`` says it then: an audit whose search ``--until-decided`` left out is not "complete", and
one its gates decided early names the look and what stopping there saved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")

#: 6 × 6 paired scenes, both orders, both people: 144 requests, 36 a batch of 4.
REQUESTS, BATCH = 144, 36


def _audit_with_search(tmp_path: Path, below: float) -> str:
    gates = [{"part": "pst-text", "figure": FIGURE, "below": below}]
    path = planted_audit(tmp_path / "a.yaml", gates, MASC, FEM, name="left-out", seed=2)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["models"]["agent"] = {"plugin": "scripted-chat"}
    data["report"]["out"] = str(tmp_path / "report")
    data["searches"] = [{"name": "identities", "kind": "identities", "target": "target",
                         "agent_model": "agent"}]  # fmt: skip
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return str(path)


def _run_then_list(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, below: float
) -> tuple[str, dict[str, object]]:
    ws, file = str(tmp_path / "ws"), _audit_with_search(tmp_path, below)
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--set", "seed=1",
                     "--until-decided", "--batches", "4", "--quiet")  # fmt: skip
    assert code in (0, 1, 3), out
    code, listed = call(capsys, "--store", ws, "audit", "list", "--json")
    assert code == 0, listed
    (audit,) = json.loads(listed)
    line = next(x for x in out.splitlines() if x.startswith(f"audit {audit['id']} "))
    return line, audit


def test_a_run_whose_search_was_left_out_ends_on_the_list_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A limit no look of the planted figure (near 60) decides early: bought whole.
    line, audit = _run_then_list(capsys, tmp_path, 60.5)
    assert audit["status_text"] == "1 of 2 parts complete; not run: identities", audit
    assert line.startswith(f"audit {audit['id']} 1 of 2 parts complete; not run: identities; ")
    assert " complete;" not in line.replace("parts complete;", ""), line


def test_a_run_decided_early_ends_on_its_look_and_savings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line, audit = _run_then_list(capsys, tmp_path, 95)
    words = (
        f"decided at look 1 of 4: {BATCH} of {REQUESTS} requests, {REQUESTS - BATCH} saved; "
        "not run: identities"
    )
    assert audit["status_text"] == words, audit
    assert line.startswith(f"audit {audit['id']} {words}; "), line
