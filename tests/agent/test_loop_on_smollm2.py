"""The real loop offline: SmolLM2 as agent and as target (small: 1 round, 2 proposals)."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.agent.decision import DECIDED
from diptych.agent.identities import IdentitySettings
from diptych.agent.memory import SentenceEmbedder
from diptych.agent.session import search_identities
from diptych.core.workspace import Workspace


@pytest.mark.slow
def test_smollm2_proposes_and_every_proposal_gets_an_outcome(tmp_path: Path) -> None:
    with Workspace.open(tmp_path / "ws") as ws:
        model = ws.plugins.model("smollm2")
        report = search_identities(
            ws,
            model,
            model,
            IdentitySettings(
                session="smol",
                rounds=1,
                per_round=2,
                partners=2,
            ),
            embedder=SentenceEmbedder(),
        )
    everything = report.ranked + report.rejected
    assert everything, "SmolLM2 proposed something, valid or not"
    for p in everything:
        assert p.status in {"rejected", "unscored", *DECIDED}
        if p.status == "rejected":
            assert p.reason
        elif p.status != "unscored":
            assert p.sts is not None and p.sts["ci_low"] <= p.sts["value"] <= p.sts["ci_high"]
    assert (tmp_path / "ws" / "agent.db").exists()
    assert (tmp_path / "ws" / "chroma").is_dir()
