"""What an audit's report offers as itself again: only the command that runs the audit file.
The runs' own report (``diptych report RUN``), which leaves out what the audit adds, is named as
another report in a sentence of its own, and works as printed from the report's directory."""

from __future__ import annotations

import json
import re
import shlex
from html import unescape
from pathlib import Path

import pytest

from diptych.core.report.audit import Audit
from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit
from tests.support.surfaces.reproduce import offer_problems, offered_commands, shell_read

pytestmark = pytest.mark.usefixtures("scripted_plugin")

#: The section as an audit's report printed it before: the runs' own report offered as this one.
_OFFERED_AS_ITSELF = """### How to reproduce this report

Audit file `a` (record `a-0`, sha256 `0`).

The audit again, from the directory this report is in: it reads every answer the audit stored.

```
diptych --store ../ws audit run ../a.yaml --out reproduced-audit
```

This report again, from the same runs, written to `reproduced/`:

```
diptych --store ../ws report pst-text-0 --out reproduced
```
"""


def test_the_check_finds_a_runs_report_offered_as_the_audits() -> None:
    assert offer_problems(_OFFERED_AS_ITSELF) == [
        "`diptych --store ../ws report pst-text-0 --out reproduced` is offered as this "
        "audit's report again but does not run the audit"
    ]
    # Named for what it is, the same command passes.
    named = _OFFERED_AS_ITSELF.replace("The audit again", "This report again").replace(
        "This report again, from the same runs", "Not this report, but its runs' own"
    )
    assert offer_problems(named) == []


def _html_leads(page: str) -> list[tuple[str, ...]]:
    """Each command of the HTML's reproduce section with the paragraph just above it."""
    section = page.split('id="methods-reproduce"', 1)[1].split("<h3", 1)[0]
    pairs = re.findall(
        r"<p>((?:(?!<p>).)*?)</p>\s*<pre[^>]*><code>(.*?)</code></pre>", section, re.DOTALL
    )
    return [tuple(unescape(re.sub(r"<[^>]+>", "", s)) for s in pair) for pair in pairs]


def test_an_audits_report_offers_only_its_audit_command_and_names_the_runs_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    gate = {"part": "pst-text", "figure": FIGURE, "below": 95}
    planted_audit(tmp_path / "a.yaml", [gate], MASC, FEM, name="kept", seed=3,
                  report={"formats": ["json", "md", "html"]})  # fmt: skip
    code, out = call(capsys, "--store", "ws", "audit", "run", "a.yaml", "--out", "first")
    assert code == 0, out
    report = tmp_path / "first"
    markdown = (report / "report.md").read_text(encoding="utf-8")
    assert offer_problems(markdown) == []
    offered = offered_commands(markdown)
    assert [c for lead, c in offered if lead.startswith("This report again")] == [
        "diptych --store ../ws audit run ../a.yaml --out reproduced-audit"
    ]
    (runs_lead,) = [lead for lead, c in offered if " report " in c]
    assert runs_lead.startswith("Not this report, but its runs' own")
    # It names the audit whose gates it keeps: a later audit of the same runs changes nothing.
    audit_id = json.loads((report / "report.json").read_text())["scope"]["audit_id"]
    (runs_command,) = [c for _, c in offered if " report " in c]
    assert f" --audit {audit_id} --out reproduced" in runs_command
    assert "; any gates it shows are this audit's. Written to" in runs_lead
    assert "label policy, frameworks, formats" in runs_lead
    # The page says the same of the same two commands.
    html = _html_leads((report / "report.html").read_text(encoding="utf-8"))
    # Its commands as a shell reads them: a long one is printed in continued lines.
    assert [(lead.split(":")[0], "\n".join(shell_read(c))) for lead, c in html] == [
        (lead.split(":")[0], c) for lead, c in offered
    ]

    # Each works as printed from the report's directory, into a folder of its own.
    run_ids = {r["run"] for r in json.loads((report / "report.json").read_text())["runs"]}
    monkeypatch.chdir(report)
    for _, command in offered:
        words = shlex.split(command)
        code, out = call(capsys, *words[1:])
        assert code in (0, 1), out
        written = report / words[words.index("--out") + 1] / "report.json"
        assert {r["run"] for r in json.loads(written.read_text())["runs"]} == run_ids


def test_the_runs_report_is_said_to_leave_out_the_findings_of_the_audits_searches() -> None:
    def words(*kinds: str) -> str:
        scope = {"parts": [{"name": k, "kind": k} for k in kinds]}
        return Audit([], [], "", "", [], [], scope=scope).runs_report_words

    assert "agent findings of the audit's searches" in words("probe", "search")
    assert "agent findings" not in words("probe")
