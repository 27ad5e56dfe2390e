"""The New-run plan keeps each cost whole with its label at 80×24 and 60×20: "estimated cost
not" over "priced" reads as a label with half a value, "estimated" over "cost $0.37" as a
label with no value."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import open_new_run, settle, shown, wait_for
from surface import cut_values
from surface_costs import cost_parted
from textual.widgets import Input, SelectionList, Static

from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.plan import form_id

pytestmark = pytest.mark.surface


# Trials asked for, per terminal size, where the plan's first line ran into its cost: at 60
# columns "10,001 trials planned · 5 already stored ·" / "9,996 requests to run · estimated
# cost not" / "priced"; at 80, "8 trials planned … to run · estimated" / "cost $1.11".
@pytest.mark.parametrize(
    ("size", "trials"),
    [pytest.param((80, 24), 8, id="80x24"), pytest.param((60, 20), 10_001, id="60x20")],
)
@pytest.mark.parametrize(("price", "cost"), [("", "not priced"), ("0.37", "$")])
async def test_the_plan_keeps_a_cost_whole_with_its_label(
    snapshot_workspace: Path, size: tuple[int, int], trials: int, price: str, cost: str
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_new_run(pilot, "scripted")
        screen.query_one("#form-probe-n", Input).value = str(trials)
        screen.query_one("#models", SelectionList).select("scripted-likelihood")
        field = f"#{form_id('scripted-likelihood')}-price_per_call"
        await wait_for(pilot, lambda: bool(screen.query(field)), "the model's form")
        screen.query_one(field, Input).value = price
        estimate = screen.query_one("#estimate", Static)
        said = f"{trials:,} trials planned"
        await wait_for(
            pilot,
            lambda: said in shown(app) and f"estimated cost {cost}" in str(estimate.render()),
            "the plan",
            lambda: shown(app) + str(estimate.render()),
        )
        await settle(pilot)
        # The plan is in view whole: what the check reads is the plan's every line.
        assert "requests to run" in shown(app).split(said)[1], shown(app)
        assert cut_values(app) == [], shown(app)


def test_the_check_sees_not_priced_parted() -> None:
    assert cost_parted("9,996 requests to run · estimated cost not", "priced")
    assert not cost_parted("9,996 requests to run · estimated cost not priced", "  model: 1")
