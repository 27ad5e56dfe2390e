"""A key pressed while ``diptych tui`` starts opened Help: textual-image's question to the
terminal gave up on that key, and the terminal's late answer reached the app as keys."""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Iterator

import pytest

from diptych.cli.tui_cmd import drop_early_input

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")

#: What a user's n and a terminal's answer to "which device are you" (DA1) leave in its input:
#: Textual would read the answer as the keys [ ? 6 2 ; 4 c, and ? opens Help.
PENDING = b"n\x1b[?62;4c"


@pytest.fixture
def terminal() -> Iterator[tuple[int, int]]:
    import pty

    master, slave = pty.openpty()
    yield master, slave
    os.close(master)
    os.close(slave)


def test_pending_input_dropped_before_the_app(terminal: tuple[int, int]) -> None:
    master, slave = terminal
    os.write(master, PENDING)
    assert drop_early_input(slave) == PENDING
    ready, _, _ = select.select([slave], [], [], 0)
    assert ready == []


def test_terminal_mode_kept(terminal: tuple[int, int]) -> None:
    import termios

    _, slave = terminal
    before = termios.tcgetattr(slave)
    assert drop_early_input(slave) == b""
    assert termios.tcgetattr(slave) == before


def test_not_a_terminal_left_alone() -> None:
    read, write = os.pipe()
    try:
        os.write(write, b"n")
        assert drop_early_input(read) == b""
        assert os.read(read, 1) == b"n"
    finally:
        os.close(read)
        os.close(write)
