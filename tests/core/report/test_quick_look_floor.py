"""A quick look whose interval fell to its floor rests on the pairings of its identities: its
words count them as the figure's ``resamples`` does ("4 pairings"), with the identities a side
that make it a quick look — one unit language in ``diptych show``, the report and the terminal
app."""

from __future__ import annotations

from diptych.core.metrics.uncertainty.resampling import floor_words
from diptych.core.report.formatting import resampled_count
from diptych.core.report.quick_look import quick_look

UNITS = {"masculine identity": 2, "feminine identity": 2}
FIGURE = {"value": 0.63, "ci_low": 0.07, "ci_high": 1.2, "n": 16, "units": UNITS}


def test_a_floored_quick_look_counts_the_pairings_its_figure_resamples() -> None:
    floored = {**FIGURE, "floor": floor_words(4, "masculine identity", "feminine identity")}
    assert resampled_count(floored) == "4 pairings"
    assert quick_look(floored) == (
        "its interval rests on 4 pairings of 2 identities a side, too few to decide anything; "
        "a finding needs at least 4 a side"
    )


def test_an_interval_over_the_lists_counts_the_identities() -> None:
    assert resampled_count(FIGURE) == "2 + 2 identities"
    assert quick_look(FIGURE) == (
        "its interval rests on 2 identities a side, too few to decide anything; a finding needs "
        "at least 4 a side"
    )


def test_a_narrow_panes_floor_mark_counts_the_pairings_it_resampled() -> None:
    """The terminal app's one-line note under its figures says what a † interval rests on, in
    the floor's own count, where a figure's reader has no room for the whole sentence."""
    from diptych.tui.formatting import narrow_floor_note

    floored = {**FIGURE, "floor": floor_words(142, "masculine identity", "feminine identity")}
    assert narrow_floor_note({"a": floored, "b": FIGURE}) == (
        "† rests on 142 pairings only: these identities"
    )
    # Two floored figures of different counts: their pairings, uncounted.
    other = {**FIGURE, "floor": floor_words(9, "masculine identity", "feminine identity")}
    assert narrow_floor_note({"a": floored, "b": other}) == (
        "† rests on their pairings only: these identities"
    )
