"""Review's title says which reasons the queue shows at every width: "all reasons" where no
reason is chosen, drawn whole (on a row of its own where the line is short), never left out."""

from __future__ import annotations

from pathlib import Path

import pytest
from hosts import Host
from steps import queued, settle, shown, wait_for
from textual.widgets import Static


def title_rows(app: Host) -> list[str]:
    return str(app.screen.query_one("#review-title", Static).render()).split("\n")


@pytest.mark.parametrize("size", [(80, 24), (70, 24), (66, 24), (60, 20)])
async def test_the_title_names_all_reasons_whole(
    review_run: tuple[Path, str], size: tuple[int, int]
) -> None:
    ws, run_id = review_run
    app = Host(ws, run_id, reviewer="newcomer")
    async with app.run_test(size=size) as pilot:
        review = app.review
        await queued(pilot, review)
        await settle(pilot)
        await wait_for(pilot, lambda: "labelled" in " ".join(title_rows(app)), "the title")
        rows = title_rows(app)
        assert rows[-1].rstrip().endswith("all reasons"), shown(app)
        assert all(len(row.rstrip()) <= size[0] - 2 for row in rows), rows
        assert "reviewer newcomer" in " ".join(rows), rows
