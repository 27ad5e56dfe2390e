"""A help text's square brackets are printed as written: typer's help is Rich markup, in which
"[html,md]" reads as a style tag and vanished ("a list as html,md or ).")."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer

from diptych.cli.main import app, main

#: What Rich's markup takes for a tag (rich.markup.RE_TAGS): "[" then a lower-case letter, "#",
#: "/" or "@", up to the next "]"; "\[" is the escape that prints a bracket.
TAG = re.compile(r"(?<!\\)\[[a-z#/@][^\[]*?\]")


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


def _texts(command: Any) -> list[str]:
    texts = [command.help, command.epilog]
    texts += [getattr(param, "help", None) for param in command.params]
    return [t for t in texts if t]


COMMANDS = list(_commands(typer.main.get_command(app)))
BRACKETED = [(path, c) for path, c in COMMANDS if any("[" in t for t in _texts(c))]


def _help(capsys: pytest.CaptureFixture[str], path: tuple[str, ...]) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main([*path, "--help"])
    out = capsys.readouterr().out
    assert not exit_info.value.code, out
    # Read across the panel's wrapped lines: its borders out, its spaces as one.
    return " ".join(out.replace("│", " ").split())


def _unescaped(text: str) -> str:
    return " ".join(text.replace("\\[", "[").split())


def test_the_walk_finds_the_bracketed_help() -> None:
    assert ("audit", "run") in {path for path, _ in BRACKETED}


def test_set_help_shows_its_list_in_brackets(capsys: pytest.CaptureFixture[str]) -> None:
    shown = _help(capsys, ("audit", "run"))
    assert "a list as html,md or [html,md])." in shown, shown


@pytest.mark.parametrize("path", [p for p, _ in BRACKETED], ids=" ".join)
def test_every_bracket_in_help_is_printed(
    capsys: pytest.CaptureFixture[str], path: tuple[str, ...]
) -> None:
    command = dict(COMMANDS)[path]
    shown = _help(capsys, path)
    for text in _texts(command):
        # Every bracket Rich would take as a tag is escaped, and printed as written.
        assert TAG.findall(text) == [], (path, text)
        for written in re.findall(r"\\?\[[^\]]*\]", text):
            assert _unescaped(written) in shown, (path, written, shown)
