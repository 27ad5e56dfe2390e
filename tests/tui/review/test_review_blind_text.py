"""Blind review of a likelihood text run: its prompt is hidden and its person is a pronoun the
model drew, so there is nothing to read blind. The screen says so in one line with what to do,
and refuses a label there with that line (nothing stored); the header keeps its count."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import SIZES, loaded, reviewing, wait_for
from surface import screen_lines

from diptych.core.store import open_store
from diptych.tui.app import DiptychApp
from diptych.tui.review.panels import ReviewCard
from diptych.tui.review.text import NOTHING_TO_READ_BLIND


def _one_line(lines: list[str]) -> str:
    return " ".join(" ".join(line.replace("│", " ") for line in lines).split())


@pytest.mark.parametrize("size", SIZES)
async def test_blind_review_of_a_likelihood_run_says_why_and_stores_nothing(
    snapshot_workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(3)(pilot)
        await pilot.press("down", "down", "r")  # the pst-text run
        review = await reviewing(pilot)
        run_id = review.run_id
        await pilot.press("u")  # everyone without a human label
        await wait_for(pilot, lambda: review.state.current() is not None, "a person")
        # One label given seeing the prompt: the header counts it, blind too.
        await pilot.press("m")
        await wait_for(pilot, lambda: review.state.labelled(review.annotator) == 1, "a label")
        await pilot.press("b")
        card = review.query_one(ReviewCard)
        await wait_for(pilot, lambda: NOTHING_TO_READ_BLIND in card.text.plain, "the card")
        # The picture pane (left of the card's border) says why, where the probabilities of
        # a pronoun drawn were.
        picture = _one_line([line.split("│")[0] for line in screen_lines(app) if "│" in line])
        assert "nothing to read blind" in picture and "next word" not in picture, picture
        title = str(review.query_one("#review-title").render())
        assert "BLIND" in title and "1 labelled" in title, title
        shown = _one_line(screen_lines(app))
        assert "BLIND" in shown and "1 labelled" in shown, shown

        current = review.state.current()
        assert current is not None
        for key in ("m", "f", "c"):
            before = len(review.said)
            await pilot.press(key)
            await wait_for(pilot, lambda: len(review.said) > before, "the refusal")  # noqa: B023
            assert review.said[-1].message == NOTHING_TO_READ_BLIND
        # Said whole on the screen's own line, at this size too.
        said = _one_line([line for line in screen_lines(app) if "│" not in line])
        assert NOTHING_TO_READ_BLIND in said, said
        # Nothing stored, nothing counted, and the reviewer is still on the same person.
        assert review.state.current() is current
        assert review.state.labelled(review.annotator) == 1
    with open_store(snapshot_workspace) as store:
        assert len(store.labels(run_id, "human:newcomer")) == 1
