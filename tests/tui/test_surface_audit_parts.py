"""The Audit screen of an audit bought until decided, at 80×24 and 60×20: every part's trials,
stored results, requests, cost and status drawn whole or brought into view by the keys, the
status saying what stopping saved; the audits the workspace recorded offered to open without
typing a path.

The audit is SmolLM2's example in small: one gated pst-text part on a scripted model whose
feminine identities get P(she) 0.8 and the masculine 0.2 (a paired expected STS near 60, far
below 95: decided at the first look), and an agent search no gate reads ("not run")."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from audit_fixtures import FIGURE, audit_workdir, planted_audit
from steps import SIZES, open_audit, settle, shown, surface, wait_for
from surface import cut_values, missing_values, screen_lines
from surface_keys import out_of_reach
from textual.containers import VerticalScroll
from textual.widgets import Input, OptionList, Static

from diptych.core.report.formatting import bounds
from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit import estimate_cells
from diptych.tui.screens.audit.rows import search_cells
from diptych.tui.widgets.fit_table import FitTable

pytestmark = pytest.mark.surface

#: The design's distinct requests (the paired setting of 6 by 6 identities), bought a tenth
#: a look, rounded up.
REQUESTS = 144


@pytest.fixture
def decided_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    data = planted_audit(
        "tui-decided",
        searches=[{"name": "identities", "kind": "identities", "target": "t",
                   "agent_model": "t", "probe": "pst-text", "rounds": 1, "per_round": 2,
                   "max_requests": 40}],
        gates=[{"part": "pst-text", "figure": FIGURE, "below": 95,
                "name": "paired expected STS shown below 95"}],
    )  # fmt: skip
    with audit_workdir(tmp_path, monkeypatch, data) as path:
        yield path


async def _decide(size: tuple[int, int]) -> None:
    """Buy the audit until its gate is decided, on the screen (ctrl+g)."""
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        # Nothing recorded yet: the screen says to type a path, and takes one.
        summary = screen.query_one("#summary", Static)
        await wait_for(pilot, lambda: "no audit recorded" in str(summary.render()), "the word")
        await pilot.press(*"audit.yaml", "enter")
        await wait_for(pilot, lambda: screen.plan is not None, "the plan")
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: screen.report is not None, "the report")


@pytest.mark.parametrize("size", SIZES)
async def test_every_parts_values_in_reach_of_the_keys(
    decided_dir: Path, size: tuple[int, int]
) -> None:
    await _decide(size)
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        # The audit recorded here, offered: Enter opens it, no path typed.
        recorded = screen.query_one("#recorded", OptionList)
        await wait_for(pilot, lambda: recorded.display and recorded.option_count == 1, "the list")
        offered = str(recorded.get_option_at_index(0).prompt)
        assert offered.startswith("tui-decided-") and " · decided at look " in offered, offered
        assert app.focused is recorded
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.plan is not None, "the plan")
        await wait_for(pilot, lambda: screen.status.get("identities") == "not run", "the rows")
        await wait_for(pilot, lambda: bool(screen.gates), "the gates")
        await settle(pilot)
        assert screen._file is not None and screen._file.name == "audit.yaml"
        # The part's status says the look it stopped at and what stopping there saved: each
        # look buys a tenth of the design's requests more, rounded up.
        status = screen.status["pst-text"]
        said = re.fullmatch(
            r"decided at look (\d+) of 10: (\d+) of (\d+) requests, (\d+) saved", status
        )
        assert said is not None, status
        look, bought, planned, saved = (int(x) for x in said.groups())
        assert planned == REQUESTS and bought == -(-look * REQUESTS // 10)
        assert saved == REQUESTS - bought
        plan = screen.plan
        assert plan is not None
        gated = next(p for p in plan.parts if p.part.name == "pst-text")
        assert gated.estimate is not None
        trials, stored, requests, cost = estimate_cells(gated.estimate)
        # What is left to run is what stopping saved.
        assert requests == f"{saved:,}"
        # The search's row: at least the trials its placebo words take before a proposal.
        search = next(p for p in plan.parts if p.part.name == "identities")
        assert search.placebo is not None
        searched, _, to_run, _ = search_cells(search.placebo)
        assert (
            searched
            == f"≥ {search.placebo.search.planned:,} (placebo words)"
            != "≥ 0 (placebo words)"
        )
        values = [trials, stored, f"requests to run: {requests}", f"cost: {cost}", status,
                  "identities", "not run", searched, f"requests to run: {to_run}"]  # fmt: skip
        # From where the screen leaves the focus, Down brings every value into view.
        parts = screen.query_one("#parts", FitTable)
        assert await out_of_reach(pilot, parts, values) == [], shown(app)
        # From the file's field, End brings the last part into view at its first press (the
        # Input's own End only moved its cursor: the parts took a Tab and a second End).
        body = screen.query_one("#body", VerticalScroll)
        body.scroll_home(animate=False)
        screen.query_one("#file", Input).focus()
        await settle(pilot)
        last = ["identities", "not run", searched]
        # At 80x24 the parts are in view from the top (the gates' table is after them); at
        # 60x20 the last is not (Down brings it, as above).
        hidden = await out_of_reach(pilot, parts, last, presses=0)
        assert (hidden == []) == (size == (80, 24)), hidden
        # End, at its first press, brings the body's end (the gates' table, after the parts).
        await pilot.press("end")
        await settle(pilot)
        assert body.max_scroll_y > 0 and body.scroll_y == body.max_scroll_y, shown(app)
        body.focus()
        assert await surface(pilot, leave=("ctrl+r", "ctrl+g", "ctrl+o", "escape")) == [], shown(
            app
        )


@pytest.mark.parametrize("size", SIZES)
async def test_a_recorded_gates_values_in_view_whole_as_it_opens(
    decided_dir: Path, size: tuple[int, int]
) -> None:
    """Opened from the list, no other key pressed: the gate's verdict, value, interval (and
    the look it was made at), level and rule each whole on a line of the first screen, under
    the gates' heading, itself whole."""
    await _decide(size)
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        recorded = screen.query_one("#recorded", OptionList)
        await wait_for(pilot, lambda: recorded.display and recorded.option_count == 1, "the list")
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(screen.gates), "the gates")
        await wait_for(pilot, lambda: screen.status.get("identities") == "not run", "the rows")
        await settle(pilot)
        (gate,) = screen.gates
        # The planted P(she) 0.8 against 0.2 puts the paired expected STS near 60: under 95,
        # a pass, its interval about it, at the first of the ten looks.
        assert gate.verdict == "pass" and 40 < float(gate.value) < 80, gate
        low, high = re.fullmatch(r"(−?[\d.]+) to (−?[\d.]+)", gate.interval).groups()  # type: ignore[union-attr]
        assert float(low.replace("−", "-")) < float(gate.value) < float(high), gate
        assert (gate.level, gate.rule) == ("95%", "below 95"), gate
        lines = screen_lines(app)
        # The interval beside its value on the verdict's line, as a table prints one.
        beside = bounds(gate.low, gate.high)
        assert beside == f"[{low}, {high}]", beside
        cells = ["PASS", gate.value, beside, gate.level, gate.rule, "look 1 of 10"]
        assert missing_values(lines, cells) == [], shown(app)
        assert cut_values(app) == [], shown(app)
        # The gate's name read whole (wrapped between its words at most), and the heading (the
        # audit's id, how many pass, why it stopped) in view too.
        said = " ".join(" ".join(line.strip(" │▁▂▃▄▅▆▇█▔") for line in lines).split())
        assert gate.label == "paired expected STS shown below 95" and gate.label in said, shown(app)
        assert " ".join(screen.gates_note.split()) in said, shown(app)
