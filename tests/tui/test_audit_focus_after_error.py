"""After an error on the Audit screen (a path that does not exist, a file that does not
validate) the path's field keeps the focus and its whole text, the cursor at its end, so that
what is typed next mends the path; the error is one status line. At 80×24 and at 60×20."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from steps import open_audit, wait_for
from textual.pilot import Pilot
from textual.widgets import Input, Static

from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit import AuditScreen

BAD = "audit: 1\nname: x\nmodels: {}\nprobes: []\nbudget: {max_cost: -1}\n"


async def _refused(pilot: Pilot[Any], typed: str) -> tuple[AuditScreen, Static]:
    """The Audit screen after ``typed`` and Enter, and its summary saying the error."""
    screen = await open_audit(pilot)
    summary = screen.query_one("#summary", Static)
    await pilot.press(*typed, "enter")
    await wait_for(pilot, lambda: "error" in str(summary.render()), "the error")
    await pilot.pause()
    return screen, summary


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("missing.yaml", "error: cannot read the audit file missing.yaml"),
        ("bad.yaml", "error: bad.yaml:3: models:"),
    ],
)
async def test_the_path_keeps_the_focus_after_an_error(
    audit_dir: Path, size: tuple[int, int], typed: str, said: str
) -> None:
    (audit_dir / "bad.yaml").write_text(BAD)
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen, summary = await _refused(pilot, typed)
        field = screen.query_one("#file", Input)
        assert app.focused is field
        assert field.value == typed and field.cursor_position == len(typed)
        text = str(summary.render())
        # One status line: a file with several problems names its first and counts the rest.
        assert " ".join(text.split()).startswith(said)
        assert len(text.splitlines()) <= 2  # one line, wrapped at most once at 60 columns
        if typed == "bad.yaml":
            assert text.endswith("(+2 more problems)")
        # What is typed next lands at the path's end.
        await pilot.press("backspace", *"x")
        assert field.value == typed[:-1] + "x"


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_a_long_missing_path_is_said_with_its_reason(
    audit_dir: Path, size: tuple[int, int]
) -> None:
    typed = "nowhere/at/all/diptych/examples/audits/a-long-audit-file-name-offline.yaml"
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen, summary = await _refused(pilot, typed)
        lines = str(summary.render()).splitlines()
        # Every line drawn (the box as tall as its lines), the reason after the path read.
        assert summary.content_region.height == len(lines), lines
        assert "No such file or directory" in " ".join(lines), lines
        # The path breaks after a slash, never inside the file's name.
        assert any("a-long-audit-file-name-offline.yaml" in line for line in lines), lines
