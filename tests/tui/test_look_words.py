"""A sequential audit's look reads "look 1 of 10" on every screen at every size, as the CLI
and the report write it: a narrow pane names an interval in fewer words, never the look."""

from __future__ import annotations

from surface_text import looks_in_other_words
from textual.app import App, ComposeResult
from textual.widgets import Static

from diptych.core.audit.sequential import look_text, status_at
from diptych.tui.formatting import short_name


class Shows(App[None]):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield Static(self.text)


def test_a_narrow_panes_interval_names_its_look_in_the_one_wording() -> None:
    assert short_name("95% anytime-valid interval, look 1 of 10") == (
        "95% anytime-valid, look 1 of 10"
    )
    assert short_name("fixed-design; does not hold after the stop at look 7 of 10") == (
        "fixed-design, not after stop at look 7 of 10"
    )
    # A look that read the whole design keeps its words whole, with no "of 10" to mislead.
    whole = look_text(2, 10, complete=True)
    assert whole == "the whole design read at look 2" and "of" not in whole.split()
    assert short_name(f"95% anytime-valid interval, {whole}") == f"95% anytime-valid, {whole}"
    assert status_at("complete", whole) == "complete: the whole design read at look 2"
    assert status_at("decided", look_text(1, 10)) == "decided at look 1 of 10"
    # The design's last batch is its whole design already: its look is named as any other.
    assert look_text(10, 10, complete=True) == "look 10 of 10"


async def test_a_look_written_in_other_words_is_found() -> None:
    async with Shows("(95% anytime-valid, look 1/10) n=160").run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        assert any("'look 1/'" in f for f in looks_in_other_words(pilot.app))
    async with Shows("(95% anytime-valid, look 1 of 10) n=160").run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        assert looks_in_other_words(pilot.app) == []
    async with Shows("complete at look 2 of 10: the whole design").run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        assert any("the whole design" in f for f in looks_in_other_words(pilot.app))


def test_a_stopped_name_of_many_intervals_is_shortened_as_one_is() -> None:
    assert short_name("fixed-design; do not hold after the stop at look 7 of 10") == (
        "fixed-design, not after stop at look 7 of 10"
    )
