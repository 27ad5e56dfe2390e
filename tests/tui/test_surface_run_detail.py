"""A run's screens at 80×24 and 60×20, read as a user reads it: the Run-detail screen and its
figures, its agreement sections, the report dialog and the report it says it wrote (the Runs
and Plugins screens: ``test_surface_runs.py``; the two run side by side under pytest-xdist).

Each screen is opened as a user opens it, on data with known values, and the checks of
tests/tui/surface.py and surface_keys.py run on what is drawn (``steps.surface`` runs them all).
"""

import re
from pathlib import Path

import pytest
from steps import (
    SIZES,
    analysed,
    help_check,
    loaded,
    open_detail,
    settle,
    show_section,
    shown,
    surface,
    wait_for,
)
from surface import (
    cut_sentences,
    cut_titles,
    cut_values,
    missing_values,
    region_lines,
    screen_lines,
)
from surface_keys import (
    cut_footer_keys,
)
from surface_text import (
    cut_highlighted_option,
    split_counts,
    split_counts_at_any_width,
    toasts_over,
)
from textual.widgets import Input, Label

from diptych.tui.app import DiptychApp
from diptych.tui.formatting import interval, number
from diptych.tui.screens.runs.detail import ReportDirScreen, RunDetailScreen
from diptych.tui.widgets.fit_table import FitTable
from diptych.tui.widgets.said import said_line
from diptych.tui.widgets.whole_numbers import WholeNumbers

pytestmark = pytest.mark.surface


@pytest.mark.parametrize("size", SIZES)
async def test_run_detail_screen_every_section(
    snapshot_workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_detail(pilot)
        assert screen.result is not None
        assert await help_check(pilot, RunDetailScreen) == []
        numbers = screen.result.numbers
        values = [number(n["value"]) for n in numbers.values()]
        # Each headline figure, brought into view in turn (the table scrolls; at 60 columns
        # its rows are stacked): its value and its interval whole on a line.
        table = screen.query_one("#section-numbers", FitTable)
        for row, n in enumerate(numbers.values()):
            table.move_cursor(row=row)
            await settle(pilot)
            pair = [number(n["value"]), interval(n.get("ci_low"), n.get("ci_high"))]
            assert missing_values(screen_lines(app), pair) == [], shown(app)
        table.move_cursor(row=0)
        assert values
        sections = screen.query_one("#sections")
        for title in [t.title for t in screen.result.tables] + ["Flags and notes"]:
            await show_section(pilot, screen, title)
            assert cut_values(app) + cut_sentences(app) == [], (title, shown(app))
            # The section's title whole where it is chosen (its second line in view too).
            assert cut_highlighted_option(app, sections) == [], shown(app)
        await show_section(pilot, screen, "Headline figures")
        # w opens the report dialog (closed again), r the Review screen, s the sections.
        assert await surface(pilot) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_agreement_sections(labelled_run: tuple[Path, str], size: tuple[int, int]) -> None:
    ws, _ = labelled_run
    app = DiptychApp(ws, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(1)(pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RunDetailScreen), "the detail")
        screen = app.screen
        assert isinstance(screen, RunDetailScreen)
        await wait_for(pilot, lambda: bool(screen.query("#section-notes")), "the analysis")
        assert screen.result is not None
        titles = [t.title for t in screen.result.tables if "greement" in t.title]
        assert titles
        for title in titles:
            await show_section(pilot, screen, title)
            assert cut_values(app) == [], (title, shown(app))


@pytest.mark.parametrize("size", SIZES)
async def test_write_report_dialog(snapshot_workspace: Path, size: tuple[int, int]) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await open_detail(pilot)
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, ReportDirScreen), "the dialog")
        await settle(pilot)
        # Within the terminal, its sentence whole.
        assert cut_values(app) + cut_footer_keys(app) + cut_titles(app) == [], shown(app)
        label = app.screen.query_one(Label)
        drawn = " ".join(region_lines(screen_lines(app), label.region))
        assert "(enter writes, escape cancels):" in " ".join(drawn.split()), shown(app)
        # The directory asked for is shown whole in its box.
        assert any("diptych-report-" in line for line in screen_lines(app))


@pytest.mark.parametrize("size", SIZES)
async def test_report_written_says_where_in_full_under_the_figures(
    snapshot_workspace: Path, tmp_path: Path, size: tuple[int, int]
) -> None:
    """Where the report went is said once, above the footer, its whole path readable (wrapped
    after a separator where the line is too narrow); no toast is drawn over the figures."""
    out = tmp_path / "reports-of-the-morning" / "a-directory-with-a-rather-long-name"
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size, notifications=True) as pilot:
        screen = await open_detail(pilot)
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, ReportDirScreen), "the dialog")
        app.screen.query_one(Input).value = str(out)
        await pilot.press("enter")
        line = said_line(screen)
        await wait_for(pilot, lambda: "report written" in str(line.render()), "the report")
        await settle(pilot)
        written = str((out / "report.html").resolve())
        rows = [r.rstrip() for r in region_lines(screen_lines(app), line.content_region)]
        rows = [r for r in rows if r]
        assert "".join(rows).removeprefix("report written to").strip() == written, rows
        # Each row but the last ends at a separator (or at a word): the path is cut nowhere else.
        assert all(r.endswith(("/", " to")) for r in rows[:-1]), rows
        content = screen.query_one("#content")
        assert toasts_over(app, content) == [], shown(app)
        assert cut_values(app) == [], shown(app)
        lines = screen_lines(app)
        numbers = screen.result.numbers if screen.result is not None else {}
        values = [number(n["value"]) for n in numbers.values()]
        missing = missing_values(lines, values)
        # The figures the table has no room for are below its shown rows, a scroll away.
        table = screen.query_one("#section-numbers", FitTable)
        assert missing == [] or table.max_scroll_y > 0, shown(app)
        assert missing == missing_values(lines, values[len(values) - len(missing) :])


async def test_the_report_path_goes_once_the_user_moves_on(
    snapshot_workspace: Path, tmp_path: Path
) -> None:
    """The path of the report stays until the next key (test_run_detail_report_note.py), then
    the rows above the footer are the figures' again (at 60x20 it took two of them for good):
    a resize does not say it again."""
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await open_detail(pilot)
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, ReportDirScreen), "the dialog")
        app.screen.query_one(Input).value = str(tmp_path / "rep")
        await pilot.press("enter")
        line = said_line(screen)
        await wait_for(pilot, lambda: "report written" in str(line.render()), "the report")
        written = (tmp_path / "rep" / "report.html").resolve()
        assert [note.message for note in line.said][-1] == f"report written to {written}"
        await pilot.press("down")
        await settle(pilot)
        assert not line.display, shown(app)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert not line.display, "a resize says it again"


@pytest.mark.parametrize("size", SIZES)
async def test_run_detail_of_a_decided_run_keeps_each_count_with_its_label(
    decided_run: Path, size: tuple[int, int]
) -> None:
    """The summary's counts line ("done 164 · refused 0 · failed 0 · not bought 1,476 ·
    flagged 0") wraps at 60 columns between counts, never between a label and its count."""
    app = DiptychApp(decided_run, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(1)(pilot)
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, RunDetailScreen)
        await analysed(pilot, screen)
        await settle(pilot)
        assert split_counts(app) == [], shown(app)
        summary = screen.query_one("#summary", WholeNumbers).text
        assert "flagged" in summary.plain and split_counts_at_any_width(summary) == []
        # The gate's interval named as Review names it: in fewer words under 80 columns, its
        # look one token (a look parted in its cell is found by the every-screen check).
        interval = screen.query_one("#section-numbers", FitTable).source[0][1][2]
        short, long = r"\(95% anytime-valid, look \d+ of 10\)", r"interval, look \d+ of 10\)"
        assert re.search(short if size[0] < 80 else long, interval), interval
        assert await surface(pilot) == [], shown(app)
