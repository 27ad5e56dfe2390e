"""The Review screen's title names the reviewer in the same plain words in every state: with
the unlabelled people added (``u``) or not, a reason chosen or not, blind or not, at any width,
and in the measurement mode; never as the stored annotator id (``human:nc``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hosts import Host, MeasureHost
from steps import SIZES, queued, settle, shown, wait_for
from textual.widgets import Static

from diptych.tui.review.panels import PHRASE_BREAK, title_text


def naming(title: str, name: str) -> list[str]:
    """The title's phrases (parted by a break, or by a line's end where it wraps) that name
    the reviewer ``name``."""
    phrases = title.replace("\n", PHRASE_BREAK).split(PHRASE_BREAK)
    return [p for p in phrases if name in p.split()[-1]]


@pytest.mark.parametrize("include_unlabelled", [False, True])
@pytest.mark.parametrize("reason", [None, "no_human_label"])
@pytest.mark.parametrize("blind", [False, True])
def test_every_state_and_width_names_the_reviewer_alike(
    include_unlabelled: bool, reason: str | None, blind: bool
) -> None:
    for width in [None, *range(10, 140)]:
        title = title_text("pst-text-18101709", list(range(1720)), 3, labelled=12,
                           include_unlabelled=include_unlabelled, reason=reason,
                           annotator="human:nc", blind=blind, width=width)  # fmt: skip
        assert naming(title, "nc") == ["reviewer nc"], (width, title)
        assert "human:" not in title, (width, title)


def title_of(app: Host | MeasureHost) -> str:
    return str(app.screen.query_one("#review-title", Static).render())


@pytest.mark.parametrize("size", SIZES)
async def test_the_title_names_the_reviewer_alike_before_and_after_u(
    review_run: tuple[Path, str], size: tuple[int, int]
) -> None:
    ws, run_id = review_run
    app = Host(ws, run_id, reviewer="nc")
    async with app.run_test(size=size) as pilot:
        review = app.review
        await queued(pilot, review)
        await settle(pilot)
        before = title_of(app)
        assert "+unlabelled" not in before
        await pilot.press("u")
        await wait_for(pilot, lambda: "+unlabelled" in title_of(app), "u taken", lambda: shown(app))
        await queued(pilot, review)
        await settle(pilot)
        after = title_of(app)
        for title in (before, after):
            assert naming(title, "nc") == ["reviewer nc"], title
            assert "human:" not in title, title


@pytest.mark.parametrize("size", SIZES)
async def test_the_measurement_title_names_the_reviewer_alike(
    scripted_run: tuple[Path, str], size: tuple[int, int]
) -> None:
    ws, run_id = scripted_run
    app = MeasureHost(ws, run_id)
    async with app.run_test(size=size) as pilot:
        measure = app.measure
        await wait_for(pilot, lambda: measure.draw is not None and "drawn" in title_of(app))
        title = title_of(app)
        assert naming(title, "ana") == ["reviewer ana"], title
        assert "human:" not in title, title
