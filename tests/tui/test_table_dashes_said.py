"""A table's missing interval says why wherever a table of the analysis is printed, in the
report's words: marked "—*" with a line under the table that names the reason ("A dash marked
* has no interval: one partner only (paired); …"), in the tables `diptych run` and `diptych
agreement` print, beside `diptych show`'s headline figures, and in Run detail at 80×24 and 60×20;
κ of one person its raters agree on (n = 1) included."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from steps import SIZES, analysed, settle, show_section, shown
from surface import screen_lines

from diptych.cli.console import SafeConsole
from diptych.cli.render import print_result
from diptych.core.engine import run_probe
from diptych.core.metrics.agreement.coefficients import UNDEFINED_AGREEMENT
from diptych.core.metrics.agreement.results import LabelledSubject
from diptych.core.metrics.agreement.run import annotator_agreement
from diptych.core.metrics.agreement.tables import agreement_report_tables
from diptych.core.probe import ProbeResult
from diptych.core.report.missing_intervals import missing_marked
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.detail import RunDetailScreen
from diptych.tui.widgets.fit_table import FitTable
from tests.support.cli import call
from tests.support.surfaces.bare_dashes import (
    cells_bare_dash_problems,
    terminal_bare_dash_problems,
)

pytestmark = pytest.mark.surface

#: One masculine identity: the per-identity table's intervals of the feminine ones are missing.
PARAMS = ["masculine=carpenter", "feminine=nurse,editor,secretary", "setting=both"]
TABLE = "Expected STS per identity (likelihood mode)"
SAID = "A dash marked * has no interval: one partner only (paired)."


@pytest.fixture
def one_masculine(few_plugins: None, workspace: Path) -> tuple[Path, str]:
    with open_store(workspace) as store:
        run_id = run_probe(store, "pst-text", ["scripted-likelihood"], probe_params=PARAMS).id
    return workspace, run_id


def test_the_checks_find_a_bare_dash_and_an_unexplained_mark() -> None:
    box = "T\n┏━━━┳━━━━━━┓\n┃ a ┃ 95% CI ┃\n┡━━━╇━━━━━━┩\n│ x │ {} │\n└───┴──────┘\n{}\n"
    assert terminal_bare_dash_problems(box.format("—", "")) != []
    assert terminal_bare_dash_problems(box.format("—*", "")) != []
    assert (
        terminal_bare_dash_problems(box.format("—*", "A dash marked * has no interval: x.")) == []
    )
    assert cells_bare_dash_problems(["a", "95% CI"], [["x", "—"]], "", "t") != []


@pytest.mark.parametrize("columns", ["60", "80", "200"])
def test_run_and_show_print_no_bare_dash(
    one_masculine: tuple[Path, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    columns: str,
) -> None:
    ws, run_id = one_masculine
    monkeypatch.setenv("COLUMNS", columns)
    code, out = call(capsys, "--store", str(ws), "run", "pst-text", "-m", "scripted-likelihood",
                     *(a for p in PARAMS for a in ("-p", p)))  # fmt: skip
    assert code == 0, out
    assert TABLE in out and "—*" in out, out
    assert SAID in " ".join(out.split()), out
    assert terminal_bare_dash_problems(out) == [], out
    code, out = call(capsys, "--store", str(ws), "show", run_id)
    assert code == 0, out
    assert terminal_bare_dash_problems(out) == [], out


def test_kappa_of_one_person_says_why_it_has_none() -> None:
    alike = {"human:a": "feminine", "human:b": "feminine", "auto": "feminine"}
    report = annotator_agreement(
        [LabelledSubject("p1", "image1", None, alike)], unit="image", n_boot=50
    )
    tables = agreement_report_tables(report)
    kappas = [t for t in tables if any("CI" in c for c in t.columns)]
    assert kappas, [t.title for t in tables]
    for table in kappas:
        assert "n = 1" in UNDEFINED_AGREEMENT
        assert missing_marked(table).note.endswith(f"no interval: {UNDEFINED_AGREEMENT}.")
    file = io.StringIO()
    print_result(SafeConsole(file=file, width=80), ProbeResult(title="agreement", tables=tables))
    out = file.getvalue()
    assert "—*" in out and UNDEFINED_AGREEMENT in " ".join(out.split()), out
    assert terminal_bare_dash_problems(out) == [], out


@pytest.mark.parametrize("size", SIZES)
async def test_run_detail_tables_mark_a_missing_interval_and_say_why(
    one_masculine: tuple[Path, str], size: tuple[int, int]
) -> None:
    ws, run_id = one_masculine
    with Workspace.open(ws) as opened:
        titles = [t.title for t in opened.audits.read(run_id).tables]
    app = DiptychApp(ws, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = RunDetailScreen(run_id)
        await app.push_screen(screen)
        await analysed(pilot, screen)
        marked = 0
        for i, title in enumerate(titles):
            await show_section(pilot, screen, title)
            await settle(pilot)
            (table,) = [
                t
                for t in screen.query(FitTable)
                if t.id in (f"section-table-{i}", f"section-table-{i}-rows")
            ]
            pane = screen.query_one("#content").region
            note = " ".join(" ".join(screen_lines(app)[pane.y : pane.bottom]).split())
            rows = [cells for _, cells in table.source]
            marked += sum("—*" in c for r in rows for c in r)
            problems = cells_bare_dash_problems(table.headers, rows, note, title)
            assert problems == [], (problems, shown(app))
        assert marked, titles
