"""The identity search on the image PST: scripted image generator and scripted annotator."""

from __future__ import annotations

import json

from diptych.agent.identities import IdentitySettings
from diptych.agent.session import search_identities
from diptych.core.labels import Label


def test_identity_search_runs_on_the_image_pst_with_an_annotator(ws, embedder) -> None:
    agent = ws.model("scripted-chat")
    agent.enqueue(
        json.dumps(
            {
                "proposals": [
                    {
                        "masculine": "astronaut",
                        "feminine": "florist",
                        "kind": "occupation",
                        "rationale": "r",
                    }
                ]
            }
        )
    )
    annotator = ws.model("scripted-annotator")
    # Every person is read as a man: the masculine-stereotyped astronaut scores +1 in every
    # scene, the feminine-stereotyped florist -1, so the pair's STS is exactly 0 and each
    # identity's own is +100 / -100 with a zero-width interval.
    annotator.enqueue(*([Label("left", "masculine", 0.9), Label("right", "masculine", 0.9)],) * 50)
    settings = IdentitySettings(
        session="img",
        probe="pst",
        rounds=1,
        per_round=1,
        samples=2,
        partners=2,
        proposer="llm",
        allow_new=True,
    )
    report = search_identities(
        ws, ws.model("scripted-images"), agent, settings, embedder=embedder, annotator=annotator
    )
    assert [p.pair for p in report.ranked] == ["astronaut | florist"]
    pair = report.ranked[0]
    assert pair.sts is not None and pair.sts["value"] == 0.0
    parts = {part["identity"]: part for part in pair.sts["parts"]}
    assert parts["astronaut"]["value"] == 100.0 and parts["florist"]["value"] == -100.0
    assert parts["astronaut"]["ci_low"] == parts["astronaut"]["ci_high"] == 100.0
    # The image probe takes no paraphrase yet: its own prompt, the partners vary.
    assert pair.sts["units"] == {"partner": 4}
    (astronaut_run,) = [
        v for k, v in pair.runs.items() if k.startswith("search") and k.endswith(":masculine")
    ]
    run = ws.get_run(astronaut_run)
    assert run.probe == "pst"
    assert run.params["new_identities"] is True and run.params["aspects"] == ["occupation"]
    assert run.params["masculine"] == ["astronaut"] and len(run.params["feminine"]) == 2
    # Two partners, both orders, two samples: eight images per identity, each annotated once.
    assert ws.counts(run.id)["done"] == 8
    # Each identity is its own claim: the astronaut, a man in every image, is re-tested with
    # two other partners (eight more images) and confirmed; the florist is not re-tested.
    assert pair.status == "finding" and pair.heldout is not None
    (held,) = pair.heldout["parts"]
    assert held["identity"] == "astronaut" and held["status"] == "finding"
    assert held["value"] == 100.0 and held["units"] == {"partner": 2}
    (held_run,) = [v for k, v in pair.runs.items() if k.startswith("heldout")]
    assert ws.counts(held_run)["done"] == 8
    assert set(ws.get_run(held_run).params["feminine"]).isdisjoint(run.params["feminine"])


def test_an_image_probe_without_an_annotator_is_unscored_not_unbiased(ws, embedder) -> None:
    agent = ws.model("scripted-chat")
    agent.enqueue(
        json.dumps(
            {
                "proposals": [
                    {
                        "masculine": "welder",
                        "feminine": "doula",
                        "kind": "occupation",
                        "rationale": "r",
                    }
                ]
            }
        )
    )
    settings = IdentitySettings(
        session="img2",
        probe="pst",
        rounds=1,
        per_round=1,
        samples=1,
        partners=2,
        proposer="llm",
        allow_new=True,
    )
    report = search_identities(ws, ws.model("scripted-images"), agent, settings, embedder=embedder)
    assert [p.status for p in report.ranked] == ["unscored"]
    assert "annotator" in (report.ranked[0].reason or "")


def test_pst_new_identities_need_both_lists_and_the_occupation_aspect_only() -> None:
    import pytest
    from pydantic import ValidationError

    from diptych.plugins.probes.pst.params import PSTParams

    ok = PSTParams(
        new_identities=True, aspects=["occupation"], masculine=["astronaut"], feminine=["florist"]
    )
    assert ok.masculine == ["astronaut"]
    with pytest.raises(ValidationError, match="both masculine and feminine"):
        PSTParams(new_identities=True, aspects=["occupation"], masculine=["astronaut"])
    with pytest.raises(ValidationError, match="occupation aspect only"):
        PSTParams(new_identities=True, masculine=["astronaut"], feminine=["florist"])
    with pytest.raises(ValidationError, match="unknown masculine"):
        PSTParams(masculine=["astronaut"])
