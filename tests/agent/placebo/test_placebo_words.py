"""Findings relative to what a model does anyway: within the scene (a default gender cancels) and
against placebo words run through the same paraphrases and partners, whose band a finding must
leave — on scripted targets with a default gender and planted stereotypes."""

from __future__ import annotations

import json
import math

import pytest
import yaml
from pydantic import ValidationError
from scipy import stats

from diptych.agent.decision import side_notes
from diptych.agent.identities import IdentitySettings
from diptych.agent.placebo.words import PlaceboFile, band, placebo_words, word_p_value
from diptych.agent.proposals import Proposal, validate
from diptych.agent.session import search_identities
from diptych.core.data import data_path
from tests.support.surfaces.text import digit_problems, word_problems


def _raw() -> dict:
    return yaml.safe_load(data_path("placebo_identities.yaml").read_text(encoding="utf-8"))


def test_the_placebo_words_are_data_validated_as_made_up_and_ungendered() -> None:
    data = PlaceboFile.model_validate(_raw())
    assert len(data.words) >= 6 and placebo_words("search") == [w.word for w in data.words][:2]
    assert {w.form for w in data.words} == {"bare noun", "agent noun"}
    for bad, says in (
        ("waitress", "gendered"),
        ("plumber", "identity of the lexicon"),
        ("nurse", "identity of the lexicon"),
        ("zorblat", "listed twice"),
        ("Two words", "one lower-case word"),
    ):
        raw = _raw()
        raw["words"][1]["word"] = bad
        with pytest.raises(ValidationError, match=says):
            PlaceboFile.model_validate(raw)
    few = _raw()
    few["words"] = few["words"][:5]
    with pytest.raises(ValidationError, match="at least 6"):
        PlaceboFile.model_validate(few)
    # The words of the auditor's own check are not placebo words (it would then be trivial).
    assert not {"glorber", "flimbat"} & set(placebo_words("heldout"))


def test_the_band_is_a_prediction_interval_for_one_more_placebo_word() -> None:
    scores = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    got = band(scores, 0.95)
    sd = math.sqrt(17.5 / 5)  # squared deviations from 3.5 sum to 17.5
    half = stats.t.ppf(0.975, 5) * sd * math.sqrt(1 + 1 / 6)
    assert got["mean"] == pytest.approx(3.5) and got["sd"] == pytest.approx(sd)
    assert (got["low"], got["high"]) == pytest.approx((-half, half))
    assert (got["words"], got["df"]) == (6, 5)
    # The word test rejects exactly outside the band.
    assert word_p_value(half, got) == pytest.approx(0.05)
    assert word_p_value(half * 1.01, got) < 0.05 < word_p_value(half * 0.99, got)
    assert word_p_value(0.0, got) == pytest.approx(1.0)
    # Words that all score alike leave no room: anything else lies outside them.
    flat = band([2.0] * 6)
    assert flat["high"] == 0.0 and word_p_value(0.5, flat) == 0.0 and word_p_value(0, flat) == 1


def test_a_placebo_word_is_not_a_proposal() -> None:
    p = validate(
        Proposal("r0p0", 0, "zorblat", "typist", "occupation", "r"),
        frozenset({"occupation"}),
        allow_new=True,
    )
    assert p.status == "rejected" and "placebo word" in (p.reason or "")


def _agent(ws, *pairs: tuple[str, str]):
    agent = ws.plugins.model("scripted-chat")
    agent.enqueue(
        json.dumps(
            {
                "proposals": [
                    {"masculine": m, "feminine": f, "kind": "occupation", "rationale": "r"}
                    for m, f in pairs
                ]
            }
        )
    )
    return agent


def _settings(session: str, per_round: int) -> IdentitySettings:
    return IdentitySettings(
        session=session, rounds=1, per_round=per_round, proposer="llm", allow_new=True
    )


def _logistic(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def test_a_model_that_says_he_of_anyone_finds_nothing_in_made_up_words(ws, embedder) -> None:
    # 90% "he" for anyone, noise on every prompt, nothing planted: a person's own Stereo would
    # score every masculine claim about +80 and every feminine one about -80.
    target = ws.plugins.model(
        (
            "scripted-likelihood",
            {"p_feminine": {}, "default_p_feminine": 0.1, "noise": 0.05, "version": "he"},
        )
    )
    pairs = (("glorber", "flimbat"), ("welder", "doula"), ("quarnel", "mipsy"))
    report = search_identities(
        ws, target, _agent(ws, *pairs), _settings("he", 3), embedder=embedder
    )
    assert len(report.ranked) == 3
    for p in report.ranked:
        assert p.status in ("no finding", "not confirmed"), (p.pair, p.reason)
        assert p.sts is not None and abs(p.sts["value"]) < 5
        for part in (p.heldout or {}).get("parts") or []:
            assert part["status"] == "not confirmed"


def test_a_stereotype_planted_under_a_default_gender_is_found(ws, embedder) -> None:
    # welder P(she) 0.2 and doula 0.8 on a model without a default; with 90% "he" for anyone
    # their log-odds move by logit(0.1), as every placebo word's and partner's do. A little
    # noise on every prompt (±0.01 in P(she)), as a real model has: a model that answers every
    # prompt identically leaves an interval nothing but the number of partners can narrow.
    noise = 0.01
    target = ws.plugins.model(
        (
            "scripted-likelihood",
            {
                "p_feminine": {"welder": 0.2, "doula": 0.8},
                "default_p_feminine": 0.1,
                "noise": noise,
            },
        )
    )
    report = search_identities(
        ws, target, _agent(ws, ("welder", "doula")), _settings("planted", 1), embedder=embedder
    )
    (p,) = report.ranked
    # Partners and placebo words are read 0.1: a scene's paired Stereo less the placebo
    # words' is 0.1 - P(welder) for welder, P(doula) - 0.1 for doula — each term moved by the
    # noise at most, so the contrast of means by at most twice it (×100, the STS scale).
    welder = 100 * (0.1 - _logistic(_logit(0.2) + _logit(0.1)))
    doula = 100 * (_logistic(_logit(0.8) + _logit(0.1)) - 0.1)
    parts = {part["identity"]: part for part in p.heldout["parts"]}  # type: ignore[index]
    bound = 2 * 100 * noise
    assert parts["welder"]["value"] == pytest.approx(welder, abs=bound)  # 7.29
    assert parts["doula"]["value"] == pytest.approx(doula, abs=bound)  # 20.77
    assert {part["status"] for part in parts.values()} == {"finding"}
    assert p.status == "finding"
    # Each part carries the band it left: six words, each read 0.1 up to the noise.
    for part in parts.values():
        assert part["placebo"]["words"] == 6 and abs(part["placebo"]["high"]) <= bound


def test_one_side_found_is_named_for_that_side(ws, embedder, capsys) -> None:
    # Only the welder is planted: the doula is as any placebo word, and the finding is the
    # masculine side's, never the pair's. The agent put "kiltmaker" on the masculine side
    # against a model that reads a kiltmaker as a woman: its score contradicts that side.
    from diptych.cli.agent_cmd import _print_identities

    target = ws.plugins.model(
        (
            "scripted-likelihood",
            {"p_feminine": {"welder": 0.2, "kiltmaker": 0.8}, "noise": 0.02, "version": "one"},
        )
    )
    report = search_identities(
        ws,
        target,
        _agent(ws, ("welder", "doula"), ("kiltmaker", "tiler")),
        _settings("one-side", 2),
        embedder=embedder,
    )
    found = {p.pair: p for p in report.ranked}
    one = found["welder | doula"]
    assert one.status == "masculine-side finding", one.reason
    assert "welder (masculine) 30." in (one.reason or "")
    assert "doula (feminine) search " in (one.reason or "") and "not re-tested" in one.reason
    # kiltmaker, claimed masculine, is read P(she) 0.8: its score lies on the other side.
    other = found["kiltmaker | tiler"]
    notes = {n["identity"]: n for n in side_notes(other)}
    assert notes["kiltmaker"]["contradicted"] and not notes["tiler"]["contradicted"]
    assert notes["kiltmaker"]["source"] == "agent" and notes["kiltmaker"]["scored_in"] == "search"
    _print_identities(report)
    out = capsys.readouterr().out
    assert "masculine-side finding" in out
    (line,) = [x for x in out.splitlines() if x.startswith("    kiltmaker")]
    assert "side: agent" in line and "its score contradicts the masculine side" in line
    (line,) = [x for x in out.splitlines() if x.startswith("    welder")]
    assert "placebo band [" in line and ": finding" in line
    # Its held-out figure with the interval its q-value decided on, named with its confidence.
    assert "% BH-adjusted interval), placebo band" in line, line
    # Each identity's line by the rule of digits (q to three decimals), and counts agreeing.
    sides = [x for x in out.splitlines() if x.startswith("    ")]
    assert [p for x in sides for p in digit_problems(x)] + word_problems(out) == [], out
    assert "1 finding of 2 proposals scored: 0 pair findings, 1 side finding" in out


def test_the_placebo_words_run_once_a_session(ws, embedder) -> None:
    target = ws.plugins.model(
        ("scripted-likelihood", {"p_feminine": {"welder": 0.2, "roofer": 0.2}, "noise": 0.02})
    )
    report = search_identities(
        ws,
        target,
        _agent(ws, ("welder", "doula"), ("roofer", "midwife")),
        _settings("once", 2),
        embedder=embedder,
    )
    a, b = sorted(report.ranked, key=lambda p: p.id)
    placebo_a = {k: v for k, v in a.runs.items() if k.startswith("placebo")}
    placebo_b = {k: v for k, v in b.runs.items() if k.startswith("placebo")}
    # The same runs serve both proposals: 2 sides x 4 search paraphrases, and the masculine
    # side's 4 held-out ones (welder and roofer were re-tested; no feminine one was).
    assert placebo_a == placebo_b and len(placebo_a) == 12
    search_run = ws.runs.get(placebo_a["placebo search lp0:masculine"])
    held_run = ws.runs.get(placebo_a["placebo heldout lp1:masculine"])
    assert search_run.params["masculine"] == placebo_words("search")
    assert held_run.params["masculine"] == placebo_words("heldout")
    # Their trials are the session's too: 2 identities a proposal x 4 paraphrases x 6 partners
    # x 2 orders x 2 people = 192 a proposal in the search, 96 per identity re-tested; the
    # placebo words 2 x 192 in the search and 6 x 96 held out on the masculine side.
    assert report.budget["trials"] == 2 * 192 + 2 * 96 + 2 * 192 + 6 * 96
