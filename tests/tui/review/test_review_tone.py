"""The Review screen's skin-tone panel: the ten Monk swatches beside the person, a reviewer's
tone stored as a human tone label and taken back, and the run's tone gap moving with it.

The run is ``tone_run`` (conftest): the pst run of ``hosts.make_run`` (one carpenter and one
nurse: two paired images, the carpenter on the left of image 0 and on the right of image 1, and
three single images of each), with the
``skin-tone`` annotator's tones written in: every carpenter ``monk-6`` and every nurse ``monk-3``
(confidence 0.8). The paired tone gap is the masculine-stereotyped person's step less the
feminine-stereotyped one's per image, averaged: (6 − 3 + 6 − 3)/2 = 3 steps before any review.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hosts import Host, card, settled
from rich.text import Text
from steps import wait_for

from diptych.core.labels import CANNOT_IDENTIFY, TONE
from diptych.core.store import open_store
from diptych.tui.review.queue import RESERVED_KEYS, ReviewItem
from diptych.tui.review.tone import TONE_KEYS, TonePanel, tone_figure, tone_text

GAP = "occupation: tone gap paired"


def gap(app: Host) -> float | None:
    return (app.review.numbers or {}).get(GAP, {}).get("value")


def panel(app: Host) -> str:
    return app.review.query_one(TonePanel).text.plain


def marks(text: str) -> dict[int, str]:
    """Step -> the word under its swatch (the rows under the two rows of five swatches)."""
    lines = text.splitlines()
    found = {}
    for row, line in ((0, lines[2]), (5, lines[4])):
        for k in range(5):
            word = line[4 * k : 4 * k + 4].strip()
            if word:
                found[row + k + 1] = word
    return found


def stored_tones(ws: Path, run_id: str) -> list[tuple[int, str, str]]:
    with open_store(ws) as store:
        return [(lab.trial_idx, lab.position, lab.label)
                for lab in store.labels(run_id, "human:alice", TONE)]  # fmt: skip


async def test_a_tone_given_moves_the_tone_gap_and_taken_back_moves_it_home(
    tone_review: Host,
) -> None:
    app = tone_review
    ws, run_id = app.review.store_path, app.review.run_id
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        assert "carpenter" in card(app) and "LEFT person" in card(app)
        assert gap(app) == pytest.approx(3.0)
        shown = panel(app)
        # Every swatch carries its number; the annotator's step is named under its swatch.
        assert all(str(k) in shown.splitlines()[1 if k <= 5 else 3].split() for k in range(1, 11))
        assert marks(shown) == {6: "auto"}
        assert "auto monk-6 0.80 (skin-tone)" in shown
        assert "you  no tone yet" in shown
        assert "tone gap paired 3.00 no interval (one masculine identity only) n=2" in shown

        # Without the tone keys armed a digit gives nothing.
        await pilot.press("2")
        await pilot.pause()
        assert stored_tones(ws, run_id) == []

        await pilot.press("t")
        assert "TONE KEYS" in panel(app)
        # m is a gender key, not a tone: with the tone keys armed it says so and stores nothing.
        await pilot.press("m")
        # Image 0's carpenter read as step 2: 2 − 3 = −1 there, 6 − 3 = 3 in image 1; mean 1.
        await pilot.press("2")
        await wait_for(pilot, lambda: gap(app) == pytest.approx(1.0))
        await wait_for(pilot, lambda: "(was 3.00)" in panel(app))
        assert "tone gap paired 1.00 no interval (one masculine identity only) n=2" in panel(app)
        assert marks(panel(app)) == {2: "you", 6: "auto"}
        assert "you  monk-2" in panel(app)
        # The reviewer stays on the person to see the figure move.
        assert "carpenter" in card(app) and "LEFT person" in card(app)
        assert stored_tones(ws, run_id) == [(0, "left", "monk-2")]
        with open_store(ws) as store:
            # A tone is no gender label: none is stored for the m pressed with the tone keys.
            assert store.labels(run_id, "human:alice") == []
            (tone,) = store.labels(run_id, "human:alice", TONE)
        assert tone.detail["via"] == "diptych tui review"

        # Taken back: the annotator's tone counts again, 3 steps.
        await pilot.press("x")
        await wait_for(pilot, lambda: gap(app) == pytest.approx(3.0))
        assert stored_tones(ws, run_id) == []
        assert marks(panel(app)) == {6: "auto"}

        # 0 is step 10: 10 − 3 = 7 and 3, mean 5; the same step as the annotator's is "both".
        await pilot.press("0")
        await wait_for(pilot, lambda: gap(app) == pytest.approx(5.0))
        await pilot.press("6")
        await wait_for(pilot, lambda: gap(app) == pytest.approx(3.0))
        assert marks(panel(app)) == {6: "both"}
        assert stored_tones(ws, run_id) == [(0, "left", "monk-6")]

        # Escape leaves the tone keys first; the digits give nothing again.
        await pilot.press("escape")
        assert "TONE KEYS" not in panel(app)
        await pilot.press("9")
        await pilot.pause()
        assert stored_tones(ws, run_id) == [(0, "left", "monk-6")]


async def test_cannot_identify_leaves_the_person_out_of_the_gap(
    tone_review: Host,
) -> None:
    app = tone_review
    ws, run_id = app.review.store_path, app.review.run_id
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        await pilot.press("t", "c")
        await wait_for(pilot, lambda: stored_tones(ws, run_id) == [(0, "left", CANNOT_IDENTIFY)])
        assert "you  cannot_identify (not on the scale)" in panel(app)
        # Image 0 has no masculine-stereotyped tone left: image 1 alone, 6 − 3.
        await wait_for(pilot, lambda: app.review.metrics_generation >= 2)
        await wait_for(pilot, lambda: not app.review._metrics_running)
        assert gap(app) == pytest.approx(3.0)


def _item(**changes: Any) -> ReviewItem:
    base = ReviewItem(
        subject_id=1, trial_idx=0, position="left", flags=(), identity="carpenter",
        stereotype="masculine", image_id="x", setting="paired", blob="sha", prompt=None,
        revised_prompt=None, output_text=None, automatic=(), humans=(),
    )  # fmt: skip
    return replace(base, **changes)


def test_blind_mode_hides_the_annotators_tone_and_the_figure() -> None:
    item = _item(tones=(("skin-tone", "monk-4", 0.9), ("human:bo", "monk-7", None)))
    numbers = {GAP: {"value": 1.5, "n": 4}}
    seen = tone_text(item, "human:bo", numbers, None).plain
    assert marks(seen) == {4: "auto", 7: "you"} and "tone gap paired 1.5" in seen
    blind = tone_text(item, "human:bo", numbers, None, blind=True).plain
    assert marks(blind) == {7: "you"}
    assert "skin-tone" not in blind and "1.5" not in blind
    assert "hidden in blind mode" in blind


def test_the_figure_shown_is_the_gap_else_the_middle_band_share() -> None:
    assert tone_figure({"a: tone share Monk 4–7, paired": {}, GAP: {}}) == GAP
    assert tone_figure({"a: tone share Monk 4–7, paired": {}}) == "a: tone share Monk 4–7, paired"
    assert tone_figure({"a: STS paired": {}}) is None
    assert isinstance(tone_text(_item(), None, None, None), Text)


def test_tone_keys_are_the_ten_steps_and_t_is_never_a_label_key() -> None:
    assert TONE_KEYS["1"] == "monk-1" and TONE_KEYS["0"] == "monk-10" and len(TONE_KEYS) == 10
    assert "t" in RESERVED_KEYS


async def test_a_text_output_has_no_tone_to_give(tone_review: Host) -> None:
    app = tone_review
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        review = app.review
        sid = review.state.cursor
        assert sid is not None
        review.state.items[sid] = replace(review.state.items[sid], blob=None)
        review._show_current()
        await pilot.press("t")
        await pilot.pause()
        assert not review.tone_armed
        assert not review.query_one(TonePanel).display
        assert any("a skin tone to a person in an image; this output has none" in str(n.message)
                   for n in app.review.said)  # fmt: skip
