"""A command of "How to reproduce this report" fits its box on a phone however long its
identity lists: it wraps between its words and after its lists' commas, never inside an item,
and the phone check finds a command kept on one line past its box.

The report of a gated run in ``test_surfaces.py`` carries lists of four identities, whose
``masculine=…`` word fits a phone's box unbroken: the report here carries lists as long as a
reader's, wider than a phone as one word."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from diptych.core.report.render import command_html
from tests.support.sequential_audits import FIGURE
from tests.support.surfaces.planted import planted_page
from tests.support.surfaces.reproduce import shell_env
from tests.support.surfaces.screen import screen_problems

pytestmark = pytest.mark.surface

CSS = Path(__file__).parents[3] / "diptych" / "core" / "report" / "templates" / "report.css"
MASCULINE = "carpenter,farmer,guard,mover,janitor,laborer,sheriff,mechanician,developer,physician"
COMMAND = (
    f"diptych --store ../.. run pst-text --model scripted-likelihood -p masculine={MASCULINE} "
    "-p feminine=nurse,editor,secretary,cashier,librarian,receptionist,housekeeper "
    "--gate 'STS paired (expected from P(he), P(she)) below 95' --until-decided"
)


def _page(tmp_path: Path, command: str) -> Path:
    style = CSS.read_text(encoding="utf-8")
    return planted_page(
        tmp_path, f"<style>{style}</style><pre tabindex='0'><code>{command}</code></pre>"
    )


def test_a_long_list_wraps_inside_its_box_on_a_phone(tmp_path: Path, browser: Any) -> None:
    assert screen_problems(_page(tmp_path, str(command_html(COMMAND))), browser) == []


def test_a_list_kept_on_one_line_past_its_box_is_found(tmp_path: Path, browser: Any) -> None:
    kept = str(command_html(COMMAND)).replace(
        MASCULINE.replace(",", ',</span><wbr><span class="nowrap">'), MASCULINE
    )
    assert f"masculine={MASCULINE}</span>" in kept
    found = screen_problems(_page(tmp_path, kept), browser)
    assert [p.split(" content")[0] for p in found] == ["phone: <pre id='' class=''>"], found


def test_a_gated_runs_command_with_long_lists_fits_a_phone(tmp_path: Path, browser: Any) -> None:
    lists = f"-p masculine={MASCULINE} -p feminine=nurse,editor,secretary,cashier,librarian"
    done = subprocess.run(
        ["sh", "-c", f"diptych --store ws run pst-text --model scripted-likelihood {lists} "
         f"--gate '{FIGURE} below 95' --until-decided --batches 4 --quiet"],
        cwd=tmp_path, env=shell_env(tmp_path / "bin"), capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    report = tmp_path / "ws" / "gate-reports" / "run-pst-text"
    page = (report / "report.html").read_text(encoding="utf-8")
    assert f"masculine={MASCULINE.split(',')[0]}," in page
    assert screen_problems(report / "report.html", browser) == []
