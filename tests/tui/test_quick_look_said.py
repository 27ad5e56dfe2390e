"""A run of 2 identities a side is a quick look, not a finding, in the terminal app as in
``diptych show`` and the report: Run detail marks each such figure's interval ``§`` and says
under the table what the mark means, in the words of ``core/report/quick_look.py``; Standings
marks the model's interval and says it under the table; New run says it at the top of the plan,
before the run starts. Each whole at 80×24 and 60×20. Run detail's ``n`` counts prompts or
answers with their noun, and a column says what the interval resamples (2 + 2 identities)."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import (
    SIZES,
    new_run_of,
    open_only_run,
    open_standings,
    settle,
    shown,
    wait_for,
    words,
)
from surface import cut_messages, cut_sentences, cut_values, missing_values, screen_lines
from textual.containers import VerticalScroll
from textual.widgets import SelectionList, Static

from diptych.core.report.formatting import bounds
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.plan import form_id
from diptych.tui.widgets.params_form import ParamsForm
from diptych.tui.widgets.whole_numbers import WholeNumbers

MASC = ["carpenter", "driver"]
FEM = ["nurse", "editor"]
PAIRED = "STS paired (expected from P(he), P(she))"
#: quick_look's words for 2 identities a side, worked out from its rule: fewer than 3 a side
#: decide nothing, a finding needs 4.
WHY = (
    "its interval rests on 2 identities a side, too few to decide anything; a finding needs "
    "at least 4 a side"
)
#: The same for a figure whose interval fell to its floor: it rests on the 2 × 2 pairings, as
#: its resamples column counts them (every identity of a list is planted alike).
WHY_FLOORED = WHY.replace("rests on 2", "rests on 4 pairings of 2")


@pytest.fixture
def two_a_side(scripted: None, workspace: Path) -> tuple[str, dict[str, object]]:
    """A pst-text run of 2 × 2 identities (both settings) and its paired STS (made before any
    event loop runs: the engine's run starts its own)."""
    planted = {**dict.fromkeys(MASC, 0.1), **dict.fromkeys(FEM, 0.9)}
    with Workspace.open(workspace) as ws:
        model = ("scripted-likelihood", {"p_feminine": planted, "noise": 0.02})
        run = ws.runs.run_sync("pst-text", [model], params={"masculine": MASC, "feminine": FEM})
        return run.id, dict(ws.audits.read(run.id).numbers[PAIRED])


@pytest.mark.parametrize("size", SIZES)
async def test_run_detail_marks_a_quick_look_and_says_why(
    workspace: Path, two_a_side: tuple[str, dict[str, object]], size: tuple[int, int]
) -> None:
    _, number = two_a_side
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_only_run(pilot, "#numbers-quick-look")
        lines = screen_lines(app)
        marked = f"{bounds(number['ci_low'], number['ci_high'])} §"
        # 2 × 2 scenes, each asked in both orders of its two people: 16 prompts.
        assert missing_values(lines, [marked, "16 prompts", "2 + 2 identities"]) == [], shown(app)
        assert "resamples" in "\n".join(lines), shown(app)
        note = screen.query_one("#numbers-quick-look", Static)
        said = f"§ a quick look, not a finding: {WHY}."
        floored = f"§ a quick look, not a finding: {WHY_FLOORED}."
        assert str(note.render()).splitlines() == [said, floored]
        top, height = note.region.y, note.region.height
        drawn = words(lines[top : top + height])
        assert height > 0 and said in drawn and floored in drawn, shown(app)
        assert cut_values(app) + cut_sentences(app) + cut_messages(app) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_standings_mark_a_quick_look_and_say_why(
    workspace: Path, two_a_side: tuple[str, dict[str, object]], size: tuple[int, int]
) -> None:
    run_id, _ = two_a_side
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_standings(pilot, runs=1)
        (table,) = screen.standings.tables
        (standing,) = table.standings
        figure = standing.figure
        marked = f"{bounds(figure.ci_low, figure.ci_high)} §"
        assert missing_values(screen_lines(app), [marked]) == [], shown(app)
        said = f"§ scripted-likelihood ({run_id[-8:]}): a quick look, not a finding: {WHY}"
        (note,) = [n for n in screen.query(".note").results(Static) if "§" in str(n.render())]
        assert said in str(note.render()).splitlines()
        # Read down to: the page scrolls it into view.
        screen.query_one("#body", VerticalScroll).scroll_to_widget(note, top=True, animate=False)
        await settle(pilot)
        box = note.content_region  # the page's scrollbar drawn beside it is not its text
        drawn = [line[box.x : box.right] for line in screen_lines(app)[box.y : box.bottom]]
        assert said in words(drawn), shown(app)
        assert cut_values(app) + cut_sentences(app) + cut_messages(app) == [], shown(app)


@pytest.mark.usefixtures("scripted")
@pytest.mark.parametrize("size", SIZES)
async def test_new_run_says_the_run_will_be_a_quick_look(
    workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=size) as pilot:
        screen = await new_run_of(pilot, "pst-text")
        screen.query_one("#models", SelectionList).select("scripted-likelihood")
        model_form = f"#{form_id('scripted-likelihood')}"
        await wait_for(pilot, lambda: bool(screen.query(model_form)), "model form")
        form = screen.query_one("#form-probe", ParamsForm)
        form.set_value("masculine", ",".join(MASC))
        form.set_value("feminine", ",".join(FEM))
        estimate = screen.query_one("#estimate", WholeNumbers)
        await wait_for(pilot, lambda: "quick look" in estimate.text.plain, "the caveat")
        await settle(pilot)
        said = f"a run of this design is a quick look, not a finding: {WHY}"
        # The plan as written, before its box wraps it (a WholeNumbers keeps costs whole).
        assert estimate.text.plain.startswith(said + "\n")
        plan = estimate.content_region  # its scrollbar drawn beside it is not its text
        drawn = [line[plan.x : plan.right] for line in screen_lines(app)[plan.y : plan.bottom]]
        assert said in words(drawn), shown(app)
        assert cut_sentences(app) + cut_messages(app) == [], shown(app)
