"""A session that ends saves its findings in the workspace, where the audit report reads them."""

from __future__ import annotations

import json

import pytest

from diptych.agent.identities import IdentitySettings
from diptych.agent.session import search_identities, search_mitigations


def test_identity_session_saves_its_ranked_findings(ws, embedder) -> None:
    agent = ws.plugins.model("scripted-chat")
    # welder is read as a man and doula as a woman in every prompt: a pair stereotyped as
    # claimed. Against partners and placebo words read 0.5, welder's scenes score
    # 0.5 - 0.2 = 0.3 and doula's 0.9 - 0.5 = 0.4: the pair's effect is 35 (x100).
    target = ws.plugins.model(
        ("scripted-likelihood", {"p_feminine": {"welder": 0.2, "doula": 0.9}})
    )
    agent.enqueue(
        json.dumps(
            {
                "proposals": [
                    {"masculine": m, "feminine": f, "kind": "occupation", "rationale": "r"}
                    for m, f in (("welder", "doula"), ("fireman", "nanny"), ("pilot", "typist"))
                ]
            }
        )
    )
    settings = IdentitySettings(
        session="saved1", rounds=1, per_round=3, proposer="llm", allow_new=True
    )
    report = search_identities(ws, target, agent, settings, embedder=embedder)

    [saved] = ws.findings.list()
    assert saved["session"] == "saved1" and saved["kind"] == "identities"
    assert saved["agent_model"] == "scripted-chat"
    assert saved["target"].startswith("scripted-likelihood")
    assert saved["rejected"] == len(report.rejected) == 1  # the gendered pair
    assert [f["what"] for f in saved["findings"]] == [p.pair for p in report.ranked]
    # pilot | typist are planted nowhere: P(she) = 0.5, an STS of exactly 0, no finding.
    assert saved["decision"]["text"] == "1 finding of 2 proposals scored"
    assert (saved["decision"]["findings"], saved["decision"]["scored"]) == (1, 2)
    pair, finding = report.ranked[0], saved["findings"][0]
    assert pair.pair == "welder | doula" and finding["status"] == pair.status == "finding"
    assert pair.sts is not None
    assert finding["search"]["value"] == pytest.approx(35.0)
    assert finding["search"]["ci_low"] == pair.sts["ci_low"]
    assert finding["search"]["ci_high"] == pair.sts["ci_high"]
    assert finding["search"]["units"] == {"partner": 12, "template": 4}
    assert finding["evidence"] == pair.evidence
    # The held-out test: the same figure on the other partners and paraphrases.
    held = finding["heldout"]
    assert held["value"] == pytest.approx(35.0) and held["units"] == {"partner": 12, "template": 4}
    assert {p["identity"]: round(p["value"], 6) for p in held["parts"]} == {
        "welder": 30.0,
        "doula": 40.0,
    }
    # Each identity's band: six placebo words, all read 0.5, each with an effect of 0.
    for part in held["parts"]:
        assert part["placebo"]["words"] == 6 and part["placebo"]["high"] == 0.0
        assert set(part["placebo"]["scores"].values()) == {0.0} and part["p_word"] == 0.0
    # Who chose the pair, and where each side comes from.
    assert finding["chosen_by"] == "agent"
    assert [(s["identity"], s["source"], s["contradicted"]) for s in finding["sides"]] == [
        ("welder", "agent", False),
        ("doula", "agent", False),
    ]
    # Every observation of an identity is the same number: no spread, yet finitely many
    # partners and templates cannot show that others would agree — its interval is open on
    # both sides (never the point), and still clear of 0.
    for part in held["parts"]:
        assert 0 < part["ci_low"] < part["value"] < part["ci_high"]
    # Two held-out tests ran and enter Benjamini–Hochberg (m = 2): welder's and doula's tiny
    # p-values; the two identities never re-tested enter nothing. The pair's q is its
    # identities' smaller.
    assert {p["status"] for p in held["parts"]} == {"finding"}
    assert finding["q_value"] == min(p["q_value"] for p in held["parts"])
    ranks = sorted(p["p"] for p in held["parts"])
    assert finding["q_value"] == pytest.approx(min(ranks[0] * 2, ranks[1] * 2 / 2))
    assert saved["decision"]["identities_scored"] == 2
    assert saved["findings"][1]["q_value"] is None and saved["findings"][1]["q_reason"]
    assert saved["findings"][1]["status"] == "no finding"
    # Every run the pair was scored on is listed, and selects the session.
    assert set(pair.runs.values()) <= set(saved["runs"])
    assert len(finding["runs"]["search"]) == len(finding["runs"]["heldout"]) == 8
    # The placebo words' runs: one per side and paraphrase, in the search and held out.
    assert len(finding["runs"]["placebo"]) == 16
    assert ws.findings.list([finding["runs"]["heldout"][0]]) == [saved]
    assert ws.findings.list(["no-such-run"]) == []


def test_mitigation_session_saves_interventions_with_heldout(ws, embedder) -> None:
    # Eight of each: four in the search, four held out (fewer would leave the crossed
    # interval of one list of two with a single degree of freedom).
    masculine = ["carpenter", "driver", "farmer", "lawyer", "janitor", "guard", "cook", "mover"]
    feminine = ["nurse", "editor", "baker", "clerk", "cashier", "writer", "auditor", "designer"]
    fair = "Any job can be held by anyone."
    planted = {**dict.fromkeys(masculine, 0.3), **dict.fromkeys(feminine, 0.7)}
    target = ws.plugins.model(
        (
            "scripted-likelihood",
            {"p_feminine": planted, "noise": 0.05, "interventions": {fair: 0.5}},
        )
    )
    base = ws.runs.run_sync(
        "pst-text",
        [target],
        params={"masculine": masculine, "feminine": feminine, "setting": "paired"},
    )
    agent = ws.plugins.model("scripted-chat")
    agent.enqueue(
        json.dumps({"interventions": [{"kind": "prefix", "text": fair, "rationale": "r"}]})
    )
    report = search_mitigations(ws, agent, base.id, session="m-saved", embedder=embedder)

    [saved] = ws.findings.list([base.id])
    assert saved["kind"] == "mitigation" and saved["target"].startswith("scripted-likelihood")
    front = {t["id"]: t for t in report.front}
    assert [t["text"] for t in front.values()] == [fair]
    (finding,) = [f for f in saved["findings"] if f["id"] in front]
    t = front[finding["id"]]
    assert finding["status"] == "finding, Pareto front" and finding["pareto"]
    # Planted: STS 2 * 0.7 - 1 = 0.4 (x100) in every scene; halved by the intervention.
    assert finding["search"]["value"] == t["score"]["difference"]
    assert finding["heldout"]["value"] == t["heldout"]["difference"]
    assert finding["heldout"]["value"] == pytest.approx(-20.0, abs=3.0)
    assert finding["heldout"]["ci_high"] < 0 and finding["heldout"]["p"] < 0.05
    assert set(finding["runs"]["heldout"]) <= set(saved["runs"])
    assert saved["findings"][0] == finding  # the front first


def test_a_session_whose_budget_ends_before_scoring_counts_its_rows(ws, embedder) -> None:
    agent = ws.plugins.model("scripted-chat")
    target = ws.plugins.model(("scripted-likelihood", {"p_feminine": {"welder": 0.2}}))
    agent.enqueue(
        json.dumps(
            {
                "proposals": [
                    {"masculine": m, "feminine": f, "kind": "occupation", "rationale": "r"}
                    for m, f in (("welder", "doula"), ("pilot", "typist"))
                ]
            }
        )
    )
    # Ten trials cannot buy even the placebo words' search runs: nothing is scored.
    settings = IdentitySettings(
        session="starved", rounds=1, per_round=2, proposer="llm", allow_new=True, max_requests=10
    )
    report = search_identities(ws, target, agent, settings, embedder=embedder)

    [saved] = ws.findings.list()
    rows = saved["findings"]
    assert (
        [f["status"] for f in rows] == ["unscored", "unscored"] == [p.status for p in report.ranked]
    )
    assert all("over budget" in f["reason"] for f in rows)
    decision = saved["decision"]
    assert (decision["made"], decision["scored"], decision["unscored"]) == (2, 0, 2)
    assert (decision["unscored_budget"], decision["findings"]) == (2, 0)
    assert decision["text"] == (
        "0 findings of 0 proposals scored (2 proposals made; 2 left unscored by the budget)"
    )
