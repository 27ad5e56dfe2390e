"""The TUI (``diptych tui``): runs started, watched, stopped and resumed from the screens, a
run's analysis shown, and how each screen looks at 80×24 (snapshots in tests/__snapshots__).

Runs execute for real: the scripted models of ``diptych.testing``, slowed down so that a run
can be stopped half-way, write one line per call to a log (``calls_log``), from which the
tests tell which trials were asked and how often.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from steps import SIZE, cell, loaded, new_run_of, run_ids, said, wait_for
from textual.dom import DOMNode
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, OptionList, SelectionList, Static
from typer.testing import CliRunner

from diptych.cli.main import app as cli_app
from diptych.core import plugins
from diptych.core.engine import resume_run
from diptych.core.plugins import get_probe
from diptych.core.runview import RunView
from diptych.core.store import open_store
from diptych.testing import ScriptedLikelihood
from diptych.tui.app import DiptychApp
from diptych.tui.formatting import interval, number
from diptych.tui.jobs import RunRequest
from diptych.tui.screens.help import collect_bindings, help_sections, screen_classes
from diptych.tui.screens.new_run.plan import form_id
from diptych.tui.screens.runs.detail import ReportDirScreen, RunDetailScreen
from diptych.tui.screens.runs.screen import RunsScreen
from diptych.tui.widgets.params_form import ParamsForm


def calls(log: Path) -> list[str]:
    """The request text of each call the scripted model received, in order."""
    if not log.exists():
        return []
    return [json.loads(line)["text"] for line in log.read_text().splitlines()]


def slow_request(log: Path, n: int, latency: float = 0.05) -> RunRequest:
    return RunRequest(
        probe="scripted",
        probe_params=(f"n={n}",),
        models=(
            (
                "scripted-likelihood",
                (f"latency={latency}", "max_concurrency=2", f"calls_log={log}"),
            ),
        ),
    )


# --- behaviour ------------------------------------------------------------------------------


async def test_a_run_started_from_the_new_run_screen_finishes(
    scripted: None, workspace: Path, tmp_path: Path
) -> None:
    log = tmp_path / "calls.jsonl"
    app = DiptychApp(workspace, refresh_interval=0.2)
    async with app.run_test(size=SIZE) as pilot:
        screen = await new_run_of(pilot, "scripted")
        models = screen.query_one("#models", SelectionList)
        models.focus()
        models.highlighted = next(
            i
            for i in range(models.option_count)
            if models.get_option_at_index(i).prompt == "scripted-likelihood"
        )
        await pilot.press("space")
        await wait_for(
            pilot, lambda: bool(screen.query(f"#{form_id('scripted-likelihood')}")), "model form"
        )
        # The probe's n by keyboard, as a user would: replace the default 10 by 12.
        screen.query_one("#form-probe-n").focus()
        await pilot.press("end", "backspace", "backspace", "1", "2")
        model_form = screen.query_one(f"#{form_id('scripted-likelihood')}", ParamsForm)
        model_form.set_value("latency", "0.01")
        model_form.set_value("calls_log", str(log))
        estimate = screen.query_one("#estimate", Static)
        await wait_for(
            pilot,
            lambda: (
                "12 trials planned · 0 already stored · 12 requests to run"
                in str(estimate.render())
            ),
            "the estimate",
        )
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, RunsScreen)
        await wait_for(pilot, lambda: len(run_ids(app)) == 1, "the run in the table")
        run_id = run_ids(app)[0]
        await wait_for(pilot, lambda: cell(app, run_id, "status") == "complete", "completion")
        assert [cell(app, run_id, c) for c in ("progress", "done", "refused", "failed")] == [
            "100.0%",
            "12",
            "0",
            "0",
        ]
        assert cell(app, run_id, "probe") == "scripted"
        assert cell(app, run_id, "flagged") == "0"
    assert sorted(calls(log)) == sorted(f"request {i}" for i in range(12))


async def test_new_run_shows_parse_errors_under_the_field(scripted: None, workspace: Path) -> None:
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        screen = await new_run_of(pilot, "scripted")
        screen.query_one("#form-probe-n").focus()
        await pilot.press("end", "backspace", "backspace", "minus", "3")
        error = screen.query_one("#form-probe-n-error", Static)
        # The CLI's own message for -p n=-3, under the field it is about.
        await wait_for(
            pilot, lambda: "-3 is not a whole number (0 or more)" in str(error.render()), "error"
        )
        assert "✗ tick one or more" in str(screen.query_one("#models-error").render())
        await pilot.press("ctrl+s")
        assert app.screen is screen  # nothing started
        assert not app.jobs


async def test_a_model_ticked_while_the_probe_changes_stays_ticked(
    scripted: None, workspace: Path
) -> None:
    """A tick whose message waits behind a probe change (a slow machine) survives the
    rebuild of the models list the change makes, and the estimate follows it."""
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        screen = await new_run_of(pilot, "scripted")
        screen.query_one("#models", SelectionList).select("scripted-likelihood")
        # What the probe change does before the tick's message is handled: rebuild the list.
        screen._show_models()
        await pilot.pause()
        assert screen.selected_models() == ["scripted-likelihood"]
        assert "scripted-likelihood" in screen.query_one("#models", SelectionList).selected
        estimate = screen.query_one("#estimate", Static)
        await wait_for(pilot, lambda: "planned" in str(estimate.render()), "the estimate")


class Held:
    """Calls of the scripted likelihood model after the eighth, held until ``release`` is set
    (or their run is stopped); ``calls`` counts every call asked."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0
        self._lock = threading.Lock()

    def ask(self) -> bool:
        """Count a call; whether it is to be held."""
        with self._lock:
            self.calls += 1
            return self.calls > 8


@pytest.fixture
def held_after_eight(scripted: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Held]:
    """The scripted likelihood model answers eight calls, then holds every further one: a run
    is stopped half-way however fast or slow the machine is (wait for ``calls > 8``, not for a
    count of finished trials: progress reaches the screen at most every 0.1 s)."""
    held = Held()
    ask = ScriptedLikelihood.next_token_logprobs

    async def holding(self: ScriptedLikelihood, prompt: str, candidates: Any) -> dict[str, float]:
        hold = held.ask()
        # Polled, not waited for in a thread: a stop cancels the wait at once, and the run's
        # loop has no thread of this test's to wait for as it closes.
        while hold and not held.release.is_set():
            await asyncio.sleep(0.01)
        return await ask(self, prompt, candidates)

    monkeypatch.setattr(ScriptedLikelihood, "next_token_logprobs", holding)
    yield held
    held.release.set()


async def test_stop_mid_run_then_resume_asks_each_trial_once(
    held_after_eight: Held, workspace: Path, tmp_path: Path
) -> None:
    log = tmp_path / "calls.jsonl"
    n = 30
    app = DiptychApp(workspace, refresh_interval=0.2)
    async with app.run_test(size=SIZE) as pilot:
        job = app.start_run(slow_request(log, n))
        await wait_for(pilot, lambda: held_after_eight.calls > 8, "eight calls answered")
        await wait_for(pilot, lambda: job.run_id in run_ids(app), "the run in the table")
        assert job.run_id is not None
        run_id = job.run_id
        app.screen.query_one("#runs", DataTable).focus()
        await pilot.press("c")
        # The calls held since the eighth go on once the stop is asked: no new one starts.
        await wait_for(pilot, lambda: job.stop_reason == "stop", "the stop asked")
        held_after_eight.release.set()
        await wait_for(pilot, lambda: cell(app, run_id, "status") == "interrupted", "the stop")
        assert job.control.finished.is_set()
        with open_store(workspace) as store:
            stopped = store.status_counts(run_id)
            done_before = {
                t.payload["prompt"]
                for t in store.trials(run_id)
                if (r := store.result(t.key)) is not None and r.status == "done"
            }
        assert stopped["done"] == len(done_before) and 0 < stopped["pending"] < n
        asked_before = len(calls(log))

        await pilot.press("u")
        await wait_for(pilot, lambda: cell(app, run_id, "status") == "complete", "the resume")
        assert cell(app, run_id, "done") == str(n)

    asked = calls(log)
    before, after = Counter(asked[:asked_before]), Counter(asked[asked_before:])
    # Nothing finished before the stop was asked again, the rest exactly once after it, and
    # before the stop no request was asked twice.
    assert set(after) == {f"request {i}" for i in range(n)} - done_before
    assert set(after.values()) == {1} and set(before.values()) == {1}
    assert done_before <= set(before)
    with open_store(workspace) as store:
        assert store.get_run(run_id).status == "complete"
        assert store.status_counts(run_id) == {"done": n, "refused": 0, "failed": 0, "pending": 0}


class SlowToClose(ScriptedLikelihood):
    """Closes only when the run is stopped, as an HTTP client stuck closing might: the stop
    lands in the engine's clean-up, whatever the machine's speed."""

    name = "slow-to-close"
    #: Set once the engine has started closing the model (every trial is stored by then).
    closing = threading.Event()

    async def aclose(self) -> None:
        SlowToClose.closing.set()
        # Waits for the stop, which cancels this wait; the timeout only keeps a test whose
        # stop never comes from hanging.
        never = asyncio.get_running_loop().create_future()
        await asyncio.wait_for(never, timeout=30)


@pytest.fixture
def slow_to_close(scripted: None) -> Iterator[None]:
    name = plugins.register_plugin(
        plugins.plugin_module(register_models=lambda register: register(SlowToClose)), "slow"
    )
    yield
    plugins.unregister_plugin(name)


async def test_a_stop_during_the_engines_clean_up_still_stores_the_status(
    slow_to_close: None, workspace: Path, tmp_path: Path
) -> None:
    log = tmp_path / "calls.jsonl"
    app = DiptychApp(workspace, refresh_interval=0.2)
    async with app.run_test(size=SIZE) as pilot:
        job = app.start_run(
            RunRequest(
                probe="scripted",
                probe_params=("n=3",),
                models=(("slow-to-close", (f"calls_log={log}",)),),
            )
        )
        SlowToClose.closing.clear()
        await wait_for(pilot, SlowToClose.closing.is_set, "the model to start closing")
        app.stop_job(job, "stop")
        await wait_for(pilot, lambda: not job.active, "the stop")
    assert job.run_id is not None
    with open_store(workspace) as store:
        assert store.get_run(job.run_id).status == "complete"


async def test_pause_then_go_on(held_after_eight: Held, workspace: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    app = DiptychApp(workspace, refresh_interval=0.2)
    async with app.run_test(size=SIZE) as pilot:
        job = app.start_run(slow_request(log, 20))
        await wait_for(pilot, lambda: held_after_eight.calls > 8, "eight calls answered")
        await wait_for(pilot, lambda: job.run_id in run_ids(app), "the run in the table")
        assert job.run_id is not None
        await pilot.press("p")
        await wait_for(pilot, lambda: job.stop_reason == "pause", "the pause asked")
        held_after_eight.release.set()
        await wait_for(pilot, lambda: cell(app, str(job.run_id), "status") == "paused", "pause")
        await pilot.press("p")
        await wait_for(
            pilot, lambda: cell(app, str(job.run_id), "status") == "complete", "going on"
        )
    assert Counter(calls(log)).most_common(1)[0][1] <= 2  # at most the calls in flight
    assert set(calls(log)) == {f"request {i}" for i in range(20)}


async def test_quitting_mid_run_keeps_every_finished_trial(
    held_after_eight: Held, workspace: Path, tmp_path: Path
) -> None:
    log = tmp_path / "calls.jsonl"
    app = DiptychApp(workspace, refresh_interval=0.2)
    async with app.run_test(size=SIZE) as pilot:
        job = app.start_run(slow_request(log, 40))
        await wait_for(pilot, lambda: held_after_eight.calls > 8, "eight calls answered")
        await pilot.press("q")
        await wait_for(pilot, lambda: job.stop_reason == "quit", "the stop asked")
        held_after_eight.release.set()
    # Quitting waited for the run's thread: its status and results are stored.
    assert job.control.finished.is_set()
    assert job.run_id is not None
    with open_store(workspace) as store:
        run = store.get_run(job.run_id)
        counts = store.status_counts(run.id)
    assert run.status == "interrupted"
    assert counts["done"] >= job.n_finished and counts["pending"] > 0
    asked_before = len(calls(log))
    # The CLI's resume, in a thread of its own (this test's thread runs an event loop).
    resumed = await asyncio.to_thread(resume_in_own_store, workspace, run.id)
    assert resumed == "complete"
    # It asked for exactly the trials that were pending: none of the finished ones was lost.
    assert len(calls(log)) - asked_before == counts["pending"]


def resume_in_own_store(workspace: Path, run_id: str) -> str:
    with open_store(workspace) as store:
        return resume_run(store, run_id).status


async def test_run_detail_shows_the_analysis_and_writes_the_report(
    pst_text_run: str, workspace: Path, tmp_path: Path
) -> None:
    run_id = pst_text_run
    with open_store(workspace) as store:
        run = store.get_run(run_id)
        expected = get_probe(run.probe, run.params).analyze(RunView(store, run))
    assert expected.numbers and expected.tables
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: run_ids(app) == [run_id], "the run")
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, RunDetailScreen)
        await wait_for(pilot, lambda: bool(screen.query("#section-numbers")), "the analysis")
        numbers = screen.query_one("#section-numbers", DataTable)
        # Its rows are filled once the table is laid out at its width.
        await wait_for(pilot, lambda: numbers.row_count > 0, "the figures' rows")
        shown = [
            [str(c).replace("\n", " ") for c in numbers.get_row_at(i)]
            for i in range(numbers.row_count)
        ]

        # 2 identities a side: each interval over them a quick look (§), resampling 2 + 2
        # identities; n counts prompts, or the drawn labels' answers.
        def counted(n: dict[str, Any]) -> str:
            return f"{n['n']:,} {'answers' if n.get('n_of') == 'answer' else 'prompts'}"

        assert shown == [
            [name, number(n["value"]), f"{interval(n['ci_low'], n['ci_high'])} §", counted(n),
             "2 + 2 identities"]
            if n.get("ci_low") is not None
            # A figure with no interval says why, as `diptych show` does: a diagnostic.
            else [name, number(n["value"]), f"no interval ({n['reason']})", counted(n), "—"]
            for name, n in expected.numbers.items()
        ]  # fmt: skip
        # Likelihood mode: the headline is the expected STS from the probabilities, first; the
        # STS of the drawn labels is shown beside it.
        names = [row[0] for row in shown]
        assert "STS paired (expected from P(he), P(she))" in names
        assert "STS paired (drawn labels)" in names
        assert names.index("STS paired (expected from P(he), P(she))") < names.index(
            "STS paired (drawn labels)"
        )
        # Every table of the analysis has its section.
        options = screen.query_one("#sections", OptionList)
        sections = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert [t.title for t in expected.tables] == sections[1 : 1 + len(expected.tables)]

        await pilot.press("w")
        assert isinstance(app.screen, ReportDirScreen)
        app.screen.query_one("#report-dir", Input).value = str(tmp_path / "report")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "report written to" in " ".join(said(app)), "the report")
        assert str((tmp_path / "report" / "report.html").resolve()) in said(app)[-1]
        assert "STS" in (tmp_path / "report" / "report.md").read_text()


async def test_review_key_opens_the_review_screen_for_the_run(
    pst_text_run: str, workspace: Path
) -> None:
    import diptych.tui.review.screen as review

    run_id = pst_text_run
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: run_ids(app) == [run_id], "the run")
        await pilot.press("r")
        # (The Review screen may open a dialog of its own on top, e.g. to ask who reviews.)
        await wait_for(
            pilot,
            lambda: any(isinstance(s, review.ReviewScreen) for s in app.screen_stack),
            "the Review screen",
        )


def test_help_lists_every_binding_of_every_screen() -> None:
    sections = help_sections(DiptychApp)
    titles = [title for title, _ in sections]
    assert titles[:2] == ["Everywhere but in dialogs", "In tables and lists"]
    assert {"Run detail screen", "Agent screen", "Audit screen", "Review screen"} <= set(titles)
    listed = {(b.key, b.action) for _, bindings in sections for b in bindings}
    classes: list[type[DOMNode]] = [*screen_classes(), DiptychApp]
    for cls in classes:
        for binding in collect_bindings(cls):
            assert (binding.key, binding.action) in listed
    assert {("n", "new_run"), ("ctrl+s", "start"), ("q", "quit"), ("w", "write_report")} <= listed


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["tui", "--store", "here"], {}),
        (["--store", "here", "tui"], {}),
        (["tui"], {"DIPTYCH_STORE": "here"}),
    ],
)
def test_cli_opens_the_app_on_the_workspace(
    args: list[str], env: dict[str, str], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[Path] = []
    monkeypatch.setattr(DiptychApp, "run", lambda self: opened.append(self.store_path))
    # CliRunner's streams are not a terminal; the app's own run is replaced above.
    monkeypatch.setattr("diptych.cli.tui_cmd.has_terminal", lambda: True)
    result = CliRunner().invoke(cli_app, args, env=env)
    assert result.exit_code == 0, result.output
    assert opened == [Path("here").resolve()]
    assert (Path("here") / "diptych.db").exists()


# --- how the screens look -------------------------------------------------------------------


def test_snapshot_runs(snap_compare: Any, snapshot_workspace: Path) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    assert snap_compare(app, terminal_size=SIZE, run_before=loaded(3))


def test_snapshot_help(snap_compare: Any, snapshot_workspace: Path) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    assert snap_compare(app, terminal_size=SIZE, run_before=loaded(3), press=["question_mark"])


def test_snapshot_plugins(snap_compare: Any, snapshot_workspace: Path) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    assert snap_compare(app, terminal_size=SIZE, run_before=loaded(3), press=["i"])


def test_snapshot_new_run(snap_compare: Any, snapshot_workspace: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await loaded(3)(pilot)
        screen = await new_run_of(pilot, "scripted")
        screen.query_one("#models", SelectionList).select("scripted-likelihood")
        estimate = screen.query_one("#estimate", Static)
        await wait_for(
            pilot,
            lambda: "planned" in str(estimate.render()),
            "the estimate",
            shown=lambda: str(estimate.render()),
        )

    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_run_detail(snap_compare: Any, snapshot_workspace: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await loaded(3)(pilot)
        await pilot.press("down", "down", "enter")
        screen = pilot.app.screen
        await wait_for(pilot, lambda: bool(screen.query("#section-numbers")), "the analysis")

    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
