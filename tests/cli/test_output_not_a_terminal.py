"""What a command prints where it is not a terminal (a log file in CI, a pipe): no line of
prose is broken inside its sentence at rich's 80-column fallback, and a table takes the width
its content needs, so no cell is cut."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.table import Table

from diptych.cli.console import SafeConsole
from tests.support.cli import call
from tests.support.sequential_audits import FIGURE, planted_audit
from tests.support.surfaces.text import cut_problems

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "audits" / "smollm2-offline.yaml"
MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
SENTENCE = " ".join(["a sentence that a log keeps on one line"] * 6)


def _wide_table() -> Table:
    table = Table("part", "models")
    table.add_row("pst-text", "identities: 1 round × 2, agent smollm2; " + "x" * 60)
    return table


def test_a_console_into_a_file_keeps_sentences_and_table_cells_whole(no_terminal: Path) -> None:
    out = io.StringIO()
    console = SafeConsole(file=out)
    console.print(SENTENCE)
    console.print(_wide_table())
    lines = out.getvalue().splitlines()
    assert lines[0] == SENTENCE  # 245 characters, one line
    assert any("agent smollm2; " + "x" * 60 in line for line in lines)


def test_a_width_asked_for_is_a_terminals(
    no_terminal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``COLUMNS=80`` into a file lays out as an 80-column terminal would."""
    monkeypatch.setenv("COLUMNS", "80")
    out = io.StringIO()
    console = SafeConsole(file=out)
    console.print(SENTENCE)
    console.print(_wide_table())
    lines = out.getvalue().splitlines()
    assert len(lines[0]) <= 80 and lines[0] != SENTENCE
    assert max(len(line.rstrip()) for line in lines) <= 80


def test_a_terminal_still_wraps_at_its_width() -> None:
    out = io.StringIO()
    SafeConsole(file=out, force_terminal=True, width=80, color_system=None).print(SENTENCE)
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 and max(len(line.rstrip()) for line in lines) <= 80


@pytest.mark.usefixtures("scripted_plugin")
def test_audit_run_into_a_log_breaks_no_sentence(
    no_terminal: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The run's lines are longer than 80 characters: each stays whole."""
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    file = planted_audit(no_terminal / "a.yaml", gates, MASC, FEM, name="ci-log", seed=2)
    ws = str(no_terminal / "ws")
    code, out = call(capsys, "--store", ws, "audit", "run", str(file), "--until-decided",
                     "--batches", "4", "--out", str(no_terminal / "rep"))  # fmt: skip
    assert code == 0, out
    assert re.search(
        r"^run pst-text-\w+ partial: its batch bought, 36 trials \(36 done\); 108 trials wait "
        r"for the gates' next look$",
        out,
        re.MULTILINE,
    ), out
    # Buying a decided part's rest with no terminal to ask on takes --yes.
    code, out = call(capsys, "--store", ws, "audit", "run", str(file), "--yes",
                     "--out", str(no_terminal / "rep"))  # fmt: skip
    assert code == 0, out
    assert re.search(
        r"^run pst-text-\w+: 144 trials planned, 36 already stored, 108 requests to run$",
        out,
        re.MULTILINE,
    ), out
    assert cut_problems(out) == [], out


@pytest.mark.usefixtures("scripted_plugin")
def test_run_into_a_log_prints_its_summary_and_notes_each_on_one_line(
    no_terminal: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lists = ["-p", "masculine=" + ",".join(MASC), "-p", "feminine=" + ",".join(FEM)]
    code, out = call(capsys, "--store", str(no_terminal / "ws"), "run", "pst-text", "-m",
                     "scripted-likelihood", "-p", "setting=paired", *lists)  # fmt: skip
    assert code == 0, out
    lines = out.splitlines()
    summary = next(line for line in lines if line.startswith("Stereotype Test Score (STS"))
    # Both paired figures fell to their floor over 6 × 6 identities: said of each, in full.
    assert summary.endswith(
        "its interval also over both identity lists where the identities varied more than their "
        "pairings did (the interval over draws alone, for these identities, is kept as "
        "scenes_only). The interval of STS paired (drawn labels) fell to its floor instead, "
        "resampling its 36 pairings of a masculine identity and a feminine identity, so it "
        "speaks for these identities only: the identities varied no more than the pairings did "
        "(had they varied more, the interval would be wider and speak for identities like these)."
    )
    floor = next(line for line in lines if line.startswith("† STS paired"))
    assert floor.endswith("the interval would be wider and speak for identities like these)")
    assert cut_problems(out) == [], out


def _running(requests: int, seconds_each: int) -> list[str]:
    """What a run of ``requests`` requests taking ``seconds_each`` apiece prints into a file,
    on a clock the test moves."""
    from diptych.cli.progress import RichReporter
    from diptych.core.workspace import RunRecord

    now = [0]
    out = io.StringIO()
    reporter = RichReporter(SafeConsole(file=out), clock=lambda: float(now[0]))
    run = RunRecord(id="pst-text-18101709", probe="pst-text", probe_version="1", params={},
                    models=[], fingerprint="", status="running", n_trials=requests,
                    diptych_version="", created_at=0.0, updated_at=0.0)  # fmt: skip
    reporter.run_started(run, requests, 0, requests)
    for _ in range(requests):
        now[0] += seconds_each
        reporter.trial_finished("smollm2", "done", None)
    reporter.stop()
    return out.getvalue().splitlines()


def test_progress_into_a_file_is_a_plain_line_at_each_tenth(no_terminal: Path) -> None:
    # 1,640 requests at 1 s each: a tenth every 164 s, so a line every 30 s between them
    # shows the log a slow run is alive.
    lines = _running(1640, 1)
    assert lines[0] == (
        "run pst-text-18101709: 1,640 trials planned, 0 already stored, 1,640 requests to run"
    )
    said = lines[1:]
    assert said[:6] == [
        "pst-text-18101709: 30 of 1,640 requests, 30 s",
        "pst-text-18101709: 60 of 1,640 requests, 1 min",
        "pst-text-18101709: 90 of 1,640 requests, 1 min",
        "pst-text-18101709: 120 of 1,640 requests, 2 min",
        "pst-text-18101709: 150 of 1,640 requests, 2 min",
        "pst-text-18101709: 164 of 1,640 requests, 2 min",
    ]
    assert said[-1] == "pst-text-18101709: 1,640 of 1,640 requests, 27 min"
    # Every tenth has its line, and no bar is drawn into the file.
    for tenth in range(1, 11):
        assert f"pst-text-18101709: {164 * tenth:,} of 1,640 requests, " in "\n".join(said)
    assert not any("━" in line for line in lines)


def test_a_fast_run_into_a_file_prints_ten_lines(no_terminal: Path) -> None:
    # Well under 30 s a tenth: one line each tenth, ten in all, the last at the end.
    said = _running(200, 0)[1:]
    assert said == [f"pst-text-18101709: {20 * k} of 200 requests, 0 s" for k in range(1, 11)]
