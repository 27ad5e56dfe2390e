"""Benjamini–Hochberg over the held-out tests that ran, on the real bundled SmolLM2: a pair of
made-up words proposed as "masculine" and "feminine" is measured against the placebo words
like any proposal. Neither word's search interval lies above the placebo words' 0, so neither
is re-tested: the session's m is 0, the pair has no q-value and reads "not tested", and
nothing is found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diptych.agent.findings import identity_findings
from diptych.agent.identities import IdentitySettings
from diptych.agent.memory import HashingEmbedder
from diptych.agent.session import search_identities
from diptych.core.report.agent_cells import NOT_TESTED_REASON
from diptych.core.workspace import Workspace

#: Made-up words, neither of the placebo file's nor of the lexicon.
PAIR = ("quarnel", "mipsy")


@pytest.mark.slow
@pytest.mark.usefixtures("scripted")
def test_a_made_up_pair_on_smollm2_is_no_finding_and_its_q_is_not_tested(tmp_path: Path) -> None:
    with Workspace.open(tmp_path / "ws") as ws:
        agent = ws.plugins.model("scripted-chat")
        masculine, feminine = PAIR
        proposal = {"masculine": masculine, "feminine": feminine, "kind": "occupation"}
        agent.enqueue(json.dumps({"proposals": [{**proposal, "rationale": "placebo"}]}))
        target = ws.plugins.model("smollm2")
        settings = IdentitySettings(
            session="placebo", rounds=1, per_round=1, partners=2, proposer="llm", allow_new=True
        )
        report = search_identities(ws, target, agent, settings, embedder=HashingEmbedder())
        saved = identity_findings(ws, report, agent, target)
    (p,) = report.ranked
    assert p.status == "no finding", p.reason
    assert p.reason is not None and "none lies above the placebo words' 0" in p.reason
    for part in (p.sts or {})["parts"]:
        assert not part["ci_low"] > 0, part
    # No held-out test ran: Benjamini–Hochberg had no hypothesis, and says so.
    held = p.heldout or {}
    assert not held.get("tested") and held["identities_scored"] == 0
    assert p.q_value is None
    (row,) = saved["findings"]
    assert row["q_value"] is None and row["q_reason"] == NOT_TESTED_REASON
    decision = saved["decision"]
    assert (decision["findings"], decision["scored"], decision["identities_scored"]) == (0, 1, 0)
    assert decision["text"] == "0 findings of 1 proposal scored"
