"""A reproduce command as the report prints it: in lines a printed page holds whole, each but
the last ending in the shell's `` \\`` continuation, so that the command pasted from a PDF (whose
text keeps the page's line breaks) runs as one command, not its first line alone."""

from __future__ import annotations

import re

#: How many characters a printed line of a command holds: a ``<pre>`` of the A4 page at 9 pt
#: holds about 90; fewer leave room for the continuation and a narrower printer's margins.
WIDTH = 76
#: The continuation a shell reads as "the command goes on on the next line".
CONTINUED = " \\"
#: A command's words: runs of characters outside quotes and quoted strings, which a break
#: must never part (a quoted value with a space in it is one word to the shell).
_WORD = re.compile(r"""(?:[^\s'"]+|'[^']*'|"(?:[^"\\]|\\.)*")+""")


def shell_lines(command: str, width: int = WIDTH) -> str:
    """``command`` broken between its words into lines of at most ``width`` characters (a
    word longer than that on a line of its own), each but the last ending in `` \\``; an
    option is kept on the line of the value after it. A command that fits is left as it is."""
    if len(command) <= width or "\n" in command:
        return command
    words = _WORD.findall(command)
    lines: list[list[str]] = [[]]
    for word in words:
        line = lines[-1]
        if line and len(" ".join([*line, word])) + len(CONTINUED) > width:
            # An option goes down with its value rather than end a line alone.
            carried = [line.pop()] if len(line) > 1 and line[-1].startswith("-") else []
            lines.append(carried)
            line = lines[-1]
        line.append(word)
    # Lines after the first indented, as a shell script sets out a long command.
    return (CONTINUED + "\n  ").join(" ".join(line) for line in lines if line)
