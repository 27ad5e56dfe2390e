"""A search kept from an earlier run of its audit reads "reused" with the session it keeps in
``audit list``'s table and JSON, not as a search run afresh; the audit stays complete."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.support.cli import call
from tests.support.sequential_audits import FEM, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_a_search_kept_from_an_earlier_run_reads_reused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from diptych.agent import session
    from diptych.agent.memory import HashingEmbedder

    monkeypatch.setattr(session, "SentenceEmbedder", HashingEmbedder)
    monkeypatch.setenv("COLUMNS", "200")
    path = planted_audit(tmp_path / "a.yaml", [], MASC[:2], FEM[:2], name="kept", seed=2)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    del data["gates"]
    data["models"]["agent"] = {"plugin": "scripted-chat"}
    data["report"]["out"] = str(tmp_path / "report")
    data["searches"] = [{"name": "identities", "kind": "identities", "target": "target",
                         "agent_model": "agent", "rounds": 1, "per_round": 1,
                         "patience": 0}]  # fmt: skip
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    ws = str(tmp_path / "ws")

    def listed() -> dict[str, object]:
        code, out = call(capsys, "--store", ws, "audit", "list", "--json")
        assert code == 0, out
        (audit,) = json.loads(out)
        return dict(audit)

    code, out = call(capsys, "--store", ws, "audit", "run", str(path), "--quiet")
    assert code == 0, out
    first = listed()
    assert [p["status_text"] for p in first["parts"]] == ["complete", "complete"], first  # type: ignore[index]

    code, out = call(capsys, "--store", ws, "audit", "run", str(path), "--quiet")
    assert code == 0, out
    assert f"part identities: finished before (session audit-{first['id']}-identities)" in out
    audit = listed()
    kept = f"reused (session audit-{audit['id']}-identities)"
    assert audit["status_text"] == "complete", audit
    assert [(p["name"], p["status_text"]) for p in audit["parts"]] == [  # type: ignore[index]
        ("pst-text", "complete"), ("identities", kept),
    ]  # fmt: skip
    code, table = call(capsys, "--store", ws, "audit", "list")
    row = next(line for line in table.splitlines() if str(audit["id"]) in line)
    assert " ".join(row.split()).endswith(f"pst-text complete, identities {kept}"), table
