"""Help text is plain words: no command's --help shows the reST markup of the docstring it was
written from (double backticks, ":func:"-style roles)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer

from diptych.cli.main import app, main

#: reST markup as a docstring writes it: a literal's double backticks, a role (":func:`x`").
MARKUP = re.compile(r"``|:(?:func|mod|class|meth|attr|data|obj|exc):")


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


COMMANDS = list(_commands(typer.main.get_command(app)))


def _help(capsys: pytest.CaptureFixture[str], path: tuple[str, ...]) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main([*path, "--help"])
    out = capsys.readouterr().out
    assert not exit_info.value.code, out
    return out


def test_the_walk_finds_every_level() -> None:
    paths = {path for path, _ in COMMANDS}
    assert {(), ("audit",), ("audit", "check"), ("audit", "run")} <= paths
    assert len(paths) > 20


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "diptych")
def test_help_shows_no_rest_markup(
    capsys: pytest.CaptureFixture[str], path: tuple[str, ...]
) -> None:
    command = dict(COMMANDS)[path]
    shown = _help(capsys, path)
    assert MARKUP.findall(shown) == [], (path, shown)
    # What a short summary in the parent's list shows, too.
    for text in (command.help, command.short_help, command.epilog):
        if text:
            assert MARKUP.findall(text.split("\f", 1)[0]) == [], (path, text)
    for param in command.params:
        assert MARKUP.findall(getattr(param, "help", None) or "") == [], (path, param.name)
