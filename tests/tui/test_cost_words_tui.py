"""The terminal app says a cost in the one wording of the CLI and the report
(diptych.core.cost): the New run plan and the Audit screen's parts give no dollar figure for
requests with no price."""

from __future__ import annotations

import pytest

from diptych.core.cost import Cost
from diptych.core.engine.planning import Estimate
from diptych.tui.screens.audit import estimate_cells
from diptych.tui.screens.new_run.plan import estimate_text


def _estimate(cost: Cost, unpriced: int = 0) -> Estimate:
    per_model = {"smollm2": {"planned": 1720.0, "to_run": 1640.0, "cost": cost}}
    return Estimate(planned=1720, cached=80, to_run=1640, cost=cost, unpriced=unpriced,
                    per_model=per_model)  # fmt: skip


@pytest.mark.parametrize(
    ("cost", "said"),
    [
        (Cost(0.0, unpriced=1640, local=1640), "not priced (computed on this machine)"),
        (Cost(16.4, priced=1640), "$16.40"),
        (Cost(0.0, priced=1640), "$0.00"),
        (Cost(8.2, priced=820, unpriced=820, local=820),
         "$8.20 + 820 requests computed on this machine"),
    ],
)  # fmt: skip
def test_the_new_run_plan_and_the_audit_parts_say_a_cost_in_one_wording(
    cost: Cost, said: str
) -> None:
    text = estimate_text(_estimate(cost), None).plain
    assert f"estimated cost {said}" in text, text
    assert f"smollm2: 1,720 trials planned, 1,640 requests to run, {said}" in text, text
    assert estimate_cells(_estimate(cost))[3] == said
    if "$" not in said:
        assert "$" not in text
