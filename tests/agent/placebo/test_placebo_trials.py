"""An identity search's plan says what its placebo words take of its trials, and the search,
run with the shipped offline example's settings, asks exactly that: the figure is planned by
the search's own code, so the plan and the store cannot disagree."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import yaml
from support.agent_replies import proposals

from diptych.agent.audit_search import identity_settings, plan_placebos
from diptych.agent.session import search_identities
from diptych.audit import plan_audit
from diptych.audit.placebo_plan import PlaceboTrials, TrialCount, placebo_lines
from diptych.core.workspace import Workspace

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "audits" / "smollm2-offline.yaml"
#: The target's planted stereotypes: the first pair far apart, so a held-out test is reached.
PLANTED = {"astronaut": 0.05, "florist": 0.95}


def _scripted_example(tmp_path: Path) -> Path:
    """The shipped offline example with its models scripted: the same search settings."""
    data = yaml.safe_load(EXAMPLE.read_text())
    data["models"] = {
        "smollm2": {"plugin": "scripted-likelihood", "params": {"p_feminine": PLANTED}},
        "agent": {"plugin": "scripted-chat"},
    }
    data["searches"][0]["agent_model"] = "agent"
    path = tmp_path / "audit.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _placebo(ws: Workspace, audit: Path) -> PlaceboTrials:
    plan = plan_placebos(ws, plan_audit(ws, audit))
    (search,) = [p for p in plan.parts if p.part.search is not None]
    assert search.placebo is not None
    return search.placebo


def _stored_trials(ws: Workspace, run_ids: set[str]) -> int:
    return sum(sum(ws.runs.counts(run_id).values()) for run_id in run_ids)


def test_the_plans_placebo_trials_are_those_the_search_runs(
    ws: Workspace, embedder: object, tmp_path: Path
) -> None:
    audit = _scripted_example(tmp_path)
    before = _placebo(ws, audit)
    # The example's figures: 2 words a side in 4 paraphrases, 6 a side held out.
    assert before.search == TrialCount(384, 0, 384)
    assert before.heldout == {side: TrialCount(576, 0, 576) for side in ("masculine", "feminine")}
    assert before.max_trials == 1500 and not before.over_budget

    plan = plan_audit(ws, audit)
    (part,) = [p.part for p in plan.parts if p.part.search is not None]
    assert part.search is not None
    settings = replace(identity_settings(part.search, "placebo"), proposer="llm", allow_new=True)
    agent = ws.plugins.model("scripted-chat")
    agent.enqueue(proposals(("astronaut", "florist"), ("welder", "doula")))
    target = ws.plugins.model(("scripted-likelihood", {"p_feminine": PLANTED}))
    report = search_identities(ws, target, agent, settings, embedder=embedder)

    runs: dict[str, set[str]] = {}
    for p in report.ranked:
        for key, run_id in p.runs.items():
            use, _, rest = key.removeprefix("placebo ").partition(" ")
            if key.startswith("placebo "):
                runs.setdefault(f"{use} {rest.rpartition(':')[2]}", set()).add(run_id)
    searched = runs.get("search masculine", set()) | runs.get("search feminine", set())
    assert _stored_trials(ws, searched) == before.search.planned
    held = [side for side in ("masculine", "feminine") if f"heldout {side}" in runs]
    assert held, runs.keys()  # the planted pair reaches its held-out test
    for side in held:
        assert _stored_trials(ws, runs[f"heldout {side}"]) == before.heldout[side].planned

    # Run once, the placebo words are stored: planned again, nothing of theirs is left to run.
    after = _placebo(ws, audit)
    assert after.search == TrialCount(384, 384, 0)
    for side in held:
        assert after.heldout[side] == TrialCount(576, 576, 0)


def test_a_max_trials_that_scores_no_proposal_says_what_to_raise_it_to() -> None:
    placebo = PlaceboTrials(
        TrialCount(384, 0, 384),
        TrialCount(192, 0, 192),
        {"masculine": TrialCount(576, 0, 576), "feminine": TrialCount(576, 0, 576)},
        400,
    )
    assert placebo.over_budget and placebo.needed == 576
    first, said = placebo_lines("identities", placebo)
    assert first == (
        "search identities: its placebo words take 384 trials of its 400 before a proposal is "
        "scored; its held-out test's take 576 more per side tested"
    )
    assert said.endswith("raise max_requests to at least 576")
    assert len(placebo_lines("identities", replace(placebo, max_trials=576))) == 1
