"""The report's surfaces checked by class of defect, on any report a test writes.

One entry, :func:`report_problems`, runs every check that applies to a written report: its text
(:mod:`.text`, :mod:`.interval_kinds` and the intervals' forms of :mod:`.whole_intervals`,
always), its screens at a phone's and a laptop's width (:mod:`.screen`, given a browser), its
paper (:mod:`.paper`, given a browser and the PDF) and its reproduce commands
(:mod:`.reproduce`, given where the report was written from).
``tests/core/report/test_surfaces.py`` and ``test_surfaces_of_the_audit.py`` run them all on
one report of each kind; every other report a test writes gets the text checks
(``tests/conftest.py``). ``pytest -m surface`` runs the lot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.surfaces.chart_intervals import chart_table_problems
from tests.support.surfaces.group_order import group_order_problems
from tests.support.surfaces.interval_kinds import interval_kind_problems
from tests.support.surfaces.paper import paper_problems
from tests.support.surfaces.reproduce import offer_problems, reproduce_problems, shell_env
from tests.support.surfaces.screen import screen_problems
from tests.support.surfaces.text import text_problems
from tests.support.surfaces.whole_intervals import report_form_problems


def report_problems(
    report_dir: Path,
    *,
    browser: Any = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    store: Path | None = None,
) -> list[str]:
    """Every defect the checks find in the report written to ``report_dir``."""
    problems = text_problems(report_dir) + interval_kind_problems(report_dir)
    problems += report_form_problems(report_dir)
    problems += group_order_problems(report_dir)
    html = report_dir / "report.html"
    if browser is not None and html.is_file():
        problems += [f"screen {p}" for p in screen_problems(html, browser)]
        if (report_dir / "report.pdf").is_file():
            problems += [
                f"paper: {p}" for p in paper_problems(report_dir / "report.pdf", html, browser)
            ]
    markdown, page = (
        (report_dir / name).read_text(encoding="utf-8") if (report_dir / name).is_file() else ""
        for name in ("report.md", "report.html")
    )
    problems += [f"reproduce: {p}" for p in offer_problems(markdown)]
    problems += chart_table_problems(markdown, page)
    if cwd is not None and env is not None and (report_dir / "report.md").is_file():
        problems += [
            f"reproduce: {p}" for p in reproduce_problems(report_dir / "report.md", cwd, env, store)
        ]
    return problems


def assert_report_surfaces(report_dir: Path, **kwargs: Any) -> None:
    """Fail with every defect found, one a line."""
    problems = report_problems(report_dir, **kwargs)
    assert not problems, f"{len(problems)} surface defects in {report_dir}:\n" + "\n".join(problems)


__all__ = ["assert_report_surfaces", "report_problems", "shell_env"]
