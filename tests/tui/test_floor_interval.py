"""An interval that fell to its floor (a partial design where most pairs of identities are seen
once: the run an audit stopped at its first look) is marked in every table that shows it —
`diptych show`, Run detail, Review's figures — and its meaning said once under the table:
`diptych show` in the words of report.json and the report's Findings, the terminal app's few
lines in one short note (Run detail's in one line), whole at 80×24 and 60×20."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hosts import FIGURE, Host
from steps import SIZES, open_only_run, open_standings, settle, shown, wait_for, words
from surface import cut_messages, cut_sentences, cut_values, missing_values, screen_lines

from diptych.core.report.formatting import FLOOR_NOTE, bounds, marked_interval
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from tests.support.cli import call

#: The floor's sentence as the core words it, for a design of two identity lists.
FELL = "speak for identities like these)"


def narrow_note(floor: str) -> str:
    """The mark's meaning in a narrow pane: the pairings the floor's sentence counts."""
    pairings = floor.removeprefix("resampling its ").split(" pairings", 1)[0]
    return f"† rests on {pairings} pairings only: these identities"


def floored(workspace: Path) -> tuple[str, dict[str, object], str]:
    """The run's id, its headline figure (the gate's interval) and the floor's sentence of
    report.json — which says it fell to its floor, as the Findings do."""
    with Workspace.open(workspace) as ws:
        (summary,) = ws.runs.list()
        run_id = summary.run.id
        number = dict(ws.audits.read(run_id).numbers[FIGURE])
    report = json.loads(Path("out/report.json").read_text())
    floor = report["result"]["numbers"][FIGURE]["floor"]
    assert floor.endswith(FELL) and number["floor"] == floor
    return run_id, number, floor


def test_show_marks_the_interval_and_says_why(
    decided_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_id, number, floor = floored(decided_run)
    code, out = call(capsys, "--store", str(decided_run), "show", run_id)
    assert code == 0
    assert f"{bounds(number['ci_low'], number['ci_high'])} †" in out
    assert f"† {FIGURE}: {floor}" in words(out)
    # Twice for each figure whose interval fell (its mark and its line), none for the others:
    # here the paired expected STS and the paired drawn labels' STS, over the same pairings.
    numbers = json.loads(Path("out/report.json").read_text())["result"]["numbers"]
    fell = [name for name, n in numbers.items() if n.get("floor")]
    assert fell == [FIGURE, "STS paired (drawn labels)"]
    assert words(out).count("†") == 2 * len(fell)


@pytest.mark.parametrize("size", SIZES)
async def test_run_detail_marks_the_interval_and_says_why_under_the_table(
    decided_run: Path, size: tuple[int, int]
) -> None:
    run_id, number, floor = floored(decided_run)
    app = DiptychApp(decided_run, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_only_run(pilot, "#numbers-floor")
        lines = screen_lines(app)
        marked = f"{bounds(number['ci_low'], number['ci_high'])} †"
        assert missing_values(lines, [marked]) == [], shown(app)
        # Said in one line, whole: the table's rows keep the room above it.
        note = screen.query_one("#numbers-floor")
        line = narrow_note(floor)
        assert note.region.height == 1 and line in "\n".join(lines), shown(app)
        assert cut_values(app) + cut_sentences(app) + cut_messages(app) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_review_marks_the_interval_and_says_why_under_its_figures(
    decided_run: Path, size: tuple[int, int]
) -> None:
    run_id, number, floor = floored(decided_run)
    app = Host(decided_run, run_id, reviewer="flo", include_unlabelled=True)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: app.review.numbers is not None, "the figures")
        await settle(pilot)
        lines = screen_lines(app)
        marked = f"{bounds(number['ci_low'], number['ci_high'])} †"
        assert missing_values(lines, [marked]) == [], shown(app)
        # Under 80 columns in fewer words, after the figures (`diptych show` says it whole).
        note = narrow_note(floor) if size[0] < 80 else FLOOR_NOTE
        assert words(note) in words("\n".join(lines)), shown(app)
        assert cut_values(app) + cut_messages(app) == [], shown(app)


def standings_interval(number: dict[str, object]) -> str:
    """The interval as the standings print it: `diptych show`'s, its name (too long for a
    column) said under the table against its own mark, ‡."""
    return marked_interval(number).removesuffix(f" ({number['interval_name']})") + " ‡"


def test_standings_print_the_interval_as_show_does_and_a_mark_means_one_thing(
    decided_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run decided at look 1 whose interval fell to its floor: `diptych show` and `diptych
    standings` print the same interval with the same †, and † is said of the floor only."""
    run_id, number, floor = floored(decided_run)
    code, out = call(capsys, "--store", str(decided_run), "show", run_id)
    # show's table folds the interval's name onto lines of its own: its bounds and mark whole.
    assert code == 0 and standings_interval(number).removesuffix(" ‡") in out
    code, out = call(capsys, "--store", str(decided_run), "standings")
    assert code == 0
    assert standings_interval(number) in out
    assert f"): {floor}" in words(out) and words(out).count("† ") == 2  # the cell and its note
    assert f"): {number['interval_name']}: the interval its gates decided on" in words(out)
    assert "† 95% anytime-valid" not in words(out)
    assert "interval over identities" not in out


@pytest.mark.parametrize("size", SIZES)
async def test_tui_standings_print_the_interval_as_show_does(
    decided_run: Path, size: tuple[int, int]
) -> None:
    run_id, number, floor = floored(decided_run)
    app = DiptychApp(decided_run, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_standings(pilot, runs=1)
        await wait_for(pilot, lambda: bool(screen.query(".ranks")), "the ranking")
        lines = screen_lines(app)
        assert missing_values(lines, [standings_interval(number)]) == [], shown(app)
        text = words(screen._page_text())
        assert f"): {floor}" in text and "† 95% anytime-valid" not in text
        assert text.count("† ") == 1 and text.count("‡ ") == 1  # the notes (the table's not here)
        assert f"): {number['interval_name']}" in text
