"""The CLI called in-process, as the CLI tests call it."""

from __future__ import annotations

import io

import pytest
from typer.testing import CliRunner, Result

from diptych.cli.main import app, main


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """``diptych ARGS`` in this process: its exit code and what it printed (stdout, stderr)."""
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out + err


def cli(*args: str) -> Result:
    """``diptych ARGS`` through Typer's runner, its output captured in the result."""
    # A wide terminal so that rich does not elide table cells the tests read.
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


class Terminal(io.StringIO):
    """Standard input that says it is a terminal, so the CLI asks its questions."""

    def isatty(self) -> bool:
        return True
