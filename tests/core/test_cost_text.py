"""The one wording of a cost: a dollar figure only for what was priced, "not priced" for what
was not (computed on this machine, or a service with no price), both for a mix."""

from __future__ import annotations

import pytest

from diptych.core.cost import LOCAL, PRICED, SERVICE, Cost, cost_text
from diptych.core.report.formatting import dollars


@pytest.mark.parametrize(
    ("cost", "said"),
    [
        (12.5, "$12.50"),  # a budget, a plain amount
        (None, "not priced"),
        (Cost(1.2, priced=120), "$1.20"),
        (Cost(0.0, priced=40), "$0.00"),  # priced, and truly nothing
        (Cost(0.0), "$0.00"),  # nothing to buy
        (Cost(0.0, unpriced=1640, local=1640), "not priced (computed on this machine)"),
        (Cost(0.0, unpriced=1560), "not priced"),
        (Cost(0.0, unpriced=20, local=10), "not priced"),
        (Cost(1.2, priced=120, unpriced=300), "$1.20 + 300 requests not priced"),
        (Cost(1.2, priced=120, unpriced=1, local=0), "$1.20 + 1 request not priced"),
        (Cost(1234.5, priced=9, unpriced=1640, local=1640),
         "$1,234.50 + 1,640 requests computed on this machine"),
        (Cost(1.2, priced=1, unpriced=5, local=2),
         "$1.20 + 3 requests not priced + 2 requests computed on this machine"),
        # No request answered (every one failed, or none left to run): the models' kinds say.
        (Cost(0.0, kinds={SERVICE}), "not priced"),
        (Cost(0.0, kinds={LOCAL}), "not priced (computed on this machine)"),
        (Cost(0.0, kinds={PRICED}), "$0.00"),
        (Cost(0.0, kinds={PRICED, SERVICE}), "$0.00 + 0 requests not priced"),
        (Cost(1.2, priced=120, kinds={LOCAL}), "$1.20 + 0 requests computed on this machine"),
    ],
)  # fmt: skip
def test_a_cost_says_a_dollar_figure_only_for_what_was_priced(
    cost: float | None, said: str
) -> None:
    assert cost_text(cost) == said
    assert dollars(cost) == said  # the report's, the CLI's and the terminal app's formatter


def test_costs_add_up_with_their_counts_and_stay_numbers() -> None:
    local = Cost(0.0, unpriced=1640, local=1640)
    priced = Cost(0.25, priced=25)
    total = sum([local, priced])
    assert isinstance(total, Cost) and float(total) == 0.25
    assert (total.priced, total.unpriced, total.local) == (25, 1640, 1640)
    assert cost_text(total) == "$0.25 + 1,640 requests computed on this machine"
    # A model none of whose requests was answered keeps its kind in a sum.
    assert cost_text(sum([Cost(), Cost(kinds={SERVICE})])) == "not priced"
    # Arithmetic with a plain number is a plain number: a budget left, a price per request.
    assert type(priced - 0.05) is float and priced - 0.05 == pytest.approx(0.20)
    assert type(priced * 2) is float and round(priced, 6) == 0.25
    # A quarter of the requests: a quarter of the dollars and of each count.
    part = Cost(1.0, priced=400, unpriced=40, local=20).share(0.25)
    assert (float(part), part.priced, part.unpriced, part.local) == (0.25, 100, 10, 5)
