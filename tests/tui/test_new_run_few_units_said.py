"""New run says the warning ``diptych run`` prints before it buys a design of too few
identities a side ("warning: … too wide to say anything; use at least 4 per list"), in the
same words, at the top of the plan where it is read before ctrl+s: a ctrl+s pressed before the
plan was in does not start the run unseen, it shows the plan with the warning first and the
next ctrl+s starts it. Whole at 80×24 and 60×20."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import SIZES, choose_probe, settle, shown, wait_for
from surface import cut_messages, cut_sentences, screen_lines
from textual.widgets import SelectionList, Static

from diptych.cli.precision import few_units_warning
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.plan import form_id
from diptych.tui.screens.new_run.screen import NewRunScreen
from diptych.tui.widgets.params_form import ParamsForm

FEM = ["nurse", "editor", "secretary", "librarian"]
#: Each design, and words of the CLI's warning worked out from its rule: one a side gives no
#: interval (2 needed); 2 or 3 a side a t interval too wide to say anything (4 needed).
DESIGNS = {
    "one masculine": (["carpenter"], "no interval at all; use at least 2"),
    "two a side": (["carpenter", "driver"], "too wide to say anything; use at least 4 per list"),
}


def words(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


def cli_warning(workspace: Path, masculine: list[str]) -> str:
    """What ``diptych run`` prints before buying the design, by the function it prints it
    with."""
    params = [f"masculine={','.join(masculine)}", f"feminine={','.join(FEM)}"]
    probe = Workspace.plugins.probe("pst-text", params)
    with Workspace.open(workspace) as ws:
        said = few_units_warning(ws.runs.bound(probe))
    assert said is not None
    return said


@pytest.mark.usefixtures("scripted")
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("design", list(DESIGNS))
async def test_new_run_says_the_clis_few_units_warning_before_it_starts(
    workspace: Path, design: str, size: tuple[int, int]
) -> None:
    masculine, rule = DESIGNS[design]
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=size) as pilot:
        await pilot.press("n")
        screen = app.screen
        assert isinstance(screen, NewRunScreen)
        await choose_probe(pilot, "pst-text")
        screen.query_one("#models", SelectionList).select("scripted-likelihood")
        model_form = f"#{form_id('scripted-likelihood')}"
        await wait_for(pilot, lambda: bool(screen.query(model_form)), "model form")
        form = screen.query_one("#form-probe", ParamsForm)
        form.set_value("masculine", ",".join(masculine))
        form.set_value("feminine", ",".join(FEM))
        # Started at once, before the plan of the form is in.
        await pilot.press("ctrl+s")
        estimate = screen.query_one("#estimate", Static)
        await wait_for(pilot, lambda: "warning:" in str(estimate.render()), "the warning")
        await settle(pilot)
        assert app.screen is screen, "the run started before its warning was said"
        said = cli_warning(workspace, masculine)
        assert rule in said and said.startswith("warning: ")
        plan = estimate.content_region  # its scrollbar drawn beside it is not its text
        rows = screen_lines(app)[plan.y : plan.bottom]
        drawn = words([line[plan.x : plan.right] for line in rows])
        assert said in drawn, shown(app)
        assert "^s again starts the run" in drawn, shown(app)
        assert cut_sentences(app) + cut_messages(app) == [], shown(app)
        # Said once, the next ctrl+s starts the run.
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is not screen, "the run started")
