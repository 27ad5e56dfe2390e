"""The figure and count checks every surface test runs (``surface_text.figures_and_counts``)
read the screen as a user does, widget by widget, a text's rows joined where the widget
wrapped them between words: "2" ending a wrapped row and "run" starting the next read "2 run"
(flagged), a count ending one line and a line starting "run …" below it do not (two lines, as
a text broken there says them), nor a count in one widget and a noun in the one under it; a
level wrapped from its noun ("95%" over "interval") is the level it is, a share drawn whole
("21%") is flagged."""

from __future__ import annotations

import pytest
from surface_text import count_words, figures_and_counts, read_screen, whole_percents
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tests.support.surfaces.lines import read_lines
from tests.support.surfaces.text import printed_problems

pytestmark = pytest.mark.surface

#: 24 characters a row: the texts below wrap where their next word does not fit.
WIDTH = 24


class Texts(App[None]):
    CSS = f"Static {{ width: {WIDTH}; height: auto; }}"

    def __init__(self, *texts: str) -> None:
        super().__init__()
        self.texts = texts

    def compose(self) -> ComposeResult:
        with Vertical():
            yield from (Static(t) for t in self.texts)


async def _read(*texts: str) -> tuple[list[tuple[str, str]], list[str], list[str]]:
    app = Texts(*texts)
    async with app.run_test(size=(40, 8)) as pilot:
        await pilot.pause()
        return read_screen(app), count_words(app), whole_percents(app)


async def test_a_count_wrapped_from_its_noun_is_read_as_one_phrase() -> None:
    # "the audit bought 2" fills its row; "runs" would not fit on it, so it wraps.
    lines, counted, _ = await _read("the audit once bought 2 run here")
    assert ("Static", "the audit once bought 2 run here") in lines, lines
    assert len(counted) == 1 and "'2 run'" in counted[0], counted


async def test_a_count_ending_a_line_the_text_broke_is_not_read_with_the_next() -> None:
    _, counted, _ = await _read("failed 0\nrun pst-text-1 decided")
    assert counted == []
    # Nor with the widget under it.
    _, counted, _ = await _read("failed 0", "run pst-text-1")
    assert counted == []
    # The same words on one line are flagged.
    _, counted, _ = await _read("failed 0 run pst-text-1")
    assert len(counted) == 1, counted


async def test_a_level_wrapped_from_its_noun_is_a_level_and_a_whole_share_is_flagged() -> None:
    _, _, percents = await _read("the gates were read at 95% interval")
    assert percents == []
    _, _, percents = await _read("progress 21% of design")
    assert len(percents) == 1 and "'21%'" in percents[0], percents


async def test_the_checks_together_find_nothing_on_a_text_by_the_rules() -> None:
    app = Texts("2 runs, 1 run; 21.7% of the design; ±11.0", "failed 0\nrun pst-text-1")
    async with app.run_test(size=(40, 8)) as pilot:
        await pilot.pause()
        assert figures_and_counts(app) == []


def test_printed_text_is_read_on_the_lines_a_terminal_shows() -> None:
    # A hard break: two lines, nothing flagged.
    assert printed_problems("trials: done 4, failed 0\nrun pst-text-1 is decided") == []
    # The same line, wrapped by a console 26 wide: "0 run" read as one phrase and flagged.
    wrapped = "trials: done 4, failed 0\nrun pst-text-1 is decided"
    assert len(printed_problems(wrapped, width=26)) == 1
    assert read_lines(wrapped.splitlines(), 26) == [
        "trials: done 4, failed 0 run pst-text-1 is decided"
    ]
    # On one line it is flagged whatever the width.
    assert len(printed_problems("trials: done 4, failed 0 run pst-text-1")) == 1
