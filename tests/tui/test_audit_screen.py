"""The Audit screen: open an audit file (key A), see its parts and plan, run it (ctrl+r) with
each part's status, and the report offered at the end; a snapshot at 80×24."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audit_fixtures import open_planned
from hosts import FIGURE, write_gated_audit
from steps import open_audit, wait_for
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit import AuditScreen
from diptych.tui.widgets.whole_numbers import WholeNumbers


def rows(screen: AuditScreen) -> list[list[str]]:
    table = screen.query_one("#parts", DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_open_plan_run_and_report(audit_dir: Path) -> None:
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_planned(pilot)
        assert rows(screen) == [
            ["pst", "probe", "pst", "4", "0", "4", "$0.16", "planned"],
            ["pst-table5", "mitigation", "pst", "4", "0", "4", "$0.16", "planned"],
        ]
        summary = screen.query_one("#summary", Static)
        assert (
            "8 trials planned, 0 already stored, 8 requests to run, estimated cost $0.32 of $1.00"
            in str(summary.render())
        )
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.report is not None, "the report")
        assert [r[-1] for r in rows(screen)] == ["complete", "complete"]
        assert "audit complete: cost $0.32" in str(summary.render())
        assert screen.report is not None and screen.report.name == "report.json"
        assert (audit_dir / "audit-tui-audit" / "report.md").exists()


async def test_a_bad_file_is_one_line_on_the_screen(audit_dir: Path) -> None:
    (audit_dir / "bad.yaml").write_text("audit: 1\nname: x\nmodels: {}\nprobes: []\n")
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_audit(pilot)
        await pilot.press(*"bad.yaml", "enter")
        summary = screen.query_one("#summary", Static)
        await wait_for(pilot, lambda: "error" in str(summary.render()), "the error")
        assert "bad.yaml:3: models:" in str(summary.render())


def test_snapshot_audit_80x24(snap_compare: Any, audit_dir: Path) -> None:
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)

    async def run_before(pilot: Pilot[Any]) -> None:
        await open_planned(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def gate_rows(screen: AuditScreen) -> list[list[str]]:
    table = screen.query_one("#gates", DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_gates_shown_first_with_their_verdicts(audit_dir: Path) -> None:
    # pst-text on a scripted likelihood model whose feminine identities get P(she) 0.8 and the
    # masculine 0.2: a paired expected STS near 60, shown below 95, not below 10.
    write_gated_audit(audit_dir)
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(140, 34)) as pilot:
        screen = await open_audit(pilot)
        await pilot.press(*"gated.yaml", "enter")
        table = screen.query_one("#gates", DataTable)
        await wait_for(pilot, lambda: table.row_count == 2, "the stated gates")
        # Before any run: the gates, each "not run yet", with its figure and rule.
        assert gate_rows(screen) == [
            ["not run yet", "below 95", f"pst-text · {FIGURE}", "—", "—", "—", "below 95"],
            ["not run yet", "below 10", f"pst-text · {FIGURE}", "—", "—", "—", "below 10"],
        ]
        # Above the parts, each gate on its own lines: the verdicts come first (the table of
        # their parts and figures follows the parts).
        verdicts = screen.query_one("#verdicts", WholeNumbers)
        parts = screen.query_one("#parts", DataTable)
        assert verdicts.region.y < parts.region.y < table.region.y
        assert verdicts.text.plain.splitlines() == [
            "not run yet · below 95 · rule: below 95",
            "not run yet · below 10 · rule: below 10",
        ]
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: len(screen.gates) == 2, "the decided gates")
        await pilot.pause()
        decided = gate_rows(screen)
        assert [r[0] for r in decided] == ["PASS", "FAIL"]
        value = float(decided[0][3])
        # The interval in the bracket form of every table of the app, not "low to high".
        low, high = bounds_of(decided[0][4])
        assert 40 < value < 80 and low < value < high < 95
        assert low > 10  # why "below 10" fails: the whole interval lies above it
        # Holm over two: the stronger verdict at 97.5% two-sided, the other at 95%.
        assert sorted(r[5] for r in decided) == ["95%", "97.5%"]
        note = str(app.screen.query_one("#gates-note").render())
        assert "1 of 2 pass" in note and "audit gate would exit 1" in note
        # The lines say what the table says, the interval's level and kind before it; its
        # bounds beside the value as a table prints an interval, "[low, high]".
        (first, second) = verdicts.text.plain.splitlines()
        level = decided[0][5]
        beside = [row[4] for row in decided]
        assert first == f"PASS  below 95 · {decided[0][3]} {beside[0]} · {level} fixed-design"
        assert second.startswith(f"FAIL  below 10 · {decided[1][3]} {beside[1]} · "), second


async def test_an_audit_without_gates_shows_no_gates_table(audit_dir: Path) -> None:
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_planned(pilot)
        assert not screen.query_one("#gates", DataTable).display
        assert not screen.query_one("#verdicts").display


async def test_a_report_written_earlier_opens_where_the_audit_recorded_it(
    audit_dir: Path,
) -> None:
    # The audit run to its report once (as `diptych audit run` would) ...
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_planned(pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.report is not None, "the report")
    # The audit's report.formats are json and md: its page is the Markdown one.
    html = audit_dir / "audit-tui-audit" / "report.md"
    # ... then opened afresh: Ctrl+O finds the report where the run wrote it.
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    opened: list[str] = []
    app.open_url = lambda url, **_: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_planned(pilot)
        await wait_for(pilot, lambda: screen.report is not None, "the recorded report")
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert opened == [html.resolve().as_uri()]
        # The page opened is said, not its folder: with no browser, that path is opened by hand.
        said = screen.query_one("#summary", WholeNumbers).text.plain
        assert said == f"report: {html.resolve()}", said


async def test_question_mark_in_the_path_field_opens_help_and_types_nothing(
    audit_dir: Path,
) -> None:
    from diptych.tui.screens.help import HelpScreen

    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_audit(pilot)
        field = screen.query_one("#file")
        await wait_for(pilot, lambda: field.has_focus, "the path field focused")
        await pilot.press(*"audit", "question_mark")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "the help")
        await pilot.press("escape")
        await wait_for(pilot, lambda: pilot.app.screen is screen, "the Audit screen again")
        assert field.value == "audit"  # type: ignore[attr-defined]


def bounds_of(cell: str) -> tuple[float, float]:
    """The bounds of an interval drawn "[low, high]" (its minus a true minus sign)."""
    assert cell.startswith("[") and cell.endswith("]"), cell
    low, high = cell[1:-1].replace("−", "-").split(", ")
    return float(low), float(high)
