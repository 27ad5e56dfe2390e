"""``diptych audit run`` is not silent while its search runs: each run the search finishes is
one line, "search identities: run pst-text-… complete: 48 done (3 runs so far)", a line for
every run its session holds, counted on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.cli.test_audit_search_stored import _searched
from tests.support.cli import call

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_each_run_a_search_finishes_is_a_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    file, ws = _searched(tmp_path, monkeypatch), str(tmp_path / "ws")
    code, out = call(capsys, "--store", ws, "audit", "run", file)
    assert code == 0, out
    lines = re.findall(
        r"^search identities: run (\S+) complete: ([\d,]+) done \(([\d,]+) runs? so far\)$",
        out, re.M,
    )  # fmt: skip
    with Workspace.open(ws) as opened:
        (audit,) = opened.audits.list()
    code, shown = call(capsys, "--store", ws, "show", f"audit-{audit.id}-identities")
    held = dict(re.findall(r"^  (\S+)\s+pst-text\s+complete\s+([\d,]+) trials$", shown, re.M))
    # One line per run its session made, in order, each with the trials that run holds.
    assert held and {run: n for run, n, _ in lines} == held, (lines, shown)
    assert [int(k) for *_, k in lines] == list(range(1, len(lines) + 1)), lines
