"""An audit's report signed: its audit file and its looks are records the manifest lists, and
its release gates' verdicts are figures ``verify`` re-derives."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml

from diptych.core.workspace import Workspace
from tests.core.evidence.conftest import make_key
from tests.support.cli import call

FIGURE = "STS paired (expected from P(he), P(she))"
MASC = ["carpenter", "farmer", "guard"]
FEM = ["nurse", "editor", "secretary"]
GATES = [
    {"part": "pst-text", "figure": FIGURE, "below": 95, "name": "far below 95"},
    {"part": "pst-text", "figure": FIGURE, "below": 10, "name": "below 10"},
]

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _audit(path: Path) -> Path:
    planted = {**{m: 0.2 for m in MASC}, **{f: 0.8 for f in FEM}}
    data: dict[str, Any] = {
        "name": "gated-report",
        "models": {
            "target": {
                "plugin": "scripted-likelihood",
                "params": {"p_feminine": planted, "noise": 0.1},
            }
        },
        "probes": [
            {
                "probe": "pst-text",
                "models": ["target"],
                "params": {"masculine": MASC, "feminine": FEM},
            }
        ],
        "report": {"formats": ["json", "md", "html"]},
        "gates": GATES,
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def signed_audit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path, Path]:
    ws = tmp_path / "ws"
    code, out = call(capsys, "--store", str(ws), "audit", "run", str(_audit(tmp_path / "a.yaml")),
                     "--out", str(tmp_path / "audit-report"), "--quiet")  # fmt: skip
    assert code == 1, out  # "below 10" fails: the planted STS is near 60
    with Workspace.open(ws) as w:
        (run,) = [r.run.id for r in w.runs.list()]
    key = make_key(tmp_path, "auditor@example.org")
    report = tmp_path / "signed"
    code, out = call(capsys, "--store", str(ws), "report", run, "--out", str(report),
                     "--sign", str(key))  # fmt: skip
    assert code == 0, out
    return ws, report, key


def _verify(
    capsys: pytest.CaptureFixture[str], ws: Path, report: Path, *extra: str
) -> tuple[int, str]:
    return call(capsys, "--store", str(ws), "verify", str(report), *extra)


def test_the_gates_are_re_derived_and_the_audit_and_looks_listed(
    signed_audit: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    ws, report, key = signed_audit
    stated = json.loads((report / "report.json").read_text())
    assert [g["verdict"] for g in stated["gates"]["gates"]] == ["pass", "fail"]
    manifest = json.loads((report / "manifest.json").read_text())
    with sqlite3.connect(ws / "diptych.db") as db:
        (audit_id,) = db.execute("SELECT id FROM audits").fetchone()
    assert set(manifest["records"]["audit"]) == {audit_id}
    assert set(manifest["records"]["look"]) == {f"{audit_id}/pst-text"}
    code, out = _verify(capsys, ws, report, "--key", f"{key}.pub")
    assert code == 0, out
    numbers = len(stated["runs"][0]["result"]["numbers"])
    n = numbers + len(stated["headlines"]) + len(stated["verdict"]["findings"]) + 2
    assert f"{n} of {n} figures re-derived" in out


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ("UPDATE audits SET file_text = replace(file_text, 'below: 10', 'below: 11')", "audit"),
        ("UPDATE audit_parts SET status = 'decided'", "look"),
    ],
)
def test_a_changed_audit_file_or_look_is_named(
    change: str,
    named: str,
    signed_audit: tuple[Path, Path, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    ws, report, key = signed_audit
    with sqlite3.connect(ws / "diptych.db") as db:
        (audit_id,) = db.execute("SELECT id FROM audits").fetchone()
        db.execute(change)
    code, out = _verify(capsys, ws, report, "--key", f"{key}.pub")
    assert code == 1, out
    said = f"audit {audit_id} changed" if named == "audit" else f"look {audit_id}/pst-text changed"
    assert said in out


def test_a_gate_verdict_changed_with_its_manifest_is_named(
    signed_audit: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    ws, report, _ = signed_audit
    data = json.loads((report / "report.json").read_text())
    data["gates"]["gates"][1]["verdict"] = "pass"
    (report / "report.json").write_text(json.dumps(data, indent=2))
    with Workspace.open(ws) as w:
        w.evidence.sign(report, [data["runs"][0]["run"]], None, formats=["html", "md", "json"])
    code, out = _verify(capsys, ws, report)
    assert code == 1, out
    assert (
        "figure gate below 10 (verdict): the report states 'pass', the records give 'fail'" in out
    )
