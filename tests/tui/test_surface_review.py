"""The Review screen at 80×24 and 60×20, read as a user reads it: its figures and intervals
whole, every key doing something or saying why, its title in view (its measurement mode:
``test_surface_measurement.py``).

Each screen is opened as a user opens it, on data with known values, and the checks of
tests/tui/surface.py and surface_keys.py run on what is drawn (``steps.surface`` runs them all).
"""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import pytest
from hosts import Host, MeasureHost, text_run
from rich.console import Console
from steps import (
    SIZES,
    loaded,
    queued,
    reviewing,
    settle,
    shown,
    surface,
    wait_for,
)
from surface import (
    cut_titles,
    cut_values,
    visible_widgets,
)
from surface_controls import state_by_colour
from surface_keys import (
    cut_footer_keys,
    footer_keys,
    refused_keys,
    silent_keys,
)
from surface_text import cut_ids, cut_text, split_phrases, toasts_over, toasts_over_figures
from textual.widgets import Static

from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.review.screen import ReviewScreen
from diptych.tui.review.tone import TonePanel

pytestmark = pytest.mark.surface


def title_whole(app: Host | MeasureHost, size: tuple[int, int]) -> list[str]:
    """The title's phrases each on one row; at 80 columns the title is one line."""
    title = app.screen.query_one("#review-title")
    rows = title.content_region.height
    wrapped = size[0] >= 80 and rows > 1
    found = [f"the title takes {rows} rows at {size[0]} columns"] if wrapped else []
    return found + split_phrases(app, title)


@pytest.mark.parametrize("size", SIZES)
async def test_review_of_a_text_run(snapshot_workspace: Path, size: tuple[int, int]) -> None:
    run_id = text_run(snapshot_workspace)
    app = Host(snapshot_workspace, run_id, reviewer="hal", include_unlabelled=True)
    async with app.run_test(size=size) as pilot:
        review = app.review
        await queued(pilot, review)
        # A text run has no persons in images to measure: M is not offered ...
        assert "M" not in footer_keys(app)
        # ... and pressed all the same, it says why.
        notes = len(review.said)
        await pilot.press("M")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        assert len(review.said) == notes + 1
        assert "texts" in review.said[-1].message
        # The title on one line at 80 columns, never a phrase parted ("all" over "reasons").
        assert title_whole(app, size) == [], shown(app)
        # The labels go on being stored by the footer's m/f/c: leave those to their tests. The
        # keys Help lists for image runs (t, the digits, z) are pressed too: each says why not.
        assert await surface(pilot, leave=("m", "f", "c"), offered=True) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_review_of_a_run_of_images_it_was_given(
    calibration_run: tuple[Path, str], size: tuple[int, int]
) -> None:
    """A calibration run's images were given, not made: no key of the footer, card or Help is
    offered that does nothing without saying why (t, the digits and M say why not)."""
    ws, run_id = calibration_run
    app = Host(ws, run_id, reviewer="hal", include_unlabelled=True)
    async with app.run_test(size=size) as pilot:
        review = app.review
        await queued(pilot, review)
        assert not review.query_one(TonePanel).display  # it offered t
        assert await surface(pilot, leave=("m", "f", "c"), offered=True) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_review_with_nobody_flagged(snapshot_workspace: Path, size: tuple[int, int]) -> None:
    run_id = text_run(snapshot_workspace)
    app = Host(snapshot_workspace, run_id, reviewer="newcomer-with-a-long-name")
    async with app.run_test(size=size) as pilot:
        review = app.review
        await wait_for(pilot, lambda: review.numbers is not None, "the queue and its figures")
        assert review.state.current() is None  # nobody flagged: the queue is empty
        # Every key of the footer says why it has nobody to act on (m and f among them), and so
        # does every key Help lists for image runs (z zooms nobody).
        assert await surface(pilot, offered=True) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_review_of_an_image_run(review_run: tuple[Path, str], size: tuple[int, int]) -> None:
    ws, run_id = review_run
    app = Host(ws, run_id, reviewer="ann", include_unlabelled=True)
    async with app.run_test(size=size) as pilot:
        review = app.review
        await wait_for(pilot, lambda: review.state.current() is not None, "the queue")
        assert "M" in footer_keys(app)
        # The footer is rebuilt once the first person's label keys are known: read it after.
        await settle(pilot)
        # The image's id on the card (occ-paired-carpenter--nurse) folded whole, never cut.
        found = cut_values(app) + cut_footer_keys(app) + cut_ids(app) + cut_titles(app)
        assert found + await state_by_colour(pilot) + title_whole(app, size) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_review_with_the_tone_keys(tone_review: Host, size: tuple[int, int]) -> None:
    app = tone_review
    async with app.run_test(size=size) as pilot:
        review = app.review
        await wait_for(pilot, lambda: review.numbers is not None, "the queue and its figures")
        assert "t" in footer_keys(app)
        await pilot.press("t", "2")
        await wait_for(
            pilot,
            lambda: "(was 3.00)" in review.query_one(TonePanel).text.plain,
            "the tone gap after a tone",
        )
        await settle(pilot)
        # The swatches' numbers and the tone gap, whole; the marks are words, not colours.
        assert cut_values(app) + cut_footer_keys(app) + await state_by_colour(pilot) == [], shown(
            app
        )
        lines = shown(app)
        assert "you" in lines and "auto" in lines and "10" in lines
        # With the tone keys armed, the footer offers the keys they take (the digits, c), not
        # m and f; each does something or says why (x takes the tone back: left to its test;
        # t leaves the tone keys).
        assert await refused_keys(pilot, leave=("x", "t")) == [], shown(app)
        assert await silent_keys(pilot, leave=("x",)) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_toasts_leave_the_review_title_in_view(
    snapshot_workspace: Path, size: tuple[int, int]
) -> None:
    """Keys pressed on an empty queue say why, one toast each: however many, the title line
    (whose run and reviewer they are about) stays in view."""
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    # Toasts drawn as the terminal draws them (a test app leaves them out unless asked).
    async with app.run_test(size=size, notifications=True) as pilot:
        await loaded(3)(pilot)
        await pilot.press("down", "down", "r")  # the pst-text run: nobody flagged
        review = await reviewing(pilot)
        assert review.state.current() is None
        title = review.query_one("#review-title")
        for key in ("m", "f", "right", "x", "e", "m", "f"):
            await pilot.press(key)
        await settle(pilot)
        assert len(review.said) >= 5
        assert toasts_over(app, title) == [], shown(app)
        assert cut_text(app, title) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_what_a_key_says_leaves_the_figures_and_help_whole(
    snapshot_workspace: Path, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """m, M, t and u on a text run's Review each say something: said on the screen's own line
    above the STS figures, never in a toast over their intervals ("37.5 [−19.7,▌ the
    measurement mode draws persons…") nor over Help opened while it lasts."""
    from textual.widgets._toast import Toast

    from diptych.tui.screens.help import HelpScreen

    # What is said stays while the screen is read: on a loaded machine a line's few seconds
    # can run out between a key and the check of its layout.
    monkeypatch.setattr("diptych.tui.widgets.said.seconds_shown", lambda *_: 3600.0)
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size, notifications=True) as pilot:
        await loaded(3)(pilot)
        await pilot.press("down", "down", "r")  # the pst-text run
        review = await reviewing(pilot)
        said = review.query_one("#review-said", Static)
        # Nobody flagged: m, M, t say why; u brings the unlabelled in (and says so), then m
        # stores a label (said to count for agreement only), t and M say why not on a text.
        for key in ("m", "M", "t", "u", "m", "t", "M"):
            before = len(review.said)
            await pilot.press(key)
            if key == "u":
                await wait_for(pilot, lambda: review.state.current() is not None, "a person")
            await settle(pilot)
            assert toasts_over_figures(app) == [], shown(app)
            assert [w for w, _ in visible_widgets(app) if isinstance(w, Toast)] == [], shown(app)
            # Said whole, on its own line, the figures' line whole under it.
            assert len(review.said) == before + 1, key
            assert said.display and cut_text(app, said) == [], shown(app)
            assert cut_values(app) == [], shown(app)
        assert "unlabelled people added" in review.said[3].message
        assert "kept for agreement with them only" in review.said[4].message
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await settle(pilot)
        assert [w for w, _ in visible_widgets(app) if isinstance(w, Toast)] == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_runs_screen_says_a_decided_runs_look_and_saving_whole(
    decided_run: Path, size: tuple[int, int]
) -> None:
    with Workspace.open(decided_run) as ws:
        (run,) = ws.runs.list()
        said = run.said
    assert said.startswith("decided at look") and said.endswith(" saved"), said
    app = DiptychApp(decided_run, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(1)(pilot)
        await settle(pilot)
        selected = app.screen.query_one("#selected", Static)
        assert said in " ".join(str(selected.render()).split())
        # "… 1,476" without "saved" at 60 columns: the line wraps, and its box holds it.
        assert cut_text(app, selected) == [], shown(app)
        assert cut_values(app) == [], shown(app)
    # Its Review line: each figure with its interval (the gate's, named at length) whole.
    review = Host(decided_run, run.run.id, reviewer="newcomer", include_unlabelled=True)
    async with review.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: review.review.numbers is not None, "the figures")
        await settle(pilot)
        assert "anytime-valid" in shown(review)
        assert cut_values(review) == [], shown(review)
        # Every figure of the design stopped at look 1 has the anytime-valid interval of that
        # look: named once after them all, in few words, its look one token, and the figures keep to
        # seven rows under the image (each n with its noun, as Run detail counts it).
        metrics = review.screen.query_one("#review-metrics")
        said = " ".join(str(metrics.render()).split())
        # Each n counts the probe's observations with their noun, as Run detail's does.
        counted = r"[\d,]+ (prompts|answers)"
        assert re.search(counted + r" \(all 95% anytime-valid, look \d+( of |/)10\)", said), said
        assert said.count("anytime-valid") == 1, said
        assert metrics.region.height <= 7, shown(review)


async def test_review_of_a_decided_run_counts_only_the_people_it_bought(
    decided_run: Path,
) -> None:
    """Results are shared by request across runs: once another run bought every request of
    its design, the decided run's trials it never ran have results too. Its Review queue
    still holds only the people of the trials it ran when it was decided (one person a
    trial in pst-text: its "done" count), and its title counts those."""
    with Workspace.open(decided_run) as ws:
        (decided,) = ws.runs.list()
        bought = decided.counts["done"]
        run_id = decided.run.id
    with open_store(decided_run) as store, store.transaction() as db:
        # Another run of the same requests stores a result for each of the trials this one
        # never ran (copied from one it ran: only their being there matters).
        done = db.execute(
            "SELECT r.* FROM results r JOIN trials t ON t.key = r.key WHERE t.run_id = ? LIMIT 1",
            (run_id,),
        ).fetchone()
        missing = db.execute(
            "SELECT DISTINCT t.key FROM trials t LEFT JOIN results r ON r.key = t.key"
            " WHERE t.run_id = ? AND r.key IS NULL",
            (run_id,),
        ).fetchall()
        later = time.time() + 60
        for (key,) in missing:
            row = dict(done, key=key, started_at=later, finished_at=later)
            db.execute(
                f"INSERT INTO results ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                tuple(row.values()),
            )
    with open_store(decided_run) as store:
        live = store.status_counts(run_id, live=True)
        # Every trial of the decided run has a result now.
        assert live["pending"] == 0 and live["done"] > bought, live
    review = Host(decided_run, run_id, reviewer="newcomer", include_unlabelled=True)
    async with review.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: review.review.numbers is not None, "the figures")
        await settle(pilot)
        assert len(review.review.state.view) == bought
        assert f" · 1/{bought} · " in shown(review), shown(review)


async def test_help_on_a_text_run_marks_the_keys_for_image_runs(
    snapshot_workspace: Path,
) -> None:
    """Help opened on a text run's Review marks M, t and the digits "generated-image runs only",
    z and o "image runs only" (docs/tui.md: t "not on a text run"); the keys that label, plain."""
    rows = await help_rows(snapshot_workspace, ["down", "down"], runs=3)
    # The digits give a tone (armed by t): "1" leads their row.
    assert marked_image_only(rows) == {"z", "o"}, rows
    made = {key for key, label in rows.items() if label.endswith("(generated-image runs only)")}
    assert made == {"M", "t", "1"}, rows
    assert rows["m"] == "masc" and rows["M"].startswith("measure"), rows


async def test_help_on_an_image_run_marks_no_key(review_run: tuple[Path, str]) -> None:
    rows = await help_rows(review_run[0], [], runs=1)
    assert marked_image_only(rows) == set(), rows
    assert rows["M"] == "measure" and rows["t"] == "tone", rows


def marked_image_only(rows: dict[str, str]) -> set[str]:
    return {key for key, label in rows.items() if label.endswith("(image runs only)")}


async def help_rows(ws: Path, to_run: list[str], runs: int) -> dict[str, str]:
    """Help's rows (first key: what it does) opened on the Review of the run ``to_run``
    reaches on the Runs screen."""
    from diptych.tui.screens.help import HelpScreen

    app = DiptychApp(ws, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(runs)(pilot)
        await pilot.press(*to_run, "r")
        await reviewing(pilot)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await settle(pilot)
        console = Console(width=120, file=io.StringIO(), color_system=None)
        # The Review screen's own section: the first table of keys.
        keys = next(iter(app.screen.query(".help-keys").results(Static)))
        console.print(keys.content)
        text = console.file.getvalue()  # type: ignore[attr-defined]
    rows = [line.split() for line in text.splitlines() if line.strip()]
    return {row[0]: " ".join(row[1:]) for row in rows}
