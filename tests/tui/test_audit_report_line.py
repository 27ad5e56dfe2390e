"""The Audit screen's line after a run names the report ^o opens, from the directory diptych
was started in, marked so (``./audit-tui-audit/report.md``), or whole where it is elsewhere:
the line said "report audit-tui-audit/report.json (^o)", the data file by a path
relative to who knows where, while ^o opened ``/…/audit-tui-audit/report.html``, a page an
audit whose ``report.formats`` leave out html never writes: ^o opens its Markdown page then."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from audit_fixtures import open_planned
from steps import wait_for

from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit.keys import page_words, report_page
from diptych.tui.widgets.whole_numbers import WholeNumbers


@pytest.mark.parametrize(
    ("formats", "page"),
    [(["json", "md"], "report.md"), (["json", "html"], "report.html"), (["json"], "report.json")],
)
async def test_the_line_after_a_run_names_the_page_ctrl_o_opens(
    audit_dir: Path, formats: list[str], page: str
) -> None:
    data = yaml.safe_load((audit_dir / "audit.yaml").read_text())
    data["report"]["formats"] = formats
    (audit_dir / "audit.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    shown = (audit_dir / "audit-tui-audit" / page).resolve()
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    opened: list[str] = []
    app.open_url = lambda url, **_: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_planned(pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.report is not None, "the report")
        await pilot.pause()
        said = screen.query_one("#summary", WholeNumbers).text.plain
        assert Path.cwd().resolve() == audit_dir.resolve()
        assert said.endswith(f" · report ./audit-tui-audit/{page} (^o)"), said
        assert shown.is_file()
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert opened == [shown.as_uri()]


def test_a_page_outside_the_start_directory_is_named_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "here").mkdir()
    (tmp_path / "audit-x").mkdir()
    (tmp_path / "audit-x" / "report.json").write_text("{}")
    (tmp_path / "audit-x" / "report.html").write_text("<p>")
    monkeypatch.chdir(tmp_path / "here")
    page = report_page(Path("../audit-x/report.json"))
    assert page == (tmp_path / "audit-x" / "report.html").resolve()
    assert page_words(page) == str(tmp_path.resolve() / "audit-x" / "report.html")
    monkeypatch.chdir(tmp_path)
    assert page_words(page) == "./audit-x/report.html"
