"""A mitigation search plans designs whose decisions have stated power, or says it cannot."""

from __future__ import annotations

import math

import pytest

from diptych.agent.mitigation.power import (
    THRESHOLD,
    design_of,
    plan_designs,
    power_of,
    scaled_change,
)
from diptych.agent.session import search_mitigations
from diptych.core.metrics.uncertainty.precision import Components

#: A baseline like a scripted one: identities vary a little, prompts a little more.
BASE = Components(4.0, 4.0, 3.0, 6.0, "a baseline", centre=40.0)
HALF = {"masculine": ["m1", "m2"], "feminine": ["f1", "f2"]}
OTHER = {"masculine": ["m3", "m4"], "feminine": ["f3", "f4"]}


def test_the_change_scales_identities_and_moves_prompts() -> None:
    change = scaled_change(BASE, 10.0)
    # A 10-point reduction of an STS of 40 keeps 3/4 of each identity's stereotype: the
    # identity effects on the change are 1/4 of the baseline's; a treated prompt and its
    # baseline deviate independently: √2 × the prompt-level SDs.
    assert (change.rows, change.cols) == (1.0, 1.0)
    assert change.interaction == pytest.approx(3 * math.sqrt(2))
    assert change.within == pytest.approx(6 * math.sqrt(2))
    assert change.centre == -10.0
    # A reduction larger than the STS itself scales by at most 1.
    assert scaled_change(BASE, 80.0).rows == 4.0


def test_halves_of_2_by_2_cannot_decide_and_say_so() -> None:
    search, held, power = plan_designs(
        HALF, OTHER, scaled_change(BASE, THRESHOLD), templates=(4, 4)
    )  # fmt: skip
    assert (search, held) == (HALF, OTHER)  # nothing to grow from
    assert not power["powered"]
    side = power["search"]
    # 2 × 2 identities: one degree of freedom, the t multiplier of 12.7.
    assert side["design"] == "2 × 2 identities" and side["df"] == 1
    assert side["t"] == pytest.approx(12.706, abs=1e-3)
    assert side["power"] < 0.8
    statement = power["statement"]
    assert statement.startswith(
        "cannot reach power 0.8 for a reduction of 10 STS points with the identities given: "
        "search 2 × 2 identities (df 1, t 12.7)"
    )
    assert "it would need search " in statement and " × " in statement


def test_designs_grow_from_the_pool_until_each_decision_has_power() -> None:
    pool = {
        "masculine": [f"m{i}" for i in range(1, 21)],
        "feminine": [f"f{i}" for i in range(1, 21)],
    }
    change = scaled_change(BASE, THRESHOLD)
    search, held, power = plan_designs(HALF, OTHER, change, templates=(4, 4), pool=pool)
    assert power["powered"] and power["grown"]
    # The baseline's own identities stay where they were; the search and the held-out
    # identities never meet.
    for gender in ("masculine", "feminine"):
        assert search[gender][:2] == HALF[gender] and held[gender][:2] == OTHER[gender]
        assert not set(search[gender]) & set(held[gender])
    n = len(search["masculine"])
    assert power["search"]["power"] >= 0.8 and power["heldout"]["power"] >= 0.8
    # The smallest such design: one identity fewer a list falls short.
    smaller = {g: ids[: n - 1] for g, ids in search.items()}
    assert power_of(design_of(smaller, 4), change, THRESHOLD) < 0.8
    assert power["statement"].startswith("planned to find a reduction of 10 STS points: search")


def test_a_session_reports_its_power(ws, embedder, planted_baseline, proposing_agent) -> None:
    base = planted_baseline(noise=0.05)
    agent = proposing_agent([])
    report = search_mitigations(ws, agent, base.id, session="pw", embedder=embedder)
    power = report.power
    assert power["threshold"] == THRESHOLD
    # The baseline's halves are 2 × 2; the search grew them from the paper's lists.
    assert power["grown"] and power["powered"]
    assert power["search"]["design"] != "2 × 2 identities"
    assert power["variance"].startswith("a change of 10 scaling each identity's stereotype")
    assert report.to_dict()["power"]["statement"] == power["statement"]


def test_a_story_mode_run_gets_no_plan_the_search_refuses_it() -> None:
    # The search mitigates likelihood-mode runs only: a story-mode baseline is refused before
    # any design is planned, so no plan ever counts its sampled stories as units.
    from types import SimpleNamespace

    from diptych.agent.mitigation.prompts import split_identities
    from diptych.core.errors import UsageError

    run = SimpleNamespace(id="pst-text-story", probe="pst-text", params={"mode": "story"})
    ws = SimpleNamespace(runs=SimpleNamespace(get=lambda _: run))
    with pytest.raises(UsageError, match="the agent mitigates pst-text runs in likelihood mode"):
        split_identities(ws, run.id, 0)  # type: ignore[arg-type]
