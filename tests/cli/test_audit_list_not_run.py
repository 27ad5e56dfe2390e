"""An audit is complete only when every part of its file is: one run ``--until-decided`` left
its search out (no gate reads it), and ``audit list`` names that search "not run" in the
audit's status, its parts and its JSON, both while its gated part is decided and after that
part's run was bought whole with ``diptych resume`` — never "complete"."""

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


def _audit_with_search(tmp_path: Path) -> str:
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    path = planted_audit(tmp_path / "a.yaml", gates, MASC, FEM, name="left-out", seed=2)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["models"]["agent"] = {"plugin": "scripted-chat"}
    data["report"]["out"] = str(tmp_path / "report")
    data["searches"] = [{"name": "identities", "kind": "identities", "target": "target",
                         "agent_model": "agent"}]  # fmt: skip
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return str(path)


def _listed(capsys: pytest.CaptureFixture[str], ws: str) -> dict[str, object]:
    code, out = call(capsys, "--store", ws, "audit", "list", "--json")
    assert code == 0, out
    (audit,) = json.loads(out)
    return dict(audit)


def test_an_audit_whose_search_never_ran_is_not_complete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, file = str(tmp_path / "ws"), _audit_with_search(tmp_path)
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--until-decided",
                     "--batches", "4", "--quiet")  # fmt: skip
    assert code == 0, out

    audit = _listed(capsys, ws)
    saved = REQUESTS - BATCH
    assert audit["status"] == "decided", audit
    assert audit["status_text"] == (
        f"decided at look 1 of 4: {BATCH} of {REQUESTS} requests, {saved} saved; "
        "not run: identities"
    ), audit
    assert audit["not_run"] == ["identities"], audit
    (part,) = audit["parts"]  # type: ignore[misc]
    run_id = part["run_id"]

    # The gated part's run bought whole: the part is complete, the audit still is not.
    code, out = call(capsys, "--store", ws, "resume", run_id, "--yes", "--quiet")
    assert code == 0, out
    audit = _listed(capsys, ws)
    assert audit["status"] == "incomplete", audit
    assert audit["status_text"] == "1 of 2 parts complete; not run: identities", audit
    assert [(p["name"], p["status"]) for p in audit["parts"]] == [("pst-text", "complete")]  # type: ignore[attr-defined]
    assert audit["not_run"] == ["identities"], audit

    monkeypatch.setenv("COLUMNS", "200")
    code, table = call(capsys, "--store", ws, "audit", "list")
    row = next(line for line in table.splitlines() if str(audit["id"]) in line)
    assert " ".join(row.split()).endswith("pst-text complete, identities not run"), table
    assert "1 of 2 parts complete; not run: identities" in " ".join(row.split()), table
