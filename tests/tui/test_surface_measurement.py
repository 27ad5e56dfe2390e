"""The Review screen's measurement mode at 80×24 and 60×20, read as a user reads it: the
measured figure and its interval whole, the keys of the dimension measured in the footer and on
the card, every key doing something or saying why (the Review screen itself:
``test_surface_review.py``; the two run side by side under pytest-xdist).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hosts import MeasureHost, truth_of
from steps import SIZES, settle, shown, surface, wait_for
from surface import cut_fields, cut_values, unlabelled_values
from surface_controls import state_by_colour
from surface_keys import cut_footer_keys

pytestmark = pytest.mark.surface


@pytest.mark.parametrize("size", SIZES)
async def test_measurement_mode(scripted_run: tuple[Path, str], size: tuple[int, int]) -> None:
    ws, run_id = scripted_run
    app = MeasureHost(ws, run_id)
    async with app.run_test(size=size) as pilot:
        measure = app.measure
        # The draw and its queue come in two messages: both, before the first label.
        await wait_for(
            pilot,
            lambda: measure.draw is not None and measure.state.current() is not None,
            "the draw's first person",
        )
        for k in range(12):
            item = measure.state.current()
            assert item is not None
            await pilot.press("m" if truth_of(item) == "masculine" else "f")
            # The label taken and the next person served, however long the key took.
            await wait_for(
                pilot,
                lambda: (
                    measure.state.current() is None
                    or measure.state.current().subject_id != item.subject_id  # noqa: B023
                ),
                f"the person after label {k + 1}",
            )
        await wait_for(
            pilot,
            lambda: measure.status is not None and measure.status.n_labelled == 12,
            "the figure after 12 labels",
        )
        await settle(pilot)
        # The measured figure's value and interval, whole (the panel beside the image).
        assert cut_values(app) + cut_footer_keys(app) + cut_fields(app) == [], shown(app)
        assert await state_by_colour(pilot) == []


@pytest.mark.parametrize("size", SIZES)
async def test_measurement_mode_keys_in_each_dimension(
    scripted_run: tuple[Path, str], size: tuple[int, int]
) -> None:
    """The measurement mode, measuring perceived gender and then skin tone (``t``): the footer
    shows the keys of the dimension measured (the digits for a tone, never m/f), the card's
    "label:" line names the same keys, and every key of the footer does something or says why
    (at the draw's first person, ← among them); the half-width typed (``w``) keeps its label."""
    from diptych.core.labels import TONE
    from diptych.tui.review.panels import ReviewCard

    ws, run_id = scripted_run
    for dimension in ("gender", "tone"):
        app = MeasureHost(ws, run_id)
        async with app.run_test(size=size) as pilot:
            measure = app.measure
            await wait_for(
                pilot,
                lambda: measure.draw is not None and measure.state.current() is not None,  # noqa: B023
                "the draw's first person",
            )
            if dimension == "tone":
                await pilot.press("t")
                await wait_for(
                    pilot,
                    lambda: measure.target is not None and measure.target.dimension == TONE,  # noqa: B023
                    "the tone's draw",
                )
                await wait_for(pilot, lambda: measure.state.current() is not None, "a person")  # noqa: B023
            await settle(pilot)
            footer = shown(app).splitlines()[-1]
            card = measure.query_one(ReviewCard).text.plain
            if dimension == "tone":
                assert "masc" not in footer and "1–9,0 tone" in footer, footer
                assert "t perceived gender" in footer, footer
                assert "label: 1–9 Monk step · 0 step 10 · c cannot identify" in card, card
            else:
                assert "m masc" in footer and "1–9" not in footer, footer
                assert "label: m masculine" in card, card
                # A half-width typed is shown with its label, never as a lone "10".
                await pilot.press("w", "1", "0", "enter")
                await settle(pilot)
                assert measure.half_width == 10
                assert unlabelled_values(app) + cut_fields(app) == [], shown(app)
            # M leaves the mode (and this host with it): tested with the Review screen.
            assert await surface(pilot, leave=("M",)) == [], shown(app)
