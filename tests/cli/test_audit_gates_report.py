"""Gate verdicts in the report beside its verdict block, and ``audit check`` naming a gate's
unknown figure before the audit has ever run."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from diptych.core.report.formatting import figure_text, level_text
from tests.support.cli import call
from tests.support.page_text import page_text

FIGURE = "STS paired (expected from P(he), P(she))"
MASC = ["carpenter", "farmer", "guard"]
FEM = ["nurse", "editor", "secretary"]


#: The scripted models of diptych.testing, as a plugin.
pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _audit(path: Path, gates: list[dict[str, Any]]) -> Path:
    planted = {**{m: 0.2 for m in MASC}, **{f: 0.8 for f in FEM}}
    data = {
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
        ],  # fmt: skip
        "report": {"formats": ["json", "md", "html"]},
        "gates": gates,
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_the_report_shows_the_gates_that_audit_gate_decides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws, out_dir = str(tmp_path / "ws"), tmp_path / "rep"
    gates = [
        {"part": "pst-text", "figure": FIGURE, "below": 95, "name": "far below 95"},
        {"part": "pst-text", "figure": FIGURE, "below": 10, "name": "below 10"},
    ]
    file = _audit(tmp_path / "audit.yaml", gates)
    code, out = call(capsys, "--store", ws, "audit", "run", str(file), "--out", str(out_dir),
                     "--quiet")  # fmt: skip
    assert code == 1, out  # "below 10" fails: the planted STS is near 60
    code, out = call(capsys, "--store", ws, "audit", "gate", str(file), "--json")
    decided = json.loads(out)["gates"]
    report = json.loads((out_dir / "report.json").read_text())
    shown = report["gates"]["gates"]
    assert [g["verdict"] for g in shown] == [g["verdict"] for g in decided] == ["pass", "fail"]
    for mine, theirs in zip(shown, decided, strict=True):
        # The same value and interval at the same Holm-adjusted level as `audit gate`.
        # Printed as the report prints a figure everywhere, the findings included.
        assert mine["value"] == figure_text(theirs["value"])
        low, high = figure_text(theirs["ci_low"]), figure_text(theirs["ci_high"])
        assert mine["interval"] == f"{low} to {high}"
        assert mine["level"] == level_text(theirs["confidence"])  # "95%", "97.5%"
    # Holm over two gates: the smaller p is held to 2.5%/2 a side (97.5%), the other to 95%.
    assert sorted(g["level"] for g in shown) == ["95%", "97.5%"]
    assert report["gates"]["heading"].startswith("Release gates of audit ")
    assert "1 of 2 pass" in report["gates"]["heading"]
    html = (out_dir / "report.html").read_text()
    # First in the verdict block, before the findings' sentences.
    assert html.index('id="gates"') < html.index('class="findings"')
    assert "rule: below 10" in html and ">FAIL</strong>" in html
    markdown = (out_dir / "report.md").read_text()
    assert "- **PASS** far below 95: pst-text · " + FIGURE in markdown
    # Titled by the audit and what it decided; its probe is a section under the title.
    title = "Audit gated-report (audit.yaml): 1 of 2 gates pass, release blocked"
    assert markdown.startswith(f"# {title}\n")
    # (The audit's name kept whole in a span of its own on the page: read the text around it.)
    text = re.sub(r'<span class="run-id">(.*?)</span>', r"\1", html)
    assert f"<title>{title}</title>" in text and f"<h1>{title}</h1>" in text
    assert "\n### Paired Stereotype Test on text (likelihood mode)\n" in markdown
    # `diptych report` of the audit's run keeps its gates, decided the same way; its command
    # to reproduce names the audit file.
    run_id = report["scope"]["parts"][0]["run"]
    again = tmp_path / "again"
    code, out = call(capsys, "--store", ws, "report", run_id, "--out", str(again))
    assert code == 0, out
    kept = json.loads((again / "report.json").read_text())["gates"]["gates"]
    assert [(g["verdict"], g["interval"]) for g in kept] == [
        (g["verdict"], g["interval"]) for g in shown
    ]
    assert 'id="gates"' in (again / "report.html").read_text()
    # Named from the report's own directory, where the command is pasted.
    assert f"audit run {os.path.relpath(file, again)}" in (again / "report.md").read_text()


def test_check_names_an_unknown_figure_before_any_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    file = _audit(
        tmp_path / "audit.yaml",
        [{"part": "pst-text", "figure": "STS pared (expected from P(he), P(she))", "below": 50}],
    )
    code, out = call(capsys, "--store", ws, "audit", "check", str(file))
    assert code == 2, out
    (line,) = [x for x in out.splitlines() if "gate '" in x]
    assert "the audit's probes has no figure 'STS pared" in line
    assert f"did you mean '{FIGURE}'" in line
    _audit(file, [{"part": "pst-text", "figure": FIGURE, "below": 50}])
    code, out = call(capsys, "--store", ws, "audit", "check", str(file))
    assert code == 0, out
    assert not (tmp_path / "ws").exists() or "gate '" not in out


def _pairs_audit(path: Path, gates: list[dict[str, Any]], models: list[str]) -> Path:
    data = {
        "name": "gated-pairs",
        "models": {
            "vlm": {"plugin": "scripted-vision"},
            "vlm-2": {"plugin": "scripted-vision", "params": {"version": "2"}},
        },
        "probes": [
            {
                "probe": "pairs",
                "name": "jobs",
                "models": models,
                "params": {"subsets": ["occupations"]},
            },
        ],  # fmt: skip
        "report": {"formats": ["json"]},
        "gates": gates,
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_check_refuses_a_figure_a_pairs_part_cannot_produce(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    figure = "occupations: difference man − woman"
    # The part asks the occupation questions only: status figures are none of its own.
    bad = [{"part": "jobs", "figure": "status: difference white − black", "below": 0.2},
           {"part": "jobs", "figure": figure, "below": 0.2}]  # fmt: skip
    file = _pairs_audit(tmp_path / "audit.yaml", bad, ["vlm"])
    code, out = call(capsys, "--store", ws, "audit", "check", str(file))
    assert code == 2, out
    (line,) = [x for x in out.splitlines() if "gate '" in x]
    assert "part 'jobs' of the audit's probes has no figure 'status: difference" in line
    _pairs_audit(file, bad[1:], ["vlm"])
    code, out = call(capsys, "--store", ws, "audit", "check", str(file))
    assert code == 0, out

    # Two models: each figure begins with its model's id, which the run names; any id passes,
    # the rest of the name is still checked.
    two = [{"part": "jobs", "figure": f"scripted-vision#0a1b2c3d: {figure}", "below": 0.2}]
    _pairs_audit(file, two, ["vlm", "vlm-2"])
    code, out = call(capsys, "--store", ws, "audit", "check", str(file))
    assert code == 0, out
    _pairs_audit(file, [{**two[0], "figure": figure}], ["vlm", "vlm-2"])
    code, out = call(capsys, "--store", ws, "audit", "check", str(file))
    assert code == 2, out
    (line,) = [x for x in out.splitlines() if "gate '" in x]
    assert f"did you mean '<model>: {figure}'" in line


def test_check_refuses_a_gate_on_a_figure_without_an_interval_before_any_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A p-value has no interval for a gate to rest on: refused before the run, in the words
    audit check uses once it is recorded, while the association score beside it is accepted."""
    ws = str(tmp_path / "ws")
    p_value = {"part": "jobs", "figure": "occupations: paired t-test p", "below": 0.05}
    score = {"part": "jobs", "figure": "occupations: association score, man", "below": 0.5}
    file = _pairs_audit(tmp_path / "audit.yaml", [p_value, score], ["vlm"])
    code, out = call(capsys, "--store", ws, "audit", "check", str(file))
    assert code == 2, out
    (line,) = [x for x in out.splitlines() if "gate '" in x]
    gate = "gate 'jobs: occupations: paired t-test p below 0.05'"
    assert line.endswith(f"{gate}: the figure has no interval (a p-value)"), line
    _pairs_audit(file, [score], ["vlm"])
    code, out = call(capsys, "--store", ws, "audit", "check", str(file))
    assert code == 0, out


def test_every_output_quotes_each_rule_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The terminal's line, JUnit, the job summary, and the report's JSON (which the TUI's
    gate table reads), Markdown and HTML state ``below 95`` as the file says ``below: 95``."""
    ws, out_dir = str(tmp_path / "ws"), tmp_path / "rep"
    gates = [
        {"part": "pst-text", "figure": FIGURE, "below": 95},
        {"part": "pst-text", "figure": FIGURE, "not_above": 90, "name": "capped"},
        {"part": "pst-text", "figure": FIGURE, "within": [-5, 99.5], "name": "in a band"},
    ]
    written = ["below 95", "not_above 90", "within [−5, 99.5]"]
    file = _audit(tmp_path / "audit.yaml", gates)
    code, out = call(capsys, "--store", ws, "audit", "run", str(file), "--out", str(out_dir),
                     "--quiet")  # fmt: skip
    assert code in (0, 1), out
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    junit = tmp_path / "gates.xml"
    code, out = call(capsys, "--store", ws, "audit", "gate", str(file), "--junit", str(junit))
    report = json.loads((out_dir / "report.json").read_text())
    assert [g["rule"] for g in report["gates"]["gates"]] == written
    # The unnamed gate is named by its rule as written too.
    assert report["gates"]["gates"][0]["label"] == f"pst-text: {FIGURE} below 95"
    surfaces = {
        "terminal": out,
        "junit": junit.read_text(),
        "summary": summary.read_text(),
        "report.md": (out_dir / "report.md").read_text(),
        # The page read as its text: a rule's band sits in a span that keeps it on one line.
        "report.html": page_text((out_dir / "report.html").read_text()),
    }
    for where, text in surfaces.items():
        for rule in written:
            assert rule in text, (where, rule)
        # Never reworded: no "shown below", no "not above" for not_above.
        assert "shown " not in text and "not above" not in text, where
