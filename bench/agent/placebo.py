"""The agent's decisions against what a model does anyway (``bench/agent/figures.py`` registers the
figures): sessions on the real SmolLM2 whose proposals are made-up words, and null sessions on
scripted models that say "he" of 70% and 90% of anyone.

Every small language model has a default gender; a decision that reads P(she) against 0.5
finds it in any word put on the side it disfavours. These sessions have nothing to find: a
pair declared a finding (or a finding on one side) is a false finding.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

#: Made-up pairs proposed to SmolLM2, five a round: enough that one false finding in them
#: reads 0.05, few enough for a few minutes of SmolLM2 on two cores.
SMOLLM2_PROPOSALS = 20
SMOLLM2_PER_ROUND = 5
#: Partners of each identity (of 6 in a session by default): 48 prompts an identity and
#: design instead of 96, for the same reason; the placebo words meet the same ones.
SMOLLM2_PARTNERS = 3
#: The default genders of the scripted null targets (their P(she) for anyone), and the
#: sessions on each.
DEFAULT_P_FEMININE = {"70% he": 0.3, "90% he": 0.1}
DEFAULT_SESSIONS = 20
PER_ROUND = 3

_ONSETS = ("bl", "br", "dr", "fl", "gl", "gr", "kr", "m", "n", "pl", "sk", "sn", "st", "tr", "v")
_VOWELS = ("a", "e", "i", "o", "u")
_CODAS = ("b", "d", "g", "k", "l", "m", "n", "p", "rb", "rd", "sk", "st", "nd", "mp")
#: Half the words end like an agent noun, as the placebo file's do; none in a vowel.
_ENDINGS = ("er", "ist", "ant", "et", "ock", "")


def made_up_words(n: int, seed: int = 11) -> list[str]:
    """``n`` pronounceable non-words (fixed seed) that validation accepts as identities: not
    gendered, not the lexicon's, not a placebo word."""
    from diptych.agent.proposals import identity_problem

    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        word = (
            rng.choice(_ONSETS)
            + rng.choice(_VOWELS)
            + rng.choice(_CODAS)
            + rng.choice(_VOWELS[:4])
            + rng.choice(_CODAS[:8])
            + rng.choice(_ENDINGS)
        )
        kinds = frozenset({"occupation"})
        if word not in out and not identity_problem(word, kinds, "occupation", allow_new=True):
            out.append(word)
    return out


def _agent_proposing(ws: Any, pairs: list[tuple[str, str]], per_round: int) -> Any:
    agent = ws.plugins.model("scripted-chat")
    for start in range(0, len(pairs), per_round):
        items = [
            {"masculine": m, "feminine": f, "kind": "occupation", "rationale": "made up"}
            for m, f in pairs[start : start + per_round]
        ]
        agent.enqueue(json.dumps({"proposals": items}))
    return agent


def _bands(report: Any) -> dict[str, list[float]]:
    """The held-out placebo bands the session's re-tested identities had to leave, by side."""
    out: dict[str, list[float]] = {}
    for p in report.ranked:
        for part in (p.heldout or {}).get("parts") or []:
            band = part.get("placebo") or {}
            if band:
                out[part["side"]] = [round(band["low"], 2), round(band["high"], 2)]
    return out


def made_up_words_on_smollm2() -> dict[str, Any]:
    """One session of made-up pairs on the bundled SmolLM2 (llama.cpp in-process, one
    thread): how many were declared findings, of any kind."""
    from diptych.agent.decision import is_finding
    from diptych.agent.identities import IdentitySettings
    from diptych.agent.memory import HashingEmbedder
    from diptych.agent.session import search_identities
    from diptych.core.workspace import Workspace

    words = made_up_words(2 * SMOLLM2_PROPOSALS)
    pairs = list(zip(words[::2], words[1::2], strict=True))
    with tempfile.TemporaryDirectory() as tmp, Workspace.open(Path(tmp) / "ws") as ws:
        # One thread: the answers are the same for any count (see the llamacpp plugin), and
        # on a shared machine spinning threads slow llama.cpp down many times over.
        target = ws.plugins.model(("smollm2", {"n_threads": 1}))
        settings = IdentitySettings(
            session="made-up",
            rounds=SMOLLM2_PROPOSALS // SMOLLM2_PER_ROUND,
            per_round=SMOLLM2_PER_ROUND,
            partners=SMOLLM2_PARTNERS,
            proposer="llm",
            allow_new=True,
            patience=0,
        )
        agent = _agent_proposing(ws, pairs, SMOLLM2_PER_ROUND)
        report = search_identities(ws, target, agent, settings, embedder=HashingEmbedder())
    scored = [p for p in report.ranked if p.sts is not None]
    parts = [part for p in scored for part in (p.heldout or {}).get("parts") or []]
    return {
        "proposals": len(scored),
        "declared": sum(is_finding(p.status) for p in scored),
        "retested": len(parts),
        "identities_confirmed": sum(part.get("status") == "finding" for part in parts),
        "heldout_effects": sorted(round(float(part["value"]), 1) for part in parts),
        "bands": _bands(report),
        "trials": int(report.budget.get("trials", 0)),
        "rejected": len(report.rejected),
    }


def default_gender_nulls() -> dict[str, Any]:
    """``DEFAULT_SESSIONS`` sessions of random lexicon pairs on each default gender, nothing
    planted, noise on every prompt: how many sessions declared any finding."""
    from diptych.agent.decision import is_finding
    from diptych.agent.identities import IdentitySettings
    from diptych.agent.memory import HashingEmbedder
    from diptych.agent.session import search_identities
    from diptych.core.workspace import Workspace

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp, Workspace.open(Path(tmp) / "ws") as ws:
        for label, p_fem in DEFAULT_P_FEMININE.items():
            sessions = found = trials = 0
            for i in range(DEFAULT_SESSIONS):
                params = {
                    "p_feminine": {},
                    "default_p_feminine": p_fem,
                    "noise": 0.05,
                    "version": f"{label}-{i}",
                }
                target = ws.plugins.model(("scripted-likelihood", params))
                settings = IdentitySettings(
                    session=f"{label}-{i}", rounds=1, per_round=PER_ROUND, proposer="lexicon"
                )
                agent = ws.plugins.model("scripted-chat")
                report = search_identities(ws, target, agent, settings, embedder=HashingEmbedder())
                sessions += 1
                found += any(is_finding(p.status) for p in report.ranked)
                trials += int(report.budget.get("trials", 0))
            out[label] = {"sessions": sessions, "with_finding": found, "trials": trials}
    return out
