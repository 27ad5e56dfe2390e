"""The report shows the estimated cost of a paid run beside what the service reported, and
prints names from files with their control characters escaped."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import markupsafe
import pytest

import diptych.testing
from diptych.core import plugins
from diptych.core.report.audit import ActualCost
from diptych.core.report.render import _environment
from diptych.core.workspace import Workspace
from diptych.testing.scripted import ScriptedChat


class BilledChat(ScriptedChat):
    """A chat model whose service reports each answer's cost, as OpenAI's usage does."""

    name = "billed-chat"

    def provenance(self) -> dict[str, Any]:
        return {**super().provenance(), "cost_usd": 0.003}


class LocalChat(ScriptedChat):
    """A chat model computed in this process (as llama.cpp's are), with no price."""

    name = "local-chat"

    def __init__(self, params: Any = None) -> None:
        super().__init__(params)
        self.hints.blocking = True


@pytest.fixture
def billed() -> Iterator[None]:
    plugins.load_plugins()

    def register_models(register: Callable[[type], None]) -> None:
        register(BilledChat)
        register(LocalChat)

    names = [
        plugins.register_plugin(diptych.testing, "testing"),
        plugins.register_plugin(plugins.plugin_module(register_models=register_models), "billed"),
    ]
    yield
    for name in names:
        plugins.unregister_plugin(name)


def test_the_report_shows_estimated_beside_actual_cost(billed: None, tmp_path: Path) -> None:
    with Workspace.open(tmp_path / "ws") as ws:
        model = ws.plugins.model(("billed-chat", {"price_per_call": 0.01}))
        run = ws.runs.run_sync("scripted", [model], params={"n": 4, "capability": "chat"})
        ws.analysis.report(run.id, tmp_path / "out")
    data = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    (part,) = data["runs"]
    # Declared price: 4 calls x $0.01; reported by the service: 4 x $0.003.
    assert part["cost_usd"] == pytest.approx(0.04)
    assert part["cost_actual_usd"] == pytest.approx(0.012)
    assert part["cost_actual_calls"] == {"reported": 4, "answered": 4}
    md = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "| estimated cost | actual cost |" in md and "| $0.04 | $0.01 |" in md
    assert "$0.04 estimated, $0.01 actual" in md  # the scope line
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert '<td class="num">$0.04</td><td class="num">$0.01</td>' in html


def test_the_report_gives_no_dollar_figure_for_calls_with_no_price(
    billed: None, tmp_path: Path
) -> None:
    """A local model alone: "not priced (computed on this machine)", never "$0.00", its actual
    cost in the same words as its estimate (never "not reported": nothing had a price a service
    could report); beside a priced one (4 calls at $0.01): both."""
    with Workspace.open(tmp_path / "ws") as ws:
        local = ws.plugins.model(("local-chat", {}))
        alone = ws.runs.run_sync("scripted", [local], params={"n": 4, "capability": "chat"})
        ws.analysis.report(alone.id, tmp_path / "alone")
        priced = ws.plugins.model(("billed-chat", {"price_per_call": 0.01}))
        chat = {"n": 4, "capability": "chat"}
        mixed = ws.runs.run_sync("scripted", [priced, local], params=chat)
        ws.analysis.report(mixed.id, tmp_path / "mixed")
    md = (tmp_path / "alone" / "report.md").read_text(encoding="utf-8")
    assert "· not priced (computed on this machine)." in md  # the scope line
    assert "| not priced (computed on this machine) |" in md and "$0.00" not in md
    unpriced = "not priced (computed on this machine)"
    assert f"| {unpriced} | {unpriced} |" in md and "not reported" not in md, md
    html = (tmp_path / "alone" / "report.html").read_text(encoding="utf-8")
    assert f'<td class="count">{unpriced}</td><td class="count">{unpriced}</td>' in html
    assert "not reported" not in html
    data = json.loads((tmp_path / "alone" / "report.json").read_text(encoding="utf-8"))
    assert data["runs"][0]["cost_usd"] is None  # null: not priced, as docs/reports.md says
    md = (tmp_path / "mixed" / "report.md").read_text(encoding="utf-8")
    assert "· $0.04 + 4 requests computed on this machine estimated, $0.01 actual." in md


def test_the_scope_table_wraps_its_costs_at_a_laptops_width(
    billed: None, tmp_path: Path, browser: Any
) -> None:
    """Appendix A's scope table at 1280 px: a cost in words ("$0.04 + 4 requests computed on
    this machine") wraps in its cell, so the table fits and its actual cost is in view."""
    from concurrent.futures import ThreadPoolExecutor

    from tests.support.surfaces.screen import tables_scrolling

    def write() -> None:
        with Workspace.open(tmp_path / "ws") as ws:
            priced = ws.plugins.model(("billed-chat", {"price_per_call": 0.01}))
            local = ws.plugins.model(("local-chat", {}))
            chat = {"n": 4, "capability": "chat"}
            mixed = ws.runs.run_sync("scripted", [priced, local], params=chat)
            ws.analysis.report(mixed.id, tmp_path / "mixed")

    # Off the browser's event loop: a run drives one of its own.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(write).result()
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto((tmp_path / "mixed" / "report.html").resolve().as_uri(), wait_until="load")
        assert "computed on this machine" in page.inner_text("#scope + * + .scroll")
        assert tables_scrolling(page) == []
    finally:
        page.close()


def test_an_actual_cost_reported_for_some_calls_says_how_many() -> None:
    assert ActualCost(0.5, 3, 4).text == "$0.50 (3 of 4 calls reported)"
    assert ActualCost(None, 0, 4).text == "not reported"
    assert ActualCost(0.5, 4, 4).text == "$0.50"


def test_report_templates_print_control_characters_escaped() -> None:
    md = _environment(False).from_string("{{ name }} {{ n }}")
    assert md.render(name="pi\x1b[2Jlot", n=3) == "pi\\x1b[2Jlot 3"
    html = _environment(True).from_string("{{ name }} {{ safe }}")
    shown = html.render(name="<b>\x1b[2J", safe=markupsafe.Markup("<i>\x07</i>"))
    assert shown == "&lt;b&gt;\\x1b[2J <i>\\x07</i>"
