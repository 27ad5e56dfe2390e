"""No command's table breaks a word or an id inside itself on a narrow terminal: at 60 and 80
columns every token printed (between spaces and rules) is one the command prints whole on a
wide terminal, and no line is longer than the terminal (which would wrap it anywhere). A run
id, a probe's or a model's name is what a user copies into the next command."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
import yaml
from rich.cells import cell_len

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import FIGURE, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
#: Spaces and the rules rich draws between and under cells.
_BETWEEN = re.compile(r"[\s─━│┃┆┡┩┏┓┗┛┣┫╇╈╋┳┻┼┬┴├┤╭╮╰╯═║╔╗╚╝]+")
#: The widest terminal of a command's narrow layout, and one past any layout's switch.
_WHOLE = (119, 400)


def _tokens(text: str) -> set[str]:
    return {t for t in _BETWEEN.split(text) if t}


def _printed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, width: int, *args: str
) -> str:
    monkeypatch.setenv("COLUMNS", str(width))
    code, out = call(capsys, *args)
    assert code == 0, out
    return out


def _broken(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str
) -> list[str]:
    """What ``diptych ARGS`` breaks at 60 and 80 columns: each token not printed whole at a
    wide terminal, and each line longer than the terminal."""
    whole = set().union(*(_tokens(_printed(capsys, monkeypatch, w, *args)) for w in _WHOLE))
    faults = []
    for width in (60, 80):
        out = _printed(capsys, monkeypatch, width, *args)
        faults += [f"{width}: {t!r} broken" for t in sorted(_tokens(out) - whole)]
        faults += [f"{width}: too long {line!r}" for line in out.splitlines()
                   if cell_len(line) > width]  # fmt: skip
    return faults


def test_no_table_breaks_a_word_at_60_or_80_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # An audit bought until decided (a run whose status is a long sentence, an audit to list),
    # another model on its design (standings of two models) and an agent session's run.
    file = planted_audit(tmp_path / "a.yaml", [{"part": "pst-text", "figure": FIGURE,
                         "below": 95}], MASC, FEM, name="narrow-tables", seed=2)  # fmt: skip
    ws = str(tmp_path / "ws")
    code, out = call(capsys, "--store", ws, "audit", "run", str(file), "--until-decided",
                     "--batches", "4", "--out", str(tmp_path / "rep"), "--quiet")  # fmt: skip
    assert code == 0, out
    design = yaml.safe_load(file.read_text())["probes"][0]["params"]
    with Workspace.open(Path(ws)) as opened:
        opened.runs.run_sync("pst-text", [("scripted-likelihood", {"noise": 0.1})], params=design)
        with opened.runs.made_by("id-narrow01"):
            opened.runs.run_sync("pst-text", ["scripted-likelihood"], params={"setting": "single"})
    code, out = call(capsys, "--store", ws, "runs", "--json")
    runs = json.loads(out)
    assert any("requests" in r["status_text"] for r in runs), runs
    faults = []
    for args in (
        ["runs"],
        ["runs", "--all"],
        ["show", runs[0]["id"]],
        ["standings"],
        ["audit", "list"],
        ["plugins"],
    ):
        faults += [f"{' '.join(args)} at {f}" for f in _broken(capsys, monkeypatch, "--store",
                                                                ws, *args)]  # fmt: skip
    assert not faults, "\n".join(faults)


def test_a_table_printed_again_is_fitted_to_the_new_width() -> None:
    from rich.table import Table

    from diptych.cli.console import SafeConsole

    table = Table("run", "status")
    status = "decided at look 1 of 10: 164 of 1,640 requests, 1,476 saved"
    table.add_row("pst-text-0663f62e", status)
    printed = {}
    for width in (50, 120):
        console = SafeConsole(width=width, file=io.StringIO())
        console.print(table)
        printed[width] = console.file.getvalue()  # type: ignore[attr-defined]
    # At 50 the status wraps between its words; at 120 the same table is one row again.
    assert "pst-text-0663f62e" in printed[50] and "1,476 saved" in printed[50]
    assert all(len(line) <= 50 for line in printed[50].splitlines())
    [row] = [line for line in printed[120].splitlines() if "pst-text" in line]
    assert status in row
