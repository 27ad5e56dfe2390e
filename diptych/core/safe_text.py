"""Text from files and models, made safe to show on a terminal.

A name read from a labels CSV, a corpus, an audit file or a model's answer may hold terminal
control characters: ``ESC [ 2 J`` clears the screen, ``ESC ] ...`` sets the window title, a
carriage return rewrites the line an auditor is reading. Every front end shows such text
through :func:`escape_controls`, which writes each control character as a visible escape
(``\\x1b``) and keeps everything else as it is.
"""

from __future__ import annotations

import re

#: C0 controls but tab and line feed, DEL, C1 controls, and the Unicode bidirectional
#: overrides and isolates (which reorder what a reader sees without changing the bytes).
CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """``text`` with every control character written as ``\\xNN`` (``\\uNNNN`` above 255)."""
    if not CONTROL_CHARACTERS.search(text):
        return text
    return CONTROL_CHARACTERS.sub(_escaped, text)


def has_controls(text: str) -> bool:
    """Whether ``text`` holds a character :func:`escape_controls` would escape."""
    return CONTROL_CHARACTERS.search(text) is not None
