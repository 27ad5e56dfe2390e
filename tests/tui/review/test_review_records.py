"""Review records a reviewer can trust: where Review starts, labels merged not replaced, notes
with or without a label (stored, exported), labels taken back, blind mode that never hangs,
the image zoomed, opened and marked, the reviewer's name remembered per workspace."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hosts import Host, card, reviewing, settled
from PIL import Image
from steps import wait_for
from textual.pilot import Pilot

from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.tui.review import image as review_image
from diptych.tui.review.image import MARK_COLOUR, mark_person
from diptych.tui.review.modals import NoteModal, ReviewerNameModal
from diptych.tui.review.panels import ReviewPicture
from tests.support.cli import call


async def test_review_starts_at_the_first_person_not_labelled(
    review_run: tuple[Path, str],
) -> None:
    ws, run_id = review_run
    with Workspace.open(ws) as workspace:
        workspace.labels.save(run_id, 0, "left", "masculine", reviewer="ivy")
        workspace.labels.save(run_id, 0, "right", "feminine", reviewer="ivy")
        workspace.preferences.remember_reviewer("ivy")
    app = Host(ws, run_id)  # no name given: the workspace remembers it
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        assert app.review.reviewer == "ivy"
        assert not any(isinstance(s, ReviewerNameModal) for s in app.screen_stack)
        assert app.review.cursor == app.review.view[2]
        assert "your label: —" in card(app)


async def test_the_labels_counted_are_the_ones_show_counts_after_reopening(
    unannotated_run: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A label takes its person out of a queue of those nobody labelled: Review opened again
    still counts it, as ``diptych show`` does (the count is of the run, not of the queue)."""
    ws, run_id = unannotated_run
    async with reviewing(ws, run_id, reviewer="nat", include_unlabelled=True) as (first, pilot):
        labelled = first.review.cursor
        await pilot.press("m")
        await wait_for(pilot, lambda: len(first.saved) == 1)
        assert "· 1 labelled ·" in title(first)
    code, out = call(capsys, "--store", str(ws), "show", run_id)
    assert code == 0 and "human:nat 1" in out
    async with reviewing(ws, run_id, reviewer="nat", include_unlabelled=True) as (again, pilot):
        assert labelled not in again.review.items  # labelled, so no longer in this queue
        assert "· 1 labelled ·" in title(again)
        # Taken back, the label leaves the count as it leaves the run.
        await pilot.press("home", "m")
        await wait_for(pilot, lambda: len(again.saved) == 1)
        assert "· 2 labelled ·" in title(again)
        await pilot.press("home", "x")
        assert "· 1 labelled ·" in title(again)
        await wait_for(pilot, lambda: len(again.saved) == 2)
    code, out = call(capsys, "--store", str(ws), "show", run_id)
    assert "human:nat 1" in out


def title(app: Host) -> str:
    return str(app.review.query_one("#review-title").render())


async def test_a_note_on_a_reloaded_label_keeps_its_detail(review_run: tuple[Path, str]) -> None:
    ws, run_id = review_run
    with Workspace.open(ws) as workspace:
        detail = {"via": "diptych tui review", "reasons": ["r1"], "blind": True, "seed": 3}
        workspace.labels.save(run_id, 0, "left", "masculine", reviewer="jo", detail=detail)
    async with reviewing(ws, run_id, reviewer="jo") as (app, pilot):
        await pilot.press("home")
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, NoteModal))
        await pilot.press(*"hat", "enter")
        await wait_for(pilot, lambda: len(app.saved) == 1)
    with open_store(ws) as store:
        (label,) = store.labels(run_id, "human:jo")
    assert label.detail == {**detail, "note": "hat"}


async def test_a_note_without_a_label_is_stored_and_exported(
    review_run: tuple[Path, str], tmp_path: Path
) -> None:
    ws, run_id = review_run
    async with reviewing(ws, run_id, reviewer="kim") as (app, pilot):
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, NoteModal))
        await pilot.press(*"blurred", "enter")
        await wait_for(pilot, lambda: app.screen is app.review)
    with Workspace.open(ws) as workspace:
        assert [
            (n["trial_idx"], n["position"], n["note"]) for n in workspace.review.notes(run_id)
        ] == [(0, "left", "blurred")]
        assert not workspace.runs.view(run_id).labels("human:kim")
        out = io.StringIO()
        workspace.runs.export(run_id, "jsonl", out)
    first = json.loads(out.getvalue().splitlines()[0])
    assert first["notes"] == {"left": {"human:kim": "blurred"}}
    # Seen again when the run is reviewed again.
    async with reviewing(ws, run_id, reviewer="kim") as (again, pilot):
        await pilot.press("home")
        assert "note: blurred" in card(again)


async def test_a_label_taken_back_leaves_the_metrics_and_stays_in_history(
    review_run: tuple[Path, str],
) -> None:
    ws, run_id = review_run
    async with reviewing(ws, run_id, reviewer="lee") as (app, pilot):
        await pilot.press("m", "left")
        assert "your label: masculine" in card(app)
        await pilot.press("x")
        assert "your label: —" in card(app)
        await wait_for(pilot, lambda: len(app.saved) == 2)
    with Workspace.open(ws) as workspace:
        assert not workspace.runs.view(run_id).labels("human:lee")
        (removed,) = workspace.labels.removals(run_id)
    assert removed["label"] == "masculine" and removed["annotator"] == "human:lee"


async def test_blind_mode_shows_its_first_image_at_once(review_run: tuple[Path, str]) -> None:
    ws, run_id = review_run
    for _ in range(3):  # the race was intermittent
        await first_blind_image(Host(ws, run_id, reviewer="mo", seed=11, prefetch=4))


async def first_blind_image(app: Host) -> None:
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        await pilot.press("b")
        await wait_for(pilot, lambda: app.review.shown is not None, timeout=5)
        assert app.review.shown is not None and app.review.shown[0] == app.review.cursor
        assert app.review.query_one("#review-message").display is False


async def test_zoom_fills_the_terminal_and_the_person_is_marked(
    review_run: tuple[Path, str],
) -> None:
    ws, run_id = review_run
    async with reviewing(ws, run_id, reviewer="ned") as (app, pilot):
        picture = app.review.query_one(ReviewPicture)
        before = picture.size.width
        await pilot.press("z")
        await pilot.pause()
        assert picture.size.width == 100 > before
        assert app.review.query_one("#review-card-scroll").display is False
        await pilot.press("escape")  # out of the zoom, not out of the screen
        await pilot.pause()
        assert app.screen is app.review and picture.size.width == before


def test_the_person_being_labelled_is_framed() -> None:
    image = Image.new("RGB", (100, 50), (0, 0, 0))
    left = mark_person(image, "left")
    assert left.getpixel((0, 25)) == MARK_COLOUR and left.getpixel((99, 25)) == (0, 0, 0)
    right = mark_person(image, "right")
    assert right.getpixel((99, 25)) == MARK_COLOUR and right.getpixel((0, 25)) == (0, 0, 0)
    assert image.getpixel((0, 25)) == (0, 0, 0)  # the cached image stays clean
    assert mark_person(image, "center") is image


async def test_open_in_viewer_or_say_why_not(
    review_run: tuple[Path, str], monkeypatch: Any
) -> None:
    ws, run_id = review_run
    opened: list[list[str]] = []
    monkeypatch.setattr(review_image, "viewer_command", lambda: None)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    async with reviewing(ws, run_id, reviewer="oz") as (app, pilot):
        item = app.review.items[app.review.view[0]]
        # No display (ssh, a console): where the file is, not "opened".
        await pilot.press("o")
        await pilot.pause()
        said = [n.message for n in app.review.said]
        assert said[-1].startswith("no display to open a viewer on")
        assert said[-1].endswith(f"the image is {item.image_path}")
        monkeypatch.setenv("DISPLAY", ":0")
        await pilot.press("o")
        await pilot.pause()
        assert any("no system image viewer" in n.message for n in app.review.said)
        monkeypatch.setattr(review_image, "viewer_command", lambda: ["true"])
        monkeypatch.setattr(review_image.subprocess, "Popen", lambda cmd, **kw: opened.append(cmd))
        await pilot.press("o")
        await pilot.pause()
    assert opened == [["true", str(item.image_path)]]


@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=["80x24", "60x20"])
def test_review_snapshot_sized(
    review_run: tuple[Path, str], snap_compare: Callable[..., bool], size: Any
) -> None:
    ws, run_id = review_run
    app = Host(ws, run_id, reviewer="alice")

    async def to_the_rewritten_image(pilot: Pilot[Any]) -> None:
        await settled(pilot, app)
        await pilot.press("n", "n")
        await settled(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=to_the_rewritten_image)
