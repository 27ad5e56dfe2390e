"""Every screen of the TUI at 80×24 and at 60×20, read as a user reads it (tests/tui/surface.py):
no decision-bearing value cut, wrapped inside itself or hidden; no control whose state reads
in colour alone; no sentence pointing at a red field that is not in view; no footer key that
does nothing and says nothing; Help opening on what the screen is for.

Each screen is opened as a user opens it, on data with known values, and the checks run on
what is drawn. ``python -m pytest tests/tui/test_surface.py`` runs them all.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from surface import (
    cut_fields,
    cut_footer_keys,
    cut_highlighted_option,
    cut_names,
    cut_sentences,
    cut_text,
    cut_titles,
    cut_values,
    footer_keys,
    footer_lacks,
    help_leads_with_purpose,
    markup_leaks,
    missing_values,
    region_lines,
    screen_lines,
    silent_keys,
    state_by_colour,
    toasts_over,
    unreachable_keys,
    unseen_errors,
)
from test_app import (
    choose_probe,
    few_plugins,
    loaded,
    snapshot_workspace,
    utc,
    wait_for,
    workspace,
)
from test_audit_screen import audit_dir
from test_screen_fit import labelled_run, open_detail, settle, show_section
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Label, Static

from diptych import hookimpl
from diptych.core import plugins
from diptych.core.capabilities import Model
from diptych.core.engine import run_probe
from diptych.core.report.formatting import bounds, figure_text, p_text
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.testing import ScriptedLikelihood
from diptych.tui.app import DiptychApp
from diptych.tui.formatting import interval, number
from diptych.tui.review.screen import ReviewScreen
from diptych.tui.review.tone import TonePanel
from diptych.tui.screens.agent.screen import AgentScreen
from diptych.tui.screens.audit import AuditScreen
from diptych.tui.screens.help import HelpScreen, screen_purpose, screen_title
from diptych.tui.screens.new_run import NewRunScreen
from diptych.tui.screens.plugins import PluginsScreen
from diptych.tui.screens.run_detail import ReportDirScreen, RunDetailScreen
from diptych.tui.widgets.fit_table import FitTable
from diptych.tui.widgets.ticks import TickList
from tests.tui.agent.test_agent_screen import agent_app, start_session
from tests.tui.review.test_review import Host, review_run
from tests.tui.review.test_review_measure import MeasureHost, scripted_run, truth_of
from tests.tui.review.test_review_tone import tone_run

pytestmark = pytest.mark.surface

__all__ = [
    "audit_dir",
    "scripted_run",
    "few_plugins",
    "labelled_run",
    "review_run",
    "snapshot_workspace",
    "tone_run",
    "utc",
    "workspace",
]

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((60, 20), id="60x20")]


async def surface(
    pilot: Pilot[Any], *, leave: tuple[str, ...] = (), labels: bool = True
) -> list[str]:
    """Every class of defect on the screen shown now (the keys last: they move the screen).
    ``labels``: whether the footer's labels are checked whole too."""
    await settle(pilot)
    app = pilot.app
    found = cut_values(app) + cut_fields(app) + unseen_errors(app) + await state_by_colour(pilot)
    found += cut_footer_keys(app) + footer_lacks(app, labels=labels) + cut_titles(app)
    found += unreachable_keys(app) + cut_sentences(app)
    found += await silent_keys(pilot, leave=leave)
    return found


async def help_check(pilot: Pilot[Any], screen: type[Screen[Any]]) -> list[str]:
    await pilot.press("f1")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "the help")
    await settle(pilot)
    found = help_leads_with_purpose(
        screen_lines(pilot.app), screen_title(screen), screen_purpose(screen)
    ) + markup_leaks(screen_lines(pilot.app))
    await pilot.press("escape")
    await wait_for(pilot, lambda: not isinstance(pilot.app.screen, HelpScreen), "help closed")
    return found


def shown(app: App[Any]) -> str:
    return "\n".join(screen_lines(app))


# --- Runs, Run detail, Write report, Plugins ------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
async def test_runs_screen(snapshot_workspace: Path, size: tuple[int, int]) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(3)(pilot)
        assert await help_check(pilot, type(app.screen)) == []
        # n, r and i open screens; u, p and c say why they do nothing on a finished run.
        assert await surface(pilot) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_runs_footer_shows_every_key_or_says_more_are_under_help(
    snapshot_workspace: Path, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With every key of the Runs screen offered (a run executing offers u, p and c), a footer
    too narrow for them all says how many more keys Help lists."""
    from diptych.tui.screens.runs import RunsScreen

    every = {"resume": "Resume", "pause": "Pause", "cancel": "Cancel"}
    monkeypatch.setattr(RunsScreen, "footer_labels", lambda self: every)
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(3)(pilot)
        await settle(pilot)
        found = unreachable_keys(app) + cut_footer_keys(app) + footer_lacks(app)
        assert found == [], shown(app)
        if size == (60, 20):
            assert "+" in screen_lines(app)[-1], shown(app)  # some keys are under Help


@pytest.fixture
def one_design_thrice(few_plugins: None, workspace: Path) -> Path:
    """Three runs of one design (two asked for anew): their ids share 8 hex digits."""
    with open_store(workspace) as store:
        for new in (False, True, True):
            run_probe(store, "scripted", ["scripted-likelihood"], probe_params=["n=4"], new=new)
    return workspace


@pytest.mark.parametrize("size", SIZES)
async def test_runs_screen_prints_each_run_by_a_name_every_command_takes(
    one_design_thrice: Path, size: tuple[int, int]
) -> None:
    with Workspace.open(one_design_thrice) as ws:
        names = [s.name for s in ws.runs.list()]
        # Each name, typed, names its run alone (the CLI's lookup: tests/cli).
        assert [ws.runs.get(n).id for n in names] == [s.run.id for s in ws.runs.list()]
    assert len(set(names)) == 3 and len({n[:8] for n in names}) == 1
    app = DiptychApp(one_design_thrice, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(3)(pilot)
        await settle(pilot)
        # Printed whole in the run column: no "0663f62…".
        assert missing_values(screen_lines(app), names) == [], shown(app)
        assert cut_values(app) == [], shown(app)


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
        lines = screen_lines(app)
        # The headline figures in view: each value and its interval whole on a line.
        table = screen.query_one("#section-numbers", FitTable)
        in_view = [
            (number(n["value"]), interval(n.get("ci_low"), n.get("ci_high")))
            for n in list(numbers.values())[: table.scrollable_content_region.height // 2]
        ]
        assert in_view and missing_values(lines, [v for pair in in_view for v in pair]) == []
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
    """Where the report went is said once, under the figures, its whole path readable (wrapped
    after a separator where the line is too narrow); no toast is drawn over the figures."""
    out = tmp_path / "reports-of-the-morning" / "a-directory-with-a-rather-long-name"
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size, notifications=True) as pilot:
        screen = await open_detail(pilot)
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, ReportDirScreen), "the dialog")
        app.screen.query_one(Input).value = str(out)
        await pilot.press("enter")
        status = screen.query_one("#status", Static)
        await wait_for(pilot, lambda: "report written" in str(status.render()), "the report")
        await settle(pilot)
        written = str((out / "report.md").resolve())
        rows = [r.rstrip() for r in region_lines(screen_lines(app), status.content_region)]
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


@pytest.mark.parametrize("size", SIZES)
async def test_plugins_screen(snapshot_workspace: Path, size: tuple[int, int]) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(3)(pilot)
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, PluginsScreen), "the plugins")
        assert await help_check(pilot, PluginsScreen) == []
        assert await surface(pilot) == [], shown(app)


# --- New run --------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
async def test_new_run_screen(snapshot_workspace: Path, size: tuple[int, int]) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(3)(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "the screen")
        screen = app.screen
        assert isinstance(screen, NewRunScreen)
        await choose_probe(pilot, "scripted")
        await settle(pilot)
        assert await help_check(pilot, NewRunScreen) == []
        # The Models list shows rows to choose from, each with its state in text.
        models = screen.query_one("#models", TickList)
        assert models.option_count >= 3, [models.get_option_at_index(i) for i in range(2)]
        assert models.scrollable_content_region.height >= 3, shown(app)
        lines = screen_lines(app)
        assert any("[ ] scripted-likelihood" in line for line in lines), shown(app)
        # No model chosen: the plan points at the field to fix, and it is in view.
        await wait_for(pilot, lambda: "fix the field" in shown(app), "the plan's complaint")
        assert unseen_errors(app, focus=False) == [], shown(app)
        # ctrl+s takes the user to it.
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.focused is models
        assert unseen_errors(app) == [], shown(app)
        assert cut_values(app) + await state_by_colour(pilot) == [], shown(app)

        # A model chosen and a run option refused: the option's field, far down the forms,
        # is brought into view and focused by ctrl+s.
        models.select("scripted-likelihood")
        await settle(pilot)
        # The chosen model in view, ticked.
        assert any("[x] scripted-likelihood" in line for line in screen_lines(app)), shown(app)
        run_form = screen.query_one("#form-run")
        run_form.query_one("#form-run-concurrency").value = "0"  # type: ignore[attr-defined]
        await wait_for(pilot, lambda: "fix the field" in shown(app), "the plan's complaint")
        screen.query_one("#probe").focus()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.focused is not None and app.focused.id == "form-run-concurrency"
        assert unseen_errors(app) == [], shown(app)

        run_form.query_one("#form-run-concurrency").value = ""  # type: ignore[attr-defined]

        # A field with a pick list under it refused: its red reason in view with it.
        await choose_probe(pilot, "pst-text")
        models.select("scripted-likelihood")
        await settle(pilot)
        field = screen.query_one("#form-probe-masculine", Input)
        field.value = "notajob"
        await wait_for(pilot, lambda: "fix the field" in shown(app), "the plan's complaint")
        screen.query_one("#probe").focus()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.focused is field
        assert unseen_errors(app) + footer_lacks(app) == [], shown(app)
        assert "notajob" in shown(app) and "unknown" in shown(app), shown(app)
        field.value = ""

        # A valid plan: its trials and cost whole (in its scrolled box at the least).
        estimate = screen.query_one("#estimate", Static)
        await wait_for(
            pilot,
            lambda: "estimated cost" in str(estimate.render()),
            "the estimate",
            lambda: shown(app) + str(estimate.render()),
        )
        await settle(pilot)
        assert cut_values(app) + cut_footer_keys(app) == [], shown(app)
        # With the plan shown, the list still shows three rows, the chosen model among them.
        assert models.scrollable_content_region.height >= 3, shown(app)
        assert any("[x] scripted-likelihood" in line for line in screen_lines(app)), shown(app)
        assert await silent_keys(pilot, leave=("ctrl+s",)) == [], shown(app)


class LongNamedLikelihood(ScriptedLikelihood):
    """The scripted likelihood model under a name of 36 characters."""

    name = "scripted-likelihood-with-a-long-name"


class LongNamedPlugin:
    @hookimpl
    def register_models(self, register: Callable[[type[Model]], None]) -> None:
        register(LongNamedLikelihood)


@pytest.fixture
def long_named_model(few_plugins: None) -> Iterator[str]:
    name = plugins.register_plugin(LongNamedPlugin(), "long-named-model")
    yield LongNamedLikelihood.name
    plugins.unregister_plugin(name)


@pytest.mark.parametrize("size", SIZES)
async def test_new_run_models_list_shows_a_long_name_whole(
    snapshot_workspace: Path, long_named_model: str, size: tuple[int, int]
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(3)(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "the screen")
        await choose_probe(pilot, "scripted")
        models = app.screen.query_one("#models", TickList)
        names = [str(models.get_option_at_index(i).value) for i in range(models.option_count)]
        assert long_named_model in names and len(long_named_model) >= 23
        for name in names:
            models.highlighted = names.index(name)  # scrolled into view
            await settle(pilot)
            assert cut_names(app, models, [name]) == [], shown(app)
        assert cut_values(app) + await state_by_colour(pilot) == [], shown(app)


# --- Review and its measurement mode --------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
async def test_review_of_a_text_run(snapshot_workspace: Path, size: tuple[int, int]) -> None:
    with Workspace.open(snapshot_workspace) as ws:
        run_id = next(r.run.id for r in ws.runs.list() if r.run.probe == "pst-text")
    app = Host(snapshot_workspace, run_id, reviewer="hal", include_unlabelled=True)
    async with app.run_test(size=size) as pilot:
        review = app.review
        await wait_for(
            pilot,
            lambda: review.numbers is not None and review.state.current() is not None,
            "the queue and its figures",
        )
        # A text run has no persons in images to measure: M is not offered ...
        assert "M" not in footer_keys(app)
        # ... and pressed all the same, it says why.
        notes = len(app._notifications)
        await pilot.press("M")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        assert len(app._notifications) == notes + 1
        assert "texts" in list(app._notifications)[-1].message
        # The labels go on being stored by the footer's m/f/c: leave those to their tests.
        assert await surface(pilot, leave=("m", "f", "c")) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_review_with_nobody_flagged(snapshot_workspace: Path, size: tuple[int, int]) -> None:
    with Workspace.open(snapshot_workspace) as ws:
        run_id = next(r.run.id for r in ws.runs.list() if r.run.probe == "pst-text")
    app = Host(snapshot_workspace, run_id, reviewer="newcomer-with-a-long-name")
    async with app.run_test(size=size) as pilot:
        review = app.review
        await wait_for(pilot, lambda: review.numbers is not None, "the queue and its figures")
        assert review.state.current() is None  # nobody flagged: the queue is empty
        # Every key of the footer says why it has nobody to act on (m and f among them).
        assert await surface(pilot) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_review_of_an_image_run(review_run: tuple[Path, str], size: tuple[int, int]) -> None:
    ws, run_id = review_run
    app = Host(ws, run_id, reviewer="ann")
    async with app.run_test(size=size) as pilot:
        review = app.review
        await wait_for(pilot, lambda: review.state.current() is not None, "the queue")
        assert "M" in footer_keys(app)
        # The footer is rebuilt once the first person's label keys are known: read it after.
        await settle(pilot)
        assert cut_values(app) + cut_footer_keys(app) + await state_by_colour(pilot) == [], shown(
            app
        )


@pytest.mark.parametrize("size", SIZES)
async def test_review_with_the_tone_keys(tone_run: tuple[Path, str], size: tuple[int, int]) -> None:
    ws, run_id = tone_run
    app = Host(ws, run_id, reviewer="ann")
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
        # With the tone keys armed, every key of the footer does something or says why (m/f
        # say the tone keys are on; x takes the tone back: leave it to its test).
        assert await silent_keys(pilot, leave=("x",)) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_measurement_mode(scripted_run: tuple[Path, str], size: tuple[int, int]) -> None:
    ws, run_id = scripted_run
    app = MeasureHost(ws, run_id)
    async with app.run_test(size=size) as pilot:
        measure = app.measure
        await wait_for(pilot, lambda: measure.draw is not None, "the draw")
        for _ in range(12):
            item = measure.state.current()
            assert item is not None
            await pilot.press("m" if truth_of(item) == "masculine" else "f")
        await wait_for(
            pilot,
            lambda: measure.status is not None and measure.status.n_labelled == 12,
            "the figure after 12 labels",
        )
        await settle(pilot)
        # The measured figure's value and interval, whole (the panel beside the image).
        assert cut_values(app) + cut_footer_keys(app) + cut_fields(app) == [], shown(app)
        assert await state_by_colour(pilot) == []


# --- Agent ----------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
async def test_agent_screen(
    scripted: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    # A relative path: the header shows it, and a temporary directory's name would be cut.
    monkeypatch.chdir(tmp_path)
    workspace = Path("ws")
    Workspace.open(workspace).close()
    app = agent_app(workspace, monkeypatch)
    async with app.run_test(size=size) as pilot:
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AgentScreen), "the Agent screen")
        screen = app.screen
        assert isinstance(screen, AgentScreen)
        # Every field of the form whole (no "smoll", no "identiti" over "es"), the allow-new
        # box's state in text.
        await settle(pilot)
        assert cut_fields(app) + await state_by_colour(pilot) == [], shown(app)
        screen.query_one("#agent-proposals").focus()
        # Before a session has proposals, a and x say why they have nothing to act on.
        assert await silent_keys(pilot, leave=("ctrl+s", "escape")) == [], shown(app)
        assert await help_check(pilot, AgentScreen) == []
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, AgentScreen), "back")
        await start_session(pilot)
        await settle(pilot)
        rows = screen._rows.by_id
        assert rows
        lines = screen_lines(app)
        # Each proposal's score, interval and q in view, whole.
        assert cut_values(app) + cut_footer_keys(app) == [], shown(app)
        table = screen.query_one("#agent-proposals", FitTable)
        in_view = list(rows.values())[: max(1, table.scrollable_content_region.height // 3)]
        for row in in_view:
            cells = [row.status]
            if row.score is not None and row.ci_low is not None and row.ci_high is not None:
                cells += [figure_text(row.score), bounds(row.ci_low, row.ci_high)]
            if row.q_value is not None:
                cells.append(p_text(row.q_value))
            assert missing_values(lines, cells) == [], shown(app)
        # a and x decide (a asks first where the session did not confirm); ctrl+s would buy
        # another session.
        assert await silent_keys(pilot, leave=("ctrl+s", "a", "x")) == [], shown(app)


# --- Audit ----------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
async def test_audit_screen_gates_and_status(audit_dir: Path, size: tuple[int, int]) -> None:
    import yaml
    from test_audit_screen import FIGURE

    masc, fem = ["carpenter", "farmer", "guard"], ["nurse", "editor", "secretary"]
    planted = {**{m: 0.2 for m in masc}, **{f: 0.8 for f in fem}}
    data = {
        "name": "tui-gates",
        "models": {"t": {"plugin": "scripted-likelihood",
                         "params": {"p_feminine": planted, "noise": 0.1}}},
        "probes": [{"probe": "pst-text", "models": ["t"],
                    "params": {"masculine": masc, "feminine": fem}}],
        "report": {"formats": ["json"]},
        "gates": [
            {"part": "pst-text", "figure": FIGURE, "below": 95, "name": "below 95"},
            {"part": "pst-text", "figure": FIGURE, "below": 10, "name": "below 10"},
        ],
    }  # fmt: skip
    (audit_dir / "gated.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await pilot.press("A")
        await wait_for(pilot, lambda: isinstance(app.screen, AuditScreen), "the screen")
        screen = app.screen
        assert isinstance(screen, AuditScreen)
        app.screen.query_one("#parts").focus()
        assert await help_check(pilot, AuditScreen) == []
        screen.query_one("#file").focus()
        await settle(pilot)
        # Typing in the file's field, the footer still says how to quit.
        assert footer_lacks(app) == [], shown(app)
        await pilot.press(*"gated.yaml", "enter")
        await wait_for(pilot, lambda: screen.plan is not None, "the plan")
        await settle(pilot)
        assert cut_values(app) == [], shown(app)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: len(screen.gates) == 2, "the decided gates")
        await settle(pilot)
        lines = screen_lines(app)
        # The gates' heading (the audit's id, how many pass) whole.
        assert cut_values(app) + cut_footer_keys(app) + cut_titles(app) == [], shown(app)
        assert missing_values([" ".join(" ".join(lines).split())], [screen.gates_note]) == []
        # Each gate whole: at 60×20 under the heading the table scrolls (its scrollbar says
        # so), the first gate in view at the top, the last at the end.
        table = screen.query_one("#gates", FitTable)
        for g, end in zip(screen.gates, (False, True), strict=True):
            if end:
                table.scroll_end(animate=False)
                await settle(pilot)
            cells = [g.verdict.upper(), g.value, g.interval, g.rule]
            assert missing_values(screen_lines(app), cells) == [], shown(app)
        # The summary's word and every part's row agree.
        summary = str(screen.query_one("#summary").render())
        assert summary.startswith("audit complete"), summary
        assert set(screen.status.values()) == {"complete"}, screen.status
        screen.query_one("#parts").focus()
        assert await silent_keys(pilot) == [], shown(app)


def test_help_text_has_no_markup() -> None:
    """What each screen is for reads as words: no ``literal`` marks, no constant's name."""
    from diptych.tui.screens.help import screen_classes

    found = [f"{cls.__name__}: {line}" for cls in screen_classes()
             for line in markup_leaks([screen_purpose(cls)])]  # fmt: skip
    assert found == []


@pytest.mark.parametrize("size", SIZES)
async def test_audit_screen_every_part_reachable_under_its_gates(
    audit_dir: Path, size: tuple[int, int]
) -> None:
    """Three parts under two gates: the gates take what they need, the parts keep rows of
    their own, and each part's row, moved to, is drawn whole with its status."""
    import yaml
    from test_audit_screen import FIGURE

    masc, fem = ["carpenter", "farmer", "guard"], ["nurse", "editor", "secretary"]
    planted = {**{m: 0.2 for m in masc}, **{f: 0.8 for f in fem}}
    parts = [
        {"probe": "pst-text", "name": name, "models": ["t"],
         "params": {"masculine": masc[:k], "feminine": fem[:k]}}
        for k, name in ((3, "three"), (2, "two"), (1, "one"))
    ]  # fmt: skip
    data = {
        "name": "tui-parts",
        "models": {"t": {"plugin": "scripted-likelihood",
                         "params": {"p_feminine": planted, "noise": 0.1}}},
        "probes": parts,
        "report": {"formats": ["json"]},
        "gates": [
            {"part": "three", "figure": FIGURE, "below": 95, "name": "below 95"},
            {"part": "three", "figure": FIGURE, "below": 10, "name": "below 10"},
        ],
    }  # fmt: skip
    (audit_dir / "parts.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await pilot.press("A")
        await wait_for(pilot, lambda: isinstance(app.screen, AuditScreen), "the screen")
        screen = app.screen
        assert isinstance(screen, AuditScreen)
        await pilot.press(*"parts.yaml", "enter")
        await wait_for(pilot, lambda: screen.plan is not None, "the plan")
        await settle(pilot)
        # The file's field has the focus: every key of the screen in the footer, ^o too.
        assert "^o Report" in screen_lines(app)[-1], shown(app)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: len(screen.gates) == 2, "the decided gates")
        await settle(pilot)
        assert cut_values(app) + cut_footer_keys(app) + footer_lacks(app) == [], shown(app)
        assert "^o Report" in screen_lines(app)[-1], shown(app)
        table = screen.query_one("#parts", FitTable)
        assert table.row_count == 3
        # Rows of their own in view, not its header alone (three lines at the least).
        header = 1 if table.show_header else 0
        assert table.scrollable_content_region.height - header >= 3, shown(app)
        table.focus()
        for k, name in enumerate(("three", "two", "one")):
            table.move_cursor(row=k)
            await settle(pilot)
            status = screen.status[name]
            assert status == "complete", screen.status
            lines = screen_lines(app)
            drawn = " ".join(" ".join(region_lines(lines, table.region)).split())
            # Its name and its status on the table's rows in view (wide: one line each;
            # narrow: "name · kind: probe ..." over the status).
            assert name in drawn and status in drawn, (name, shown(app))
        # The gates' values whole as well: the parts took no more than they need.
        gates = screen.query_one("#gates", FitTable)
        assert gates.scrollable_content_region.height >= 4, shown(app)


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
        await wait_for(
            pilot,
            lambda: any(isinstance(s, ReviewScreen) for s in app.screen_stack),
            "the Review screen",
        )
        if not isinstance(app.screen, ReviewScreen):  # who reviews, asked first
            await pilot.press(*"newcomer", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the name taken")
        review = app.screen
        assert isinstance(review, ReviewScreen)
        await wait_for(pilot, lambda: review.numbers is not None, "the queue and its figures")
        assert review.state.current() is None
        title = review.query_one("#review-title")
        for key in ("m", "f", "right", "x", "e", "m", "f"):
            await pilot.press(key)
        await settle(pilot)
        assert len(app._notifications) >= 5
        assert toasts_over(app, title) == [], shown(app)
        assert cut_text(app, title) == [], shown(app)


@pytest.fixture
def decided_run(few_plugins: None, workspace: Path) -> Path:
    """A pst-text run of the paper's 20 × 20 occupations an audit bought until its gate was
    decided at an early look, so that its status in words is long: "decided at look 1 of 10:
    164 of 1,640 requests, 1,476 saved"."""
    import asyncio

    import yaml
    from test_app import OCC
    from test_audit_screen import FIGURE

    from diptych.audit import run_audit

    masc, fem = OCC.masculine, OCC.feminine
    planted = {**{m: 0.2 for m in masc}, **{f: 0.8 for f in fem}}
    data = {
        "name": "tui-seq",
        "seed": 1,
        "models": {"t": {"plugin": "scripted-likelihood",
                         "params": {"p_feminine": planted, "noise": 0.3}}},
        "probes": [{"probe": "pst-text", "models": ["t"],
                    "params": {"masculine": masc, "feminine": fem}}],
        "report": {"formats": ["json"]},
        "gates": [{"part": "pst-text", "figure": FIGURE, "below": 75, "name": "below 75"}],
    }  # fmt: skip
    Path("audit.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    with Workspace.open(workspace) as ws:
        asyncio.run(run_audit(ws, "audit.yaml", until_decided=True, out_dir="out"))
    return workspace


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
