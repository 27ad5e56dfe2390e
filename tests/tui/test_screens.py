"""What a new auditor met on the Runs, New-run, Run-detail and Help screens, each with the
behaviour that fixes it; and every screen's look at 80×24 and at 60×20."""

from __future__ import annotations

import io
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from steps import cell, choose_probe, loaded, run_ids, said, settle, wait_for
from surface import screen_lines
from textual.pilot import Pilot
from textual.widgets import Input, SelectionList, Static

from diptych.core.probe import Figure
from diptych.core.store import open_store
from diptych.core.workspace import Analysis, Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.jobs import JobState, RunRequest
from diptych.tui.progress import Progress, run_progress
from diptych.tui.review.screen import ReviewScreen
from diptych.tui.screens.help import bindings_table, collect_bindings
from diptych.tui.screens.new_run.screen import NewRunScreen
from diptych.tui.screens.runs.detail import RunDetailScreen
from diptych.tui.widgets.params_form import ParamsForm
from diptych.tui.widgets.tables import ListTable
from tests.support.stopped_runs import forget_one_answer

SIZES = [(80, 24), (60, 20)]


# --- progress: one figure -------------------------------------------------------------------


def test_one_progress_figure_goes_on_across_a_resume() -> None:
    job = JobState(1, RunRequest(resume="r"), total=156, cached=30, to_run=126)
    job.finished = {"done": 8}
    job.started_at = 100.0
    progress = run_progress({"done": 30, "pending": 126}, 156, job, now=104.0)
    # Not 8/126 (this job's share) nor the store's 30, read before these 8: 30 + 8 since.
    assert progress == Progress(38, 156, 2.0)
    assert progress.text() == "38/156 · 2.0/s · ETA 0:59"
    assert run_progress({"done": 37, "refused": 1, "failed": 0}, 156).text() == "38/156"


# --- runs table -----------------------------------------------------------------------------


async def test_flag_column_counts_people_as_review_does(review_run: tuple[Path, str]) -> None:
    ws, run_id = review_run
    with Workspace.open(ws) as workspace:
        people = workspace.review.flagged_people(run_id)
        assert people < len(workspace.review.flags(run_id))  # a flag on an image is two people
    app = DiptychApp(ws, refresh_interval=60)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: run_ids(app) == [run_id], "the run")
        assert cell(app, run_id, "flagged") == str(people)
        review = ReviewScreen(ws, run_id, reviewer="ann", renderer="halfcell")
        await app.push_screen(review)
        await wait_for(pilot, lambda: bool(review.view), "the queue")
        assert len(review.view) == people


async def test_run_detail_counts_the_flags_as_the_runs_list_and_review_do(
    review_run: tuple[Path, str],
) -> None:
    """One count of a run's flags everywhere: the people a flag lands on (a flag on an image
    with two people in it is two), read from one place by the listing and the run detail."""
    ws, run_id = review_run
    with Workspace.open(ws) as workspace:
        people = workspace.review.flagged_people(run_id)
        assert people < len(workspace.review.flags(run_id))
        (listed,) = workspace.runs.list()
        assert listed.flagged == people
    app = DiptychApp(ws, refresh_interval=60)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: run_ids(app) == [run_id], "the run")
        assert cell(app, run_id, "flagged") == str(people)
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, RunDetailScreen)
        await wait_for(pilot, lambda: bool(screen.query("#section-notes")), "the analysis")
        summary = " ".join(str(screen.query_one("#summary", Static).render()).split())
        assert f"flagged {people}" in summary, summary
        notes = screen.query_one("#section-notes Static", Static)
        assert f"{people} items flagged for review" in str(notes.render()), notes.render()


async def test_a_stale_run_is_marked_and_resumes_with_one_key(
    pst_text_run: str, workspace: Path
) -> None:
    with open_store(workspace) as store:
        store.db.execute("UPDATE runs SET status = 'running' WHERE id = ?", (pst_text_run,))
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: run_ids(app) == [pst_text_run], "the run")
        assert cell(app, pst_text_run, "status") == "stale"
        await pilot.press("u")
        assert app.jobs and next(iter(app.jobs.values())).request.resume == pst_text_run
        await wait_for(pilot, lambda: not app.active_jobs, "the resume")


def interrupt(workspace: Path, run_id: str) -> None:
    """``run_id`` as a run stopped short leaves it: interrupted, with a trial left to ask (a
    run whose trials all have an outcome reads complete, whatever its stored status)."""
    with open_store(workspace) as store:
        store.set_run_status(run_id, "interrupted")
    forget_one_answer(workspace, run_id)


def footer_row(app: DiptychApp) -> str:
    return screen_lines(app)[app.size.height - 1]


async def rows_drawn(pilot: Pilot[Any], runs: list[str]) -> None:
    """The first frame the Runs screen lists ``runs`` in (polled frame by frame): the footer
    must offer the highlighted run's keys in it, not a frame or two later. A frame is drawn
    once the screen's handler of the load returns (its messages wait while it runs), so a
    reading taken while the handler awaits the footer's redraw is not a frame."""
    deadline = time.monotonic() + 60
    while run_ids(pilot.app) != runs or not getattr(pilot.app.screen, "loads_shown", 0):
        assert time.monotonic() < deadline, "timed out waiting for the runs"
        await pilot.pause()


async def test_the_footer_offers_the_keys_the_highlighted_run_takes(
    pst_text_run: str, workspace: Path
) -> None:
    """An interrupted run offers u Resume, not p Pause or c Stop (nothing runs to pause or
    stop); pressed all the same, p says why in one line and starts nothing. A complete run
    offers none of the three."""
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await rows_drawn(pilot, [pst_text_run])
        row = footer_row(app)
        assert "Quit" in row and "Resume" not in row and "Pause" not in row and "Stop" not in row, (
            row
        )
    interrupt(workspace, pst_text_run)
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await rows_drawn(pilot, [pst_text_run])
        row = footer_row(app)
        assert "u Resume" in row and "Pause" not in row and "Stop" not in row, row
        for key in ("p", "c"):
            before = len(said(app))
            await pilot.press(key)
            await pilot.pause()
            now = said(app)[before:]
            assert len(now) == 1 and "\n" not in now[0], now
            assert "not running" in now[0] and "u resumes" in now[0], now
        assert not app.jobs


async def test_the_footer_offers_the_run_keys_before_the_screens_first_bindings_signal(
    pst_text_run: str, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows loaded before the screen first signals its bindings (a loaded machine) still
    draw the highlighted run's keys with them, not "? Help +8 keys" alone until the signal."""
    from textual.widgets import Footer

    monkeypatch.setattr(Footer, "on_mount", lambda self: None)  # the signal never comes
    interrupt(workspace, pst_text_run)
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await rows_drawn(pilot, [pst_text_run])
        row = footer_row(app)
        assert "u Resume" in row and "Quit" in row, row


async def test_the_runs_screen_is_drawn_at_once_and_filled_when_loaded(
    pst_text_run: str, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the workspace is read, the Runs screen is there already (its title, its table's
    header, its keys) with a line saying it is loading, not "No runs yet"; then its rows."""
    import threading

    import diptych.tui.screens.runs.screen as runs_module

    read = threading.Event()
    load_runs = runs_module.load_runs

    def slow_load(store_path: Path) -> Any:
        read.wait(30)
        return load_runs(store_path)

    monkeypatch.setattr(runs_module, "load_runs", slow_load)
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=(80, 24)) as pilot:
        # The read is held until the screen is drawn: whatever the machine's load, the
        # screen must come without it (its keys once the screen first signals its bindings).
        def drawn_while_reading() -> bool:
            lines = screen_lines(app)
            drawn = "\n".join(lines)
            return "diptych" in lines[0] and "status" in drawn and "? Help" in lines[-1]

        await wait_for(pilot, drawn_while_reading, "the screen drawn while the workspace is read")
        drawn = "\n".join(screen_lines(app))
        assert "loading the workspace" in drawn and "No runs yet" not in drawn, drawn
        read.set()
        await wait_for(pilot, lambda: run_ids(app) == [pst_text_run], "the run")
        await wait_for(
            pilot, lambda: "loading" not in "\n".join(screen_lines(app)), "the loading line gone"
        )


async def test_slash_filters_and_g_moves_through_the_runs(
    snapshot_workspace: Path,
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(3)(pilot)
        table = app.screen.query_one("#runs", ListTable)
        await pilot.press("G")
        assert table.cursor_row == 2
        await pilot.press("g")
        assert table.cursor_row == 0
        await pilot.press("slash", *"pst")
        await wait_for(pilot, lambda: table.row_count == 1, "the filter")
        await pilot.press("escape")
        await wait_for(pilot, lambda: table.row_count == 3, "the filter cleared")


async def test_models_column_takes_the_width_and_m_shows_ids_in_full(
    snapshot_workspace: Path,
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=(120, 24)) as pilot:
        await loaded(3)(pilot)
        table = app.screen.query_one("#runs", ListTable)
        assert sum(c.get_render_width(table) for c in table.columns.values()) >= 110


# --- new run --------------------------------------------------------------------------------


async def new_run(pilot: Pilot[Any]) -> NewRunScreen:
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, NewRunScreen), "the form")
    screen = pilot.app.screen
    assert isinstance(screen, NewRunScreen)
    return screen


async def test_new_run_form_guides(scripted: None, workspace: Path) -> None:
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await new_run(pilot)
        assert screen.probe_name != "calibration"  # a probe some model can run
        await choose_probe(pilot, "scripted")
        # Empty means the default, not an integer error.
        concurrency = screen.query_one("#form-run-concurrency", Input)
        concurrency.value = ""
        assert screen.query_one("#form-run", ParamsForm).values() == []
        # No invisible tab stop after the models list.
        screen.query_one("#models", SelectionList).focus()
        await pilot.press("tab")
        assert app.focused is not None and app.focused.id == "form-probe-n"


def test_a_check_of_the_whole_params_names_its_field() -> None:
    from diptych.core.errors import DiptychError

    try:
        Workspace.plugins.probe("pst", ["masculine=carpenter,plumber"])
    except DiptychError as error:
        message = str(error)
    pst = Workspace.plugins.registry().probes["pst"]
    form = ParamsForm(pst.Params, "probe pst", id="form-probe")
    form._inputs = {spec.name: Input() for spec in form.specs}
    # A check across parameters names no field of its own: the first field it mentions.
    assert message.startswith("probe 'pst': ") and form.field_named(message) == "masculine"


async def test_the_last_probe_and_its_parameters_are_offered_again(
    scripted: None, workspace: Path
) -> None:
    with Workspace.open(workspace) as ws:
        ws.preferences.remember_request(
            "scripted", ["n=7"], [("scripted-likelihood", ["latency=0.5"])]
        )
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await new_run(pilot)
        await wait_for(pilot, lambda: bool(screen.query("#form-model-scripted-likelihood")), "")
        assert screen.probe_name == "scripted"
        assert screen.query_one("#form-probe", ParamsForm).values() == ["n=7"]
        assert screen.selected_models() == ["scripted-likelihood"]
        estimate = screen.query_one("#estimate", Static)
        await wait_for(pilot, lambda: "planned" in str(estimate.render()), "the estimate")


# --- run detail and help --------------------------------------------------------------------


async def test_run_detail_draws_its_figures_and_folds_its_sidebar(
    review_run: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPTYCH_TUI_IMAGES", "halfcell")
    png = io.BytesIO()
    Image.new("RGB", (40, 20), (200, 30, 30)).save(png, format="PNG")
    figure = Figure("sts", "STS per identity", png.getvalue(), "a caption")
    analyze = Analysis.analyze
    monkeypatch.setattr(
        Analysis,
        "analyze",
        lambda self, run_id, **kw: replace(analyze(self, run_id, **kw), figures=[figure]),
    )
    ws, run_id = review_run
    app = DiptychApp(ws, refresh_interval=60)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: run_ids(app) == [run_id], "the run")
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, RunDetailScreen)
        await wait_for(pilot, lambda: bool(screen.query("#section-figures")), "the analysis")
        (image,) = screen.query(".figure-image")
        assert image.image.size == (40, 20)  # type: ignore[attr-defined]
        figures_text = " ".join(str(w.render()) for w in screen.query("#section-figures Static"))
        assert "figures/sts.png" not in figures_text and "STS per identity" in figures_text
        sections = screen.query_one("#sections")
        await pilot.press("s")
        assert sections.display is False
        await pilot.press("s")
        assert sections.display is True


def test_help_lists_each_key_once_with_readable_names() -> None:
    from rich.console import Console

    from diptych.tui.screens.help import help_sections

    app = DiptychApp(Path("."))
    console = Console(width=80, record=True)
    for _, bindings in help_sections(DiptychApp):
        console.print(bindings_table(app, bindings))
    text = console.export_text()
    assert "n n" not in text and "p p" not in text
    assert "n →" in text and "p ←" in text
    assert sum("Quit" in line for line in text.splitlines()) == 1
    assert collect_bindings(ReviewScreen)


# --- looks, at 80×24 and 60×20 --------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "60x20"])
def test_snapshot_runs_sized(snap_compare: Any, snapshot_workspace: Path, size: Any) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    assert snap_compare(app, terminal_size=size, run_before=loaded(3))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "60x20"])
def test_snapshot_help_sized(snap_compare: Any, snapshot_workspace: Path, size: Any) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    assert snap_compare(app, terminal_size=size, run_before=loaded(3), press=["question_mark"])


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "60x20"])
def test_snapshot_new_run_sized(snap_compare: Any, snapshot_workspace: Path, size: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await loaded(3)(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, NewRunScreen), "the form")
        screen = pilot.app.screen
        await choose_probe(pilot, "scripted")
        screen.query_one("#models", SelectionList).select("scripted-likelihood")
        estimate = screen.query_one("#estimate", Static)
        await wait_for(pilot, lambda: "planned" in str(estimate.render()), "the estimate")
        # The estimate's line and the cleared refusal relayout the panes a frame or more later
        # on a loaded machine: the picture is of the form once that has landed.
        await settle(pilot)

    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "60x20"])
def test_snapshot_run_detail_sized(
    snap_compare: Any, snapshot_workspace: Path, size: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPTYCH_TUI_IMAGES", "halfcell")

    async def run_before(pilot: Pilot[Any]) -> None:
        await loaded(3)(pilot)
        await pilot.press("down", "down", "enter")
        screen = pilot.app.screen
        await wait_for(pilot, lambda: bool(screen.query("#section-numbers")), "the analysis")

    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    assert snap_compare(app, terminal_size=size, run_before=run_before)
