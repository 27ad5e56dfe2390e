"""Bought until decided (ctrl+g), a part no gate reads is never bought by the run: its row reads
"not run" from the run's first word on, never "waiting" first, and the line under the parts
says why; the gated part reads "running", then the look that decided it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from audit_fixtures import audit_workdir, planted_audit
from steps import SIZES, open_audit, wait_for
from textual.screen import Screen
from textual.widgets import Static

from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit import AuditScreen


@pytest.fixture
def audit_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    data = planted_audit("tui-seq")
    data["searches"] = [{"name": "identities", "kind": "identities", "target": "t",
                         "agent_model": "t", "probe": "pst-text", "rounds": 1, "per_round": 2,
                         "max_requests": 40}]  # fmt: skip
    with audit_workdir(tmp_path, monkeypatch, data) as path:
        yield path


def _changes(seen: list[str]) -> list[str]:
    return [words for i, words in enumerate(seen) if i == 0 or seen[i - 1] != words]


@pytest.mark.parametrize("size", SIZES)
async def test_a_part_no_gate_reads_is_not_run_from_the_start(
    audit_dir: Path, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, list[str]] = {"identities": [], "pst-text": []}
    summaries: list[str] = []
    display = DiptychApp._display

    def drawn(self: DiptychApp, screen: Screen[Any], renderable: Any) -> None:
        display(self, screen, renderable)
        if isinstance(screen, AuditScreen) and screen._runs_it():
            for part, words in seen.items():
                words.append(screen.status.get(part, ""))
            summaries.append(" ".join(str(screen.query_one("#summary", Static).render()).split()))

    monkeypatch.setattr(DiptychApp, "_display", drawn)
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        await pilot.press(*"audit.yaml", "enter")
        await wait_for(pilot, lambda: screen.plan is not None, "the plan")
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: screen.report is not None, "the report")
    # Said while it ran, in whichever frames were drawn before a small design was decided.
    said = [s for s in summaries if "identities is not run: no gate reads it" in s]
    assert said, summaries
    identities = [w for w in _changes(seen["identities"]) if w]
    assert identities == ["not run"], identities
    gated = [w for w in _changes(seen["pst-text"]) if w]
    assert "running" in gated[0] and "waiting" not in gated, gated
