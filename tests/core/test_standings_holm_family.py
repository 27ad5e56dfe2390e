"""Holm's family in the standings is the pairs that had a test: a pair without an interval
(no test, p shown as —) is no member, so it neither raises the other pairs' adjusted p nor
counts in the family size the table prints."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from diptych.core.report.standings_tables import standings_text
from diptych.core.standings import DesignTable, rank_table, standings
from diptych.core.standings import table as table_module
from tests.core.test_standings_zero_spread import crossed, measured, sample

#: The p of each pair in the order rank_table forms them (None: no interval, so no test).
P_VALUES: list[float | None] = [0.01, None, 0.04, None, 0.03, None]


def _models() -> list[Any]:
    # Four spread-out models, so that every pair has an interval before its p is replaced.
    return [
        measured(
            sample(m, {c: level + 0.01 * (k % 3) for k, c in enumerate(crossed(4))}),
            f"run-{m}",
        )
        for m, level in (("a", 0.1), ("b", 0.2), ("c", 0.3), ("d", 0.4))
    ]


@pytest.fixture
def planted(monkeypatch: pytest.MonkeyPatch) -> None:
    real = table_module.difference_of
    given = iter(P_VALUES)

    def fixed_p(*args: Any, **kwargs: Any) -> Any:
        d = real(*args, **kwargs)
        p = next(given)
        if p is None:
            return replace(d, inference=replace(d.inference, reason="one identity only"))
        return replace(d, inference=replace(d.inference, p_value=p))

    monkeypatch.setattr(table_module, "difference_of", fixed_p)


@pytest.mark.usefixtures("planted")
def test_an_untested_pair_is_not_in_holms_family() -> None:
    standings, pairs = rank_table(_models())
    tested = {p.difference.p_value: p.p_holm for p in pairs if p.tested}
    # Holm by hand on the three tested p's, m = 3: 0.01·3, then max(0.03, 0.03·2), then
    # max(0.06, 0.04·1). Counting the three untested pairs (m = 6) would give 0.06, 0.15, 0.16.
    assert tested == pytest.approx({0.01: 0.03, 0.03: 0.06, 0.04: 0.06})
    # At α = 0.05 the smallest now differs; in a family of six it would not have.
    assert [p.differs for p in pairs if p.tested] == [True, False, False]
    assert all(not p.differs for p in pairs if not p.tested)

    table = DesignTable("STS paired", "d", "a test design", "identities", standings, pairs)
    assert table.holm_family == 3 and table.to_dict()["holm_family"] == 3
    said = standings_text(table).notes
    assert (
        "p (Holm): adjusted over the 3 pairs with a test; the 3 without one are not in its family"
        in said
    )


def test_a_row_without_an_interval_has_no_p_in_json() -> None:
    """`diptych standings --json`: a model's figure without an interval (one identity only)
    shows "—*" with its reason; its p is null with why, never the 1.0 of no test."""
    spread = {c: 0.1 + 0.01 * (k % 3) for k, c in enumerate(crossed(4))}
    models = [
        measured(sample("a", spread), "run-a"),
        measured(sample("b", {("m0", "f0"): 0.5}), "run-b"),
    ]
    payload = json.loads(json.dumps(standings(models).to_dict()))
    rows = {r["model"]: r for r in payload["tables"][0]["standings"]}
    assert rows["a"]["p_value"] is not None and "p_reason" not in rows["a"]
    lone = rows["b"]
    assert lone["p_value"] is None and lone["reason"], lone
    assert lone["p_reason"] == f"no test: {lone['reason']}"
    (pair,) = payload["tables"][0]["pairs"]
    side = pair["a"] if pair["model_a"] == "b" else pair["b"]
    assert side["p_value"] is None and side["p_reason"] == lone["p_reason"]
    assert pair["p_value"] is None and pair["p_holm"] is None and pair["p_reason"]
    assert payload["tables"][0]["holm_family"] == 0
