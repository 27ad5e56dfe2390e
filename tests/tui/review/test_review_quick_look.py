"""A run of 2 identities a side is a quick look, not a finding, on the Review screen as in Run
detail and the report: each such figure's interval is marked ``§`` and the words of
``core/report/quick_look.py`` are said whole under the figures, at 80×24 and 60×20. A figure's
``n`` counts the probe's observations with their noun ("16 prompts"), as Run detail's does, and
an interval that fell to its floor is said to rest on its pairings in the caveat too, as its
``resamples`` counts them ("4 pairings")."""

from __future__ import annotations

from pathlib import Path

import pytest
from hosts import Host
from steps import SIZES, open_only_run, settle, shown, wait_for
from surface import cut_messages, cut_values, missing_values, screen_lines

from diptych.core.report.formatting import bounds
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp

MASC = ["carpenter", "driver"]
FEM = ["nurse", "editor"]
PAIRED = "STS paired (expected from P(he), P(she))"
SINGLE = "STS single (expected from P(he), P(she))"
#: quick_look's words, worked out from its rule (fewer than 3 a side decide nothing, a finding
#: needs 4) and the floor's: 2 × 2 identities make 4 pairings.
FLOORED = (
    "§ a quick look, not a finding: its interval rests on 4 pairings of 2 identities a side, "
    "too few to decide anything; a finding needs at least 4 a side."
)
OVER_THE_LISTS = (
    "§ a quick look, not a finding: its interval rests on 2 identities a side, too few to "
    "decide anything; a finding needs at least 4 a side."
)


@pytest.fixture
def two_a_side_floored(scripted: None, workspace: Path) -> tuple[str, dict[str, dict]]:
    """A pst-text run of 2 × 2 identities with no stereotype planted: its paired figure's
    interval falls to its floor (the identities vary no more than their pairings), its single
    one does not."""
    with Workspace.open(workspace) as ws:
        params = {"p_feminine": dict.fromkeys(MASC + FEM, 0.5), "noise": 0.02, "version": "3"}
        run = ws.runs.run_sync(
            "pst-text",
            [("scripted-likelihood", params)],
            params={"masculine": MASC, "feminine": FEM},
        )
        numbers = ws.audits.read(run.id).numbers
    assert numbers[PAIRED].get("floor") and not numbers[SINGLE].get("floor")
    return run.id, {k: dict(v) for k, v in numbers.items()}


def words(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


@pytest.mark.parametrize("size", SIZES)
async def test_review_marks_a_quick_look_and_says_why_as_run_detail_does(
    workspace: Path, two_a_side_floored: tuple[str, dict[str, dict]], size: tuple[int, int]
) -> None:
    run_id, numbers = two_a_side_floored
    paired, single = numbers[PAIRED], numbers[SINGLE]
    app = Host(workspace, run_id, reviewer="flo", include_unlabelled=True)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: app.review.numbers is not None, "the figures")
        await settle(pilot)
        lines = screen_lines(app)
        # 2 × 2 scenes, each asked in both orders of its two people: 16 paired prompts; the
        # single setting asks each of the 4 identities once.
        expected = [
            f"{bounds(paired['ci_low'], paired['ci_high'])} † § 16 prompts",
            f"{bounds(single['ci_low'], single['ci_high'])} § 4 prompts",
        ]
        assert missing_values(lines, expected) == [], shown(app)
        said = words(lines)
        assert FLOORED in said and OVER_THE_LISTS in said, shown(app)
        assert "n=" not in said, shown(app)
        assert cut_values(app) + cut_messages(app) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_run_detail_says_the_floored_quick_look_in_the_same_words(
    workspace: Path, two_a_side_floored: tuple[str, dict[str, dict]], size: tuple[int, int]
) -> None:
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await open_only_run(pilot, "#numbers-quick-look")
        said = words(screen_lines(app))
        assert "4 pairings" in said and FLOORED in said, shown(app)
