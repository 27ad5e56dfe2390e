"""An audit's report bought until its gates were decided says, where it opens, which part of
its audit file it left out (a search no gate reads, not run) and the command that runs the
audit whole; a report of the whole audit says nothing of the kind."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _audit_with_search(tmp_path: Path) -> Path:
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    path = planted_audit(tmp_path / "a.yaml", gates, MASC, FEM, name="left-out", seed=2,
                         report={"formats": ["md", "json", "html"]})  # fmt: skip
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["models"]["agent"] = {"plugin": "scripted-chat"}
    data["searches"] = [{"name": "identities", "kind": "identities", "target": "target",
                         "agent_model": "agent"}]  # fmt: skip
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_an_audit_bought_until_decided_names_the_part_it_did_not_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _audit_with_search(tmp_path)
    code, out = call(capsys, "--store", "ws", "audit", "run", "a.yaml", "--until-decided",
                     "--batches", "4", "--out", "rep", "--quiet")  # fmt: skip
    assert code == 0, out
    parts = "Left out of this report, of its audit file: part identities not run (no gate reads it)"
    command = "diptych --store ../ws audit run ../a.yaml --out whole-audit"
    how = (
        "runs the audit whole: it asks before it buys what is not stored (with --yes it buys "
        "without asking; what is stored is not bought again) and writes its report to "
    )
    markdown = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    opening = markdown.split("\n## Contents", 1)[0]
    assert f"{parts}; `{command}` {how}whole-audit/." in opening
    page = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    # Each --option is kept whole on a line by a span of its own; the words are the same.
    page = re.sub(r'<span class="option">(--[\w-]+)</span>', r"\1", page)
    assert f'<p class="left-out">{parts}; <code>{command}</code> {how}whole-audit/.</p>' in page
    data = json.loads((tmp_path / "rep" / "report.json").read_text(encoding="utf-8"))
    assert data["verdict"]["left_out"] == f"{parts}; {command} {how}whole-audit/."


def test_a_report_of_runs_leaves_nothing_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "run", "pst-text", "-m",
                     "scripted-likelihood", "-p", "masculine=carpenter,farmer", "-p",
                     "feminine=nurse,editor", "--report", str(tmp_path / "rep"),
                     "--quiet")  # fmt: skip
    assert code == 0, out
    assert "Left out" not in (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    data = json.loads((tmp_path / "rep" / "report.json").read_text(encoding="utf-8"))
    assert data["verdict"]["left_out"] == ""


def test_the_report_of_an_audits_runs_names_the_part_it_did_not_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # `diptych report RUN` of the audit's runs is titled as the audit: it says what the
    # audit's own report says it left out.
    monkeypatch.chdir(tmp_path)
    _audit_with_search(tmp_path)
    code, out = call(capsys, "--store", "ws", "audit", "run", "a.yaml", "--until-decided",
                     "--batches", "4", "--out", "rep", "--quiet")  # fmt: skip
    assert code == 0, out
    data = json.loads((tmp_path / "rep" / "report.json").read_text(encoding="utf-8"))
    runs = [r["run"] for r in data["runs"]]
    code, out = call(capsys, "--store", "ws", "report", *runs, "--out", "again")
    assert code == 0, out
    markdown = (tmp_path / "again" / "report.md").read_text(encoding="utf-8")
    opening = markdown.split("\n## Contents", 1)[0]
    assert opening.startswith("# Audit left-out")
    parts = "Left out of this report, of its audit file: part identities not run (no gate reads it)"
    command = "diptych --store ../ws audit run ../a.yaml --out whole-audit"
    assert f"{parts}; `{command}` runs the audit whole" in opening
