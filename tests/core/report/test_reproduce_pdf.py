"""A reproduce command pasted from the PDF of a report runs whole: the page breaks a long
command into lines, each but the last ending in the shell's `` \\``, so the text a reader copies
(as ``pdftotext`` reads it, line breaks and all) is one command to the shell, not its first
line without ``--until-decided``."""

from __future__ import annotations

import asyncio
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from diptych.core.report.shell_lines import shell_lines
from diptych.core.workspace import Workspace
from tests.support.surfaces.reproduce import printed_commands

FIGURE = "STS paired (expected from P(he), P(she))"
#: A path long enough that the audit's command does not fit one printed line.
AUDIT_FILE = "audits/a-paired-stereotype-audit-of-the-scripted-likelihood-model.yaml"


def test_a_long_command_is_broken_between_words_with_an_option_beside_its_value() -> None:
    command = (
        "diptych --store diptych-workspace audit run examples/audits/smollm2-offline.yaml "
        "--until-decided --out reports/smollm2-offline-again"
    )
    assert shell_lines(command) == (
        "diptych --store diptych-workspace audit run \\\n"
        "  examples/audits/smollm2-offline.yaml --until-decided \\\n"
        "  --out reports/smollm2-offline-again"
    )
    assert shell_lines("diptych report r1 --out reproduced") == "diptych report r1 --out reproduced"


@pytest.mark.skipif(
    shutil.which("pdftotext") is None,
    reason="needs poppler's pdftotext: apt-get install poppler-utils (.ci/run installs it)",
)
def test_the_audit_command_pasted_from_the_pdf_is_the_whole_command(
    scripted: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from diptych.audit import run_audit

    monkeypatch.chdir(tmp_path)
    masc, fem = (
        ["carpenter", "driver", "farmer", "guard"],
        ["nurse", "editor", "secretary", "librarian"],
    )
    data = {
        "name": "decided",
        "seed": 1,
        "models": {"t": {"plugin": "scripted-likelihood"}},
        "probes": [{"probe": "pst-text", "models": ["t"],
                    "params": {"masculine": masc, "feminine": fem}}],
        "report": {"formats": ["md", "html", "pdf"]},
        "gates": [{"part": "pst-text", "figure": FIGURE, "below": 75, "name": "below 75"}],
    }  # fmt: skip
    Path(AUDIT_FILE).parent.mkdir()
    Path(AUDIT_FILE).write_text(yaml.safe_dump(data, sort_keys=False))
    with Workspace.open(tmp_path / "ws") as ws:
        asyncio.run(run_audit(ws, AUDIT_FILE, until_decided=True, out_dir="out"))
    md = (Path("out") / "report.md").read_text(encoding="utf-8")
    (command, *_) = printed_commands(md)
    words = shlex.split(command)
    # Named from the report's folder, where the commands run.
    assert words[words.index("audit") :][:3] == ["audit", "run", f"../{AUDIT_FILE}"]
    assert "--until-decided" in words and len(command) > 76
    text = subprocess.run(
        ["pdftotext", "-layout", "out/report.pdf", "-"], capture_output=True, text=True, check=True
    ).stdout
    block = text.split("How to reproduce this report", 1)[1]
    first = block.index("diptych ")
    lines = block[first:].splitlines()
    read = [lines[0]]
    while read[-1].rstrip().endswith("\\"):
        read.append(lines[len(read)])
    # As a shell reads it: each " \" and its line break one space.
    pasted = re.sub(r"\s*\\\n\s*", " ", "\n".join(line.strip() for line in read))
    assert pasted == command
