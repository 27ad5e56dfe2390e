"""Review's keys left to Help (b, u, home, end), the zoom, and the keys for images a model made
(t, the digits, M) on a run without them: each does something a user sees or says why not, on
the screen's said line. The every-screen check (surface_keys.silent_keys)
presses them too; these pin what each says."""

from __future__ import annotations

from pathlib import Path

from hosts import Host, MeasureHost, reviewing, text_run, truth_of
from steps import wait_for
from surface_keys import footer_keys

from diptych.tui.review.queue import ReviewItem
from diptych.tui.review.state import ReviewState
from diptych.tui.review.tone import TonePanel


def item(sid: int, humans: tuple[tuple[str, str], ...] = ()) -> ReviewItem:
    return ReviewItem(
        sid, 0, "single", (), None, None, None, None, None, None, None, None, (), humans
    )


def test_a_jump_to_where_the_cursor_is_moves_nothing() -> None:
    state = ReviewState()
    state.load([item(1), item(2), item(3)], replace_all=True)
    state.rebuild()
    assert state.cursor == 1
    assert state.jump(last=False) is False
    assert state.jump(last=True) is True and state.cursor == 3
    assert state.jump(last=True) is False
    assert ReviewState().jump(last=False) is False  # nobody to jump to


def test_a_queue_read_before_the_last_label_was_stored_keeps_the_label_given() -> None:
    state = ReviewState()
    state.load([item(1), item(2)], replace_all=True)
    state.rebuild()
    state.give(state.items[2], "masculine", "human:ann")
    state.give(state.items[2], "feminine", "human:ann")
    # Read while only the first label was stored.
    state.load([item(1), item(2, (("human:ann", "masculine"),))], replace_all=False)
    state.take_stored("human:ann")
    assert state.items[2].human_label("human:ann") == "feminine"
    assert state.mine[2] == "feminine"


def test_a_queue_read_before_a_take_back_was_stored_does_not_give_the_label_back() -> None:
    state = ReviewState()
    state.load([item(1), item(2, (("human:ann", "masculine"),))], replace_all=True)
    state.take_stored("human:ann")
    assert state.take_back(state.items[2], "human:ann")
    # Read while the label was still stored: it stays taken back.
    state.load([item(1), item(2, (("human:ann", "masculine"),))], replace_all=False)
    state.take_stored("human:ann")
    assert 2 not in state.mine and state.items[2].human_label("human:ann") is None
    # Once the store has forgotten it, a label given again is kept as any other.
    state.load([item(1), item(2)], replace_all=False)
    state.take_stored("human:ann")
    state.give(state.items[2], "feminine", "human:ann")
    state.load([item(1), item(2, (("human:ann", "feminine"),))], replace_all=False)
    state.take_stored("human:ann")
    assert state.mine[2] == "feminine"


def said(app: object) -> str:
    return app.review.said[-1].message  # type: ignore[attr-defined]


async def test_home_end_blind_and_unlabelled_say_what_they_did(
    review_run: tuple[Path, str],
) -> None:
    ws, run_id = review_run
    async with reviewing(ws, run_id, reviewer="ann") as (app, pilot):
        review = app.review
        await pilot.press("home")
        assert said(app) == "already at the first person"
        await pilot.press("end")
        assert review.state.cursor == review.state.view[-1]
        await pilot.press("end")
        assert said(app) == "already at the last person"
        await pilot.press("b")
        assert said(app).startswith("blind review on: identity")
        await pilot.press("b")
        assert said(app).startswith("blind review off: identity")
        await pilot.press("u")
        assert said(app).startswith("unlabelled people added to the queue")
        await pilot.press("u")
        assert said(app).startswith("the queue holds the flagged people only")


async def test_a_key_pressed_in_the_zoom_leaves_it_and_acts(
    review_run: tuple[Path, str],
) -> None:
    ws, run_id = review_run
    async with reviewing(ws, run_id, reviewer="ann") as (app, pilot):
        review = app.review
        await pilot.press("z")
        assert review.zoomed
        await pilot.press("n")
        # The card and the title, hidden by the zoom, show the person it moved to.
        assert not review.zoomed and review.state.cursor == review.state.view[1]
        await pilot.press("z", "question_mark")
        assert review.zoomed  # Help opens over the zoom


async def test_end_at_the_draws_first_person_not_labelled_says_so(
    scripted_run: tuple[Path, str],
) -> None:
    ws, run_id = scripted_run
    app = MeasureHost(ws, run_id)
    async with app.run_test(size=(100, 30)) as pilot:
        measure = app.measure
        await wait_for(
            pilot,
            lambda: measure.draw is not None and measure.state.current() is not None,
            "the draw's first person",
        )
        first = measure.state.current()
        assert first is not None
        await pilot.press("end")
        assert measure.said[-1].message == "already at the draw's first person not labelled"
        await pilot.press("m" if truth_of(first) == "masculine" else "f", "home")
        await wait_for(pilot, lambda: measure.state.cursor == first.subject_id, "back at the first")
        await pilot.press("home")
        assert measure.said[-1].message == "already at the draw's first person"
        await pilot.press("end")
        assert measure.state.cursor != first.subject_id


# --- keys for images a model made, on a run without them ------------------------------------


async def test_a_run_of_images_it_was_given_offers_no_tone_and_says_why(
    calibration_run: tuple[Path, str],
) -> None:
    """A calibration run shows the images an annotator was given: no tone panel, no t in the
    footer; t, a digit and M each say in one line why not, and no key points to another that
    refuses (a tone there would count in none of the run's figures)."""
    ws, run_id = calibration_run
    async with reviewing(ws, run_id, reviewer="ann", include_unlabelled=True) as (app, pilot):
        review = app.review
        assert review.state.current() is not None and review.state.current().blob is not None
        assert not review.query_one(TonePanel).display
        assert "t" not in footer_keys(app)
        for key, says in (("t", "t gives"), ("5", "the digits give"), ("M", "measurement mode")):
            await pilot.press(key)
            await pilot.pause()
            assert says in said(app) and "labels of images it was given" in said(app), key
            assert "t arms" not in said(app) and not review.tone_armed
        notes = review.help_notes()
        made = "generated-image runs only"
        assert notes["tone_mode"] == notes["tone_key"] == notes["measure"] == made, notes
        assert "zoom" not in notes  # its images are shown, and zoomed
        await pilot.press("z")
        # The zoom says how to leave it (its footer is hidden with the rest).
        assert review.zoomed and said(app).startswith("z or Escape leaves the zoom")


async def test_a_digit_on_a_text_run_says_why_without_sending_to_t(
    snapshot_workspace: Path,
) -> None:
    run_id = text_run(snapshot_workspace)
    app = Host(snapshot_workspace, run_id, reviewer="hal", include_unlabelled=True)
    async with app.run_test(size=(100, 30)) as pilot:
        review = app.review
        await wait_for(pilot, lambda: review.state.current() is not None, "a person")
        await pilot.press("5")
        await pilot.pause()
        assert said(app).startswith("the digits give a skin tone"), said(app)
        assert "texts" in said(app) and "t arms" not in said(app)


async def test_z_on_a_text_or_an_empty_queue_says_why_and_zooms_nothing(
    snapshot_workspace: Path,
) -> None:
    run_id = text_run(snapshot_workspace)
    for unlabelled, says in ((False, "nobody to review here"), (True, "this output is a text")):
        app = Host(snapshot_workspace, run_id, reviewer="hal", include_unlabelled=unlabelled)
        async with app.run_test(size=(100, 30)) as pilot:
            review = app.review
            await wait_for(pilot, lambda: review.numbers is not None, "the figures")  # noqa: B023
            await wait_for(
                pilot,
                lambda: (review.state.current() is not None) == unlabelled,  # noqa: B023
                "the queue",
            )
            await pilot.press("z")
            await pilot.pause()
            assert not review.zoomed and says in said(app), said(app)
