"""Every decision-bearing number whole on the screen at 80×24, and what must stay at 60×20.

What is checked is the rendered screen (the text of the cells the terminal would show, read as
Textual's own screenshot reads them), not what a widget holds: a table that holds an interval
and draws "[4.8" fails. Then the tables' layout on its own (:func:`plan_columns`), with widths
worked out by hand; and the keys: Help opens at the screen it came from, and no key means two
things on one screen.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hosts import Host, start_session, text_run, write_gated_audit
from steps import (
    analysed,
    loaded,
    open_audit,
    open_detail,
    queued,
    row_shows,
    screen_lines,
    settle,
    show_section,
    wait_for,
)
from surface import missing_values
from textual.pilot import Pilot
from textual.screen import ModalScreen, Screen

from diptych.core.report.charts import charts_of
from diptych.core.report.formatting import bounds, counted, figure_text, no_interval, p_text
from diptych.tui.app import DiptychApp
from diptych.tui.formatting import interval, number
from diptych.tui.review.panels import format_estimate
from diptych.tui.review.queue import RESERVED_KEYS
from diptych.tui.review.screen import ReviewScreen
from diptych.tui.screens.agent.confirm import ConfirmAccept
from diptych.tui.screens.agent.screen import AgentScreen
from diptych.tui.screens.help import (
    EVERYWHERE,
    HelpScreen,
    collect_bindings,
    help_sections,
    screen_classes,
    screen_title,
)
from diptych.tui.screens.runs.detail import RunDetailScreen
from diptych.tui.widgets.fit_table import FitTable, lay_out, plan_columns, stack_row, wrap_cell
from diptych.tui.widgets.tables import ListTable

SMALL, TINY = (80, 24), (60, 20)


# --- Runs and Run detail --------------------------------------------------------------------


async def test_run_detail_at_80x24_shows_every_headline_and_micro_sts_number_whole(
    snapshot_workspace: Path,
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_detail(pilot)
        assert screen.result is not None
        lines = screen_lines(app)
        # Every section's title whole: none ends in "…" ("Expected STS per i…" did).
        for title in (
            "Headline figures",
            "Expected STS per identity (likelihood mode)",
            "STS by stereotyped gender (drawn labels)",
        ):
            assert any(line.strip().startswith(title) for line in lines), title
        assert not any("…" in line for line in lines)
        # Each headline figure with its value and its whole interval on its row's first line.
        assert await headlines_whole(pilot, screen) == 7

        title = next(t.title for t in screen.result.tables if t.title.startswith("Micro STS"))
        table = next(t for t in screen.result.tables if t.title == title)
        await show_section(pilot, screen, title)
        lines = screen_lines(app)
        keep = [table.columns.index(c) for c in ("identity", "STS paired", "paired 95% CI")]
        assert len(table.rows) == 4
        for row in table.rows:
            identity, paired, ci = (number(row[i]) for i in keep)
            # "-50.0" and "[-100.0, 50.0]", never "52." or "[-100".
            assert row_shows(lines, identity, [paired, ci]), (identity, "\n".join(lines))

        # A run without figures does not offer to write any.
        await show_section(pilot, screen, "Figures (0)")
        shown = "\n".join(screen_lines(app))
        assert "this analysis has no figures" in shown and "w writes" not in shown
        # ... and says what its report draws instead, as the report's figures/ holds.
        drawn = len(charts_of(screen.result, "run"))
        assert drawn and f"its report draws {counted(drawn, 'chart')}" in " ".join(shown.split())


async def test_at_60x20_intervals_ref_fail_flag_help_and_quit_stay(
    snapshot_workspace: Path,
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=TINY) as pilot:
        await loaded(3)(pilot)
        await settle(pilot)
        lines = screen_lines(app)
        header = lines[1].split()
        # The outcome counts keep their columns; models (and probe) give theirs up, and the
        # line under the table names the highlighted run's in full.
        assert header == ["run", "status", "prog", "done", "ref", "fail", "flag"]
        assert any("scripted-likelihood" in line for line in lines)
        assert "? Help" in lines[-1] and "q Quit" in lines[-1]

        screen = await open_detail(pilot)
        assert screen.result is not None
        lines = screen_lines(app)
        assert "? Help" in lines[-1] and "q Quit" in lines[-1]
        assert await headlines_whole(pilot, screen) == 7


async def headlines_whole(pilot: Pilot[Any], screen: RunDetailScreen) -> int:
    """How many headline figures, each brought into view in turn (the table scrolls: a long
    name wraps beside the columns of n and what the interval resamples), show their value
    and whole interval on their row's first line — or, the rows stacked at 60 columns, whole
    on the screen's lines."""
    assert screen.result is not None
    table = screen.query_one("#section-numbers", FitTable)
    assert table.plan is not None and table.plan.fits
    seen = 0
    for row, (name, num) in enumerate(screen.result.numbers.items()):
        table.move_cursor(row=row)
        await settle(pilot)
        lines = screen_lines(pilot.app)
        cells = [number(num["value"]), shown_interval(num)]
        if table.plan.stacked:
            assert missing_values(lines, cells) == [], (name, "\n".join(lines))
        else:
            first = wrap_cell(name, table.plan.widths[0]).splitlines()[0]
            if no_interval(num):
                # "no interval (a diagnostic)", as `diptych show` says it, may wrap in its
                # column: its value on the row's first line, its words read down the row.
                assert row_shows(lines, first, cells[:1], below=0), (name, "\n".join(lines))
                assert row_shows(lines, first, cells[1].split(), below=2), "\n".join(lines)
            else:
                assert row_shows(lines, first, cells, below=0), (name, "\n".join(lines))
        seen += 1
    return seen


# --- agreement tables of an image run -------------------------------------------------------


async def test_agreement_tables_at_80x24_show_each_value_and_interval(
    labelled_run: tuple[Path, str],
) -> None:
    ws, run_id = labelled_run
    app = DiptychApp(ws, refresh_interval=3600)
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(
            pilot, lambda: app.screen.query_one("#runs", ListTable).row_count == 1, "the run"
        )
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, RunDetailScreen)
        await analysed(pilot, screen)
        assert screen.result is not None
        checked = 0
        for index, table in enumerate(screen.result.tables):
            if not table.title.startswith(("Agreement", "Automatic annotators")):
                continue
            value = "κ" if "κ" in table.columns else "value"
            low_high = "κ 95% CI" if "κ 95% CI" in table.columns else "95% CI"
            await show_section(pilot, screen, table.title)
            lines = screen_lines(app)
            first = table.columns[0]
            for row in table.rows[:4]:
                cells = [number(row[table.columns.index(c)]) for c in (value, low_high)]
                name = str(row[table.columns.index(first)])
                # A long name wraps in its column ("Krippendorff's" over "α, all"); its value
                # and interval stay whole on the row's first line. A missing interval's reason
                # ("every resample of its 8 images gives 0.00") wraps in its column, or on the
                # lines of a row laid out as a record: every word of it under the row's name.
                head = name.split()[0]
                if cells[1].startswith("no interval ("):
                    starts = [i for i, t in enumerate(lines) if t.strip(" │█").startswith(head)]
                    blocks = [" ".join(" ".join(lines[i : i + 5]).split()) for i in starts]
                    words = [cells[0], *cells[1].split()]
                    assert any(all(w in b for w in words) for b in blocks), (cells, blocks)
                else:
                    if not (row_shows(lines, name, cells) or row_shows(lines, head, cells, 0)):
                        # A row under the pane's last (its intervals named under the table
                        # take a line) is a scroll away: it is whole there.
                        section = screen.query_one(f"#section-table-{index}")
                        rows = (
                            section
                            if isinstance(section, FitTable)
                            else section.query_one(FitTable)
                        )
                        rows.scroll_end(animate=False)
                        await settle(pilot)
                        lines = screen_lines(app)
                    assert row_shows(lines, name, cells) or row_shows(
                        lines, head, cells, below=0
                    ), (table.title, cells, "\n".join(lines))
                    ends = cells[1].strip("[]").split(", ")
                    assert len(ends) != 2 or ends[0] != ends[1], cells  # never of zero width
                checked += 1
        assert checked >= 4


# --- the Agent and Audit screens ------------------------------------------------------------


async def test_agent_table_at_80x24_shows_scores_q_and_the_decision(
    agent_tui: DiptychApp,
) -> None:
    app = agent_tui
    async with app.run_test(size=SMALL) as pilot:
        await start_session(pilot)
        screen = app.screen
        assert isinstance(screen, AgentScreen)
        await settle(pilot)
        rows = screen._rows.by_id
        assert len(rows) == 3
        lines = screen_lines(app)
        for row in rows.values():
            cells = [row.status]
            if row.score is not None and row.ci_low is not None and row.ci_high is not None:
                cells += [figure_text(row.score), bounds(row.ci_low, row.ci_high)]
            if row.q_value is not None:
                cells.append(p_text(row.q_value))
            # A row too wide for 80 columns (a q that reads "not tested") is stacked over the
            # lines under its id, each value whole.
            assert row_shows(lines, row.id, cells, below=2), (row.id, cells, "\n".join(lines))
        # The decision column, once there is a decision.
        table = screen.query_one("#agent-proposals", FitTable)
        table.move_cursor(row=table.get_row_index("r0p0"))
        await pilot.press("a")
        if rows["r0p0"].status != "finding":
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmAccept), "asking")
            await pilot.press("y")
        status = screen.query_one("#agent-status")
        await wait_for(pilot, lambda: "workspace's list" in str(status.render()), "the accept")
        await settle(pilot)
        assert row_shows(screen_lines(app), "r0p0", ["accepted"])


async def test_audit_gates_at_80x24_show_verdict_value_interval_level_and_rule(
    audit_dir: Path,
) -> None:

    write_gated_audit(audit_dir)
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_audit(pilot)
        await pilot.press(*"gated.yaml", "enter")
        await wait_for(pilot, lambda: screen.plan is not None, "the plan")
        await settle(pilot)
        # Not run yet: the rule of each gate whole.
        lines = screen_lines(app)
        for name in ("below 95", "below 10"):
            assert row_shows(lines, "not run yet", [name, name], below=0)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: len(screen.gates) == 2, "the decided gates")
        await settle(pilot)
        lines = screen_lines(app)
        for g in screen.gates:
            # The interval beside its value, as every table prints one ("[52.2, 65.1]").
            shown = bounds(g.low, g.high) if g.low is not None else g.interval
            cells = [g.label, g.value, shown, g.level, g.rule]
            assert row_shows(lines, g.verdict.upper(), cells), (cells, "\n".join(lines))


# --- the Review screen of a text run --------------------------------------------------------


async def test_review_of_a_text_run_speaks_of_prompts_and_shows_its_figures_whole(
    snapshot_workspace: Path,
) -> None:
    run_id = text_run(snapshot_workspace)
    app = Host(snapshot_workspace, run_id, reviewer="hal", include_unlabelled=True)
    async with app.run_test(size=SMALL) as pilot:
        review = app.review
        await queued(pilot, review)
        await settle(pilot)
        lines = screen_lines(app)
        shown = "\n".join(lines)
        assert "LEFT person · paired prompt" in shown and "image" not in shown
        # The figures line, wrapped but never cut: each STS figure with its interval, its n
        # counting prompts (or answers) as Run detail's does.
        box = review.query_one("#review-metrics").region
        metrics = " ".join(" ".join(line.split()) for line in lines[box.y : box.bottom])
        sts = {k: v for k, v in (review.numbers or {}).items() if "STS" in k}
        assert len(sts) == 4
        for name, estimate in sts.items():
            said = format_estimate(estimate, observation="prompt")
            assert f"{name} {said}" in metrics, (name, metrics)

        # A text has no image to zoom: z says so and zooms nothing.
        await pilot.press("z")
        await pilot.pause()
        assert not review.zoomed
        assert any("this output is a text" in n.message for n in review.said)


# --- Help and keys --------------------------------------------------------------------------


async def help_opened(pilot: Pilot[Any], key: str = "question_mark") -> list[str]:
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "the help")
    await settle(pilot)
    return screen_lines(pilot.app)


def first_help_line(lines: list[str]) -> str:
    """The first line of text inside the Help frame, under its intro if it is in view."""
    # The frame, the scrollbar and the blank cells around the text go.
    inside = [re.sub(r"[\u2580-\u259f]", " ", line).strip() for line in lines[1:]]
    return next(text for text in inside if text)


async def test_help_opens_at_the_section_of_each_screen_and_lists_its_keys(
    agent_tui: DiptychApp,
) -> None:
    app = agent_tui
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        lines = await help_opened(pilot)
        assert first_help_line(lines) == "Runs screen"
        await pilot.press("question_mark")  # ? closes it too
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen), "help closed")
        assert not app._exit  # the keys a dialog keeps to itself

        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AgentScreen), "the Agent screen")
        app.screen.query_one("#agent-proposals").focus()  # ? would type into a field
        lines = await help_opened(pilot)
        assert first_help_line(lines) == "Agent screen"
        shown = "\n".join(lines)
        for key, action in (("^s", "Start"), ("a", "Accept"), ("x", "Reject"), ("esc", "Back")):
            assert row_shows(lines, key, [action], below=0), (key, shown)
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, AgentScreen), "back home")

        await open_audit(pilot)
        lines = await help_opened(pilot, "f1")  # the file field has the focus: ? is typed
        assert first_help_line(lines) == "Audit screen"
        for key, action in (
            ("^r", "Run"),
            ("^g", "Until decided"),
            ("^o", "Report"),
            ("esc", "Back"),
        ):
            assert row_shows(lines, key, [action], below=0), (key, "\n".join(lines))


def test_no_key_means_two_things_on_a_screen_and_help_lists_every_key() -> None:
    sections = dict(help_sections(DiptychApp))
    screens = screen_classes()
    names = {s.__name__ for s in screens}
    assert {
        "RunsScreen",
        "NewRunScreen",
        "RunDetailScreen",
        "ReviewScreen",
        "AgentScreen",
        "AuditScreen",
        "PluginsScreen",
        "HelpScreen",
        "ConfirmAccept",
    } <= names
    everywhere = {(b.key, b.action) for b in sections[EVERYWHERE]}
    for screen in screens:
        # What is active on the screen (the focused widget aside): the app's keys (which a
        # dialog keeps out), Textual's Screen keys and the screen's own.
        app_keys = [] if issubclass(screen, ModalScreen) else collect_bindings(DiptychApp)
        active = app_keys + collect_bindings(screen)
        meanings: dict[str, set[str]] = {}
        for binding in active:
            meanings.setdefault(binding.key, set()).add(binding.action)
        doubled = {key: actions for key, actions in meanings.items() if len(actions) > 1}
        assert not doubled, f"{screen.__name__}: {doubled}"
        base = (Screen, ModalScreen)
        own = {(b.key, b.action) for b in collect_bindings(screen, skip=base)}
        listed = {(b.key, b.action) for b in sections[screen_title(screen)]}
        assert own <= listed, screen.__name__
        assert {(b.key, b.action) for b in active} <= listed | everywhere, screen.__name__
    # The Agent screen's a is Accept, and the app has no a of its own.
    assert "a" not in {b.key for b in collect_bindings(DiptychApp)}
    assert {("ctrl+s", "start"), ("a", "accept"), ("x", "reject")} <= {
        (b.key, b.action) for b in sections["Agent screen"]
    }
    assert {("ctrl+r", "run"), ("ctrl+o", "report")} <= {
        (b.key, b.action) for b in sections["Audit screen"]
    }


def test_a_probes_label_keys_never_take_a_key_of_the_review_screen() -> None:
    # A probe's own labels get keys assign_keys gives, which avoids RESERVED_KEYS: every
    # letter the Review screen (or the app) binds, but its own label keys m, f and c.
    reviews = [s for s in screen_classes() if issubclass(s, ReviewScreen)]
    assert ReviewScreen in reviews
    for screen in reviews:
        letters = {
            b.key
            for b in collect_bindings(screen) + collect_bindings(DiptychApp)
            if len(b.key) == 1 and b.key.isalpha() and b.key.islower()
        }
        assert letters - {"m", "f", "c"} <= RESERVED_KEYS, screen.__name__


# --- the layout, on its own -----------------------------------------------------------------


def test_a_table_that_fits_keeps_its_natural_widths() -> None:
    headers = ["identity", "STS single", "single 95% CI"]
    rows = [["mechanician", "-33.3", "[-100.0, 33.3]"]]
    # 11 + 10 + 14 and two cells of padding a column: 41.
    plan = plan_columns(headers, rows, 41)
    assert plan.fits and not plan.merged and plan.widths == [11, 10, 14]


def test_number_headers_wrap_then_intervals_go_under_their_values() -> None:
    headers = ["identity", "STS single", "single 95% CI"]
    rows = [["mechanician", "-33.3", "[-100.0, 33.3]"]]
    # One cell short: "STS single" gives it (its header wraps at "single", 6).
    assert plan_columns(headers, rows, 40).widths == [11, 9, 14]
    assert plan_columns(headers, rows, 37).widths == [11, 6, 14]
    # 34: 11 + 6 + 14 + 6 = 37 does not fit, and "mechanician" is a short text: the interval
    # goes under its value, one column of 14 (two of padding) beside the identity.
    plan = plan_columns(headers, rows, 34)
    assert plan.fits and plan.merged and plan.widths == [11, 14]
    assert plan.headers == ["identity", "STS single\n95% CI"]
    assert lay_out(plan, rows[0]) == ["mechanician", "-33.3\n[-100.0, 33.3]"]
    # 25: 11 + 14 + 4 = 29 even so, and neither a number nor a one-word name is broken: the
    # row becomes one cell of "header: value" items in the 23 cells inside its padding, the
    # interval under its header (29 cells beside it).
    plan = plan_columns(headers, rows, 25)
    assert plan.fits and plan.stacked and plan.widths == [23]
    assert lay_out(plan, rows[0], headers) == [
        "mechanician\nSTS single: -33.3\nsingle 95% CI:\n[-100.0, 33.3]"
    ]
    # 14: the interval (14) is wider than the 12 cells inside: the natural widths, scrolled
    # sideways.
    plan = plan_columns(headers, rows, 14)
    assert not plan.fits and not plan.stacked and plan.widths == [11, 10, 14]


def test_a_stacked_row_packs_its_items_and_leaves_out_empty_ones() -> None:
    headers = ["verdict", "gate", "figure", "value", "interval", "level", "rule"]
    row = ["PASS", "below 95", "pst-text · STS paired (expected from P(he), P(she))", "59.0",
           "[52.1, 65.9]", "95%", "below 95"]  # fmt: skip
    plan = plan_columns(headers, [row], 54)
    assert plan.stacked and plan.widths == [52]
    assert lay_out(plan, row, headers)[0].split("\n") == [
        "PASS · gate: below 95",
        "figure: pst-text · STS paired (expected from P(he),",
        "P(she))",
        "value: 59.0 · interval: [52.1, 65.9] · level: 95%",
        "rule: below 95",
    ]
    waiting = ["not run yet", "below 95", "pst-text · STS", "—", "—", "—", "below 95"]
    assert stack_row(headers, waiting, 30).split("\n") == [
        "not run yet · gate: below 95",
        "figure: pst-text · STS",
        "rule: below 95",
    ]


def test_a_long_name_wraps_before_any_number_moves() -> None:
    headers = ["figure", "value", "95% interval"]
    rows = [["STS paired (expected from P(he), P(she))", "1.70", "[-88.0, 88.7]"]]
    # Room 40 - 6 = 34; the numbers take 5 + 13; the name the 16 left.
    plan = plan_columns(headers, rows, 40)
    assert plan.fits and not plan.merged and plan.widths == [16, 5, 13]
    assert lay_out(plan, rows[0])[0] == "STS paired\n(expected from\nP(he), P(she))"


def test_a_column_with_no_value_yet_gives_way_before_a_short_text_wraps() -> None:
    headers = ["verdict", "value", "interval", "rule"]
    rows = [["not run yet", "—", "—", "not_above 95.5"]]
    # 11 + 5 + 8 + 14 + 8 = 46 > 40; the empty value and interval go: 11 + 14 + 4 = 29.
    plan = plan_columns(headers, rows, 40)
    assert plan.fits and plan.headers == ["verdict", "rule"]
    assert lay_out(plan, rows[0]) == ["not run yet", "not_above 95.5"]


def shown_interval(num: dict) -> str:
    """A headline figure's interval as Run detail draws it: its bounds, or why it has none."""
    return no_interval(num) or interval(num.get("ci_low"), num.get("ci_high"))
