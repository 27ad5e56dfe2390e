"""The ``diptych`` commands of the README and the manual, as a reader copies them out of their
fenced blocks."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: A fence opens and closes a code block (``` or ~~~, indented under a list item or not).
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class DocCommand:
    """One command line of a fenced block: the page, its line, and the command as a reader
    would type it (a leading ``$`` prompt, a trailing ``# comment`` and line continuations
    taken off)."""

    page: str
    line: int
    text: str


def pages() -> list[Path]:
    """The README and every page of the manual."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _strip_comment(text: str) -> str:
    # A '#' that starts a word ends the command (the pages' own remarks); inside a quoted
    # figure name or a URL it is part of the command.
    quote = ""
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1].isspace()):
            return text[:i].rstrip()
    return text.rstrip()


def fenced_commands(page: Path) -> list[DocCommand]:
    """The page's ``diptych`` command lines inside fenced blocks, in order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    name = page.relative_to(ROOT).as_posix()
    out: list[DocCommand] = []
    inside = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            inside = not inside
            i += 1
            continue
        start = i
        text = line.strip()
        if inside:
            while text.endswith("\\") and i + 1 < len(lines):
                i += 1
                text = text[:-1].rstrip() + " " + lines[i].strip()
            text = text.removeprefix("$ ")
            if text.startswith("diptych "):
                out.append(DocCommand(name, start + 1, _strip_comment(text)))
        i += 1
    return out


def every_command() -> list[DocCommand]:
    return [c for page in pages() for c in fenced_commands(page)]
