"""*Commands in detail* names every option the commands that buy and decide take (``audit
run``, ``resume``, ``audit gate``, ``audit list``), each in its command's own section: an
option ``--help`` lists and the page does not (``audit run --yes``) is one a reader of the
manual never learns."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import typer.main

PAGE = Path(__file__).parents[2] / "docs" / "cli" / "commands.md"
#: The commands whose every option the page names, by the heading of their section.
COMMANDS = ("audit run", "resume", "audit gate", "audit list")


def _section(page: str, heading: str) -> str:
    """The text under ``## heading`` (its ``###`` subsections included), up to the next
    ``##``."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", page, re.M | re.S)
    assert match is not None, f"no section '## {heading}'"
    return match.group(1)


def _options(words: str) -> list[str]:
    from diptych.cli.main import app

    # Typer's own click: its types are not the ``click`` package's.
    command: Any = typer.main.get_command(app)
    for word in words.split():
        found = command.get_command(command.context_class(command), word)
        assert found is not None, words
        command = found
    return [
        name
        for param in command.params
        if param.param_type_name == "option" and "--help" not in param.opts
        for name in (*param.opts, *param.secondary_opts)
    ]


def test_the_section_check_finds_an_option_left_out() -> None:
    page = "## audit run\n\n| `--out DIR` | the report |\n\n## audit gate\n"
    assert "--yes" not in _section(page, "audit run")
    assert "--out" in _section(page, "audit run")


@pytest.mark.parametrize("command", COMMANDS)
def test_each_option_is_named_in_its_commands_section(command: str) -> None:
    section = _section(PAGE.read_text(encoding="utf-8"), command)
    missing = [o for o in _options(command) if not re.search(rf"`{re.escape(o)}[` ]", section)]
    assert missing == [], f"diptych {command}: {missing} are not named in {PAGE.name}"
