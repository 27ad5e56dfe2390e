"""``audit run --dry-run --until-decided --batches 50`` simulates 200 audits of up to 50 looks;
each look made the interval of every look before it again. Each look's interval is made once,
and what the simulation expects is the same."""

from __future__ import annotations

from typing import Any

import pytest

import diptych.core.audit.expected_spend as spend
import diptych.core.audit.sequential as sequential
from diptych.core.audit.gates import GateRule
from diptych.core.metrics.uncertainty.components import Components
from diptych.core.metrics.uncertainty.precision import PlannedDesign

DESIGN = PlannedDesign("grid", ("masculine identity", "feminine identity"), (10, 10), 4, "ids")
COMPONENTS = Components(5.0, 5.0, 0.0, 20.0, "stated", 0.0)
RULE = GateRule("g", "p", "f", "below", 25.0)
BATCHES = 20
REPLICATES = 4


def _on_the_limit() -> spend.ExpectedSpend:
    # On the limit: seldom decided, so nearly every replicate looks all BATCHES times.
    return spend.expected_spend(DESIGN, COMPONENTS, RULE, 25.0, bounds=(-100.0, 100.0),
                                batches=BATCHES, replicates=REPLICATES)  # fmt: skip


def test_each_simulated_look_makes_its_interval_once(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[int] = []
    figures: list[int] = []
    real_interval, real_figure = sequential.look_interval, spend._figure

    def counted_interval(fig: Any, *, complete: bool = False) -> Any:
        made.append(1)
        return real_interval(fig, complete=complete)

    def counted_figure(*args: Any) -> Any:
        fig = real_figure(*args)
        figures.append(fig is not None)
        return fig

    monkeypatch.setattr(sequential, "look_interval", counted_interval)
    monkeypatch.setattr(spend, "look_interval", counted_interval, raising=False)
    monkeypatch.setattr(spend, "_figure", counted_figure)
    _on_the_limit()
    # At most BATCHES looks in each of REPLICATES simulated audits, each look's interval once
    # (made again at every later look, it was up to 20·21/2 = 210 a replicate).
    assert len(made) == sum(figures) <= BATCHES * REPLICATES


def test_the_expected_spend_is_the_one_of_every_interval_made_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kept = _on_the_limit()
    real = sequential.anytime_figure
    monkeypatch.setattr(spend, "anytime_figure", lambda looks, tested_as=None: real(looks))
    assert _on_the_limit() == kept
