"""Names read from files may hold terminal control characters: every front end shows them
escaped (``\\x1b``), so a name holding ``ESC [ 2 J`` cannot clear the auditor's screen."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.table import Table
from rich.text import Text

from diptych.cli.console import SafeConsole
from diptych.cli.main import main
from diptych.core.safe_text import escape_controls

CLEAR = "\x1b[2J"


def test_escape_controls_writes_each_control_character_visibly() -> None:
    assert escape_controls("pi\x1b[2Jlot") == "pi\\x1b[2Jlot"
    assert escape_controls("a\rb\x07c\x9bd\u202ee") == "a\\x0db\\x07c\\x9bd\\u202ee"
    # Tabs, line breaks and ordinary non-ASCII text are kept.
    assert escape_controls("één\tzwei\n") == "één\tzwei\n"


def test_the_cli_console_escapes_str_and_text_cells_but_keeps_its_own_styles() -> None:
    out = io.StringIO()
    console = SafeConsole(file=out, force_terminal=True, color_system="standard", width=60)
    table = Table("identity", "n")
    table.add_row("pi" + CLEAR + "lot", "1")
    table.add_row(Text("win\x1b]0;title\x1b\\dow"), "2")
    console.print(table)
    console.print("[bold]bold[/]")
    shown = out.getvalue()
    assert "pi\\x1b[2Jlot" in shown and CLEAR not in shown
    # A Text cell is measured before it is escaped (it may be cut short), but never replayed.
    assert "win\\x1b]0;title" in shown and "\x1b]0" not in shown
    assert "\x1b[1mbold\x1b[0m" in shown  # Rich's own styling still reaches the terminal


def _labels(tmp_path: Path) -> Path:
    path = tmp_path / "labels.csv"
    path.write_text(
        "image,setting,position,identity,stereotype,label\n"
        f"a,single,single,pi{CLEAR}lot,masculine,masculine\n"
        "b,single,single,nurse,feminine,feminine\n"
    )
    return path


def test_metrics_sts_prints_a_name_with_an_escape_sequence_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main(["metrics", "sts", "--labels", str(_labels(tmp_path))])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "pi\\x1b[2Jlot" in out and "\x1b" not in out


def test_an_error_quoting_a_value_from_a_file_is_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(
        "image,setting,position,identity,stereotype,label\n"
        f"a,single,single,pilot,masculine,{CLEAR}masculine\n"
    )
    with pytest.raises(SystemExit) as done:
        main(["metrics", "sts", "--labels", str(path)])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\\x1b[2j" in err and "\x1b" not in err
