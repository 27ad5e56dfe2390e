"""Agent benchmarks: the loop's own overhead per proposal, SmolLM2's valid-proposal rate, and
the agent's decisions on scripted targets with a known truth.

``agent.loop_overhead_ms``: one identity-search round of 10 proposals on zero-latency scripted
agent and target models (the hashing embedder, so the sentence model's load is not counted),
per proposal: validation, deduplication, memory, checkpoints, reading the labels and the
intervals — the time inside the probe's runs left out (a proposal takes 8 runs of 24 trials in
its search alone; ``with_probe_runs_ms`` reports the whole). ``agent.smollm2_valid_rate``:
the share of the pairs the real SmolLM2 proposes over several rounds, under the lexicon's
enum grammar, that are valid (real, non-gendered, not the paper's, not tried before).
``agent.null_false_findings_rate``, ``agent.planted_recall``, ``agent.vs_random_efficiency``,
``agent.placebo_false_findings_rate`` and ``agent.default_gender_false_findings_rate``: see
their functions; the mitigation search's figures are in ``bench/agent/mitigation.py``.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# The mitigation benchmarks register with this area from their own module.
import bench.agent.mitigation  # noqa: F401
from bench.harness import Result, bench, result

N_PROPOSALS = 10


@bench(agent__loop_overhead_ms="<= 50")
def loop_overhead() -> Iterator[Result]:
    from diptych.agent.identities import IdentitySettings
    from diptych.agent.memory import HashingEmbedder
    from diptych.agent.session import search_identities
    from diptych.core.workspace import Workspace

    pairs = [(f"masc{chr(97 + i)}worker", f"fem{chr(97 + i)}worker") for i in range(N_PROPOSALS)]
    answer = json.dumps(
        {
            "proposals": [
                {"masculine": m, "feminine": f, "kind": "occupation", "rationale": "r"}
                for m, f in pairs
            ]
        }
    )
    with tempfile.TemporaryDirectory() as tmp, Workspace.open(Path(tmp) / "ws") as ws:
        agent = ws.plugins.model("scripted-chat")
        # A first session of one proposal pays the imports (langgraph, chromadb) and opens the
        # memory; the figure is the loop's own cost, per proposal, after that.
        agent.enqueue(
            json.dumps(
                {
                    "proposals": [
                        {
                            "masculine": "warmupmasc",
                            "feminine": "warmupfem",
                            "kind": "occupation",
                            "rationale": "r",
                        }
                    ]
                }
            )
        )
        search_identities(
            ws,
            ws.plugins.model("scripted-likelihood"),
            agent,
            IdentitySettings(
                session="warm-up",
                rounds=1,
                per_round=1,
                proposer="llm",
                allow_new=True,
            ),
            embedder=HashingEmbedder(),
        )
        agent.enqueue(answer)
        settings = IdentitySettings(
            session="bench",
            rounds=1,
            per_round=N_PROPOSALS,
            proposer="llm",
            allow_new=True,
        )
        # The probe's runs are timed apart: their trials are the engine's cost (engine.*
        # figures), and a proposal now takes 8 or more runs (partners x paraphrases).
        in_runs = [0.0]
        run_probe = ws.runs.run

        async def timed_run(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return await run_probe(*args, **kwargs)
            finally:
                in_runs[0] += time.perf_counter() - began

        ws.runs.run = timed_run  # type: ignore[method-assign]
        start = time.perf_counter()
        report = search_identities(
            ws, ws.plugins.model("scripted-likelihood"), agent, settings, embedder=HashingEmbedder()
        )
        elapsed = time.perf_counter() - start
    yield result(
        "agent.loop_overhead_ms",
        1000 * (elapsed - in_runs[0]) / N_PROPOSALS,
        "ms",
        with_probe_runs_ms=round(1000 * elapsed / N_PROPOSALS, 1),
        trials_per_proposal=int(report.budget.get("trials", 0)) // N_PROPOSALS,
    )


#: Rounds SmolLM2 proposes in for its valid-rate figure, and pairs per round.
SMOLLM2_ROUNDS = 8
SMOLLM2_PER_ROUND = 3


@bench(agent__smollm2_valid_rate=">= 0.9")
def smollm2_valid_rate() -> Iterator[Result]:
    """The real SmolLM2 proposes pairs for several rounds under the lexicon's enum grammar,
    what it chose each round removed from the next round's enum as a session's memory would.
    A pair is valid when validation accepts it (new words not allowed), both identities are
    real (the lexicon's) and non-gendered, neither is the paper's, and neither was proposed
    before (an earlier round or an earlier pair of the same round). The share is over every
    pair asked for: a reply that is not JSON counts as that many invalid pairs."""
    from diptych.agent.chat_model import DiptychChatModel
    from diptych.agent.identities import IdentitySettings, _seed, ask_round
    from diptych.agent.memory import HashingEmbedder, Memory
    from diptych.agent.proposals import Proposal, parse_round, validate
    from diptych.agent.proposer import offer, tried_identities, valid_pair
    from diptych.core.workspace import Workspace

    settings = IdentitySettings(session="bench-smollm2", per_round=SMOLLM2_PER_ROUND)
    # One thread: the answers are the same for any count (see the llamacpp plugin), and on a
    # shared machine spinning threads slow llama.cpp down many times over.
    chat = DiptychChatModel(Workspace.plugins.model(("smollm2", {"n_threads": 1})))
    earlier: list[Proposal] = []
    valid = asked = 0
    with tempfile.TemporaryDirectory() as tmp:
        memory = Memory(Path(tmp), HashingEmbedder())
        for round_no in range(SMOLLM2_ROUNDS):
            tried = tried_identities(earlier)
            seed = _seed(settings.session, round_no)
            candidates = offer(settings.kinds, tried, settings.allow_new, seed)
            raw, reply = ask_round(chat, settings, round_no, earlier, memory, candidates, seed)
            asked += settings.per_round
            for p in parse_round(reply, raw, round_no, 0, settings.per_round):
                p = validate(p, frozenset(settings.kinds), allow_new=False)
                if valid_pair(p, tried):
                    valid += 1
                if p.status == "accepted":
                    tried |= {p.masculine, p.feminine}
                    # Scored, as far as the next round's memory is concerned.
                    p.status = "no finding"
                earlier.append(p)
    yield result(
        "agent.smollm2_valid_rate",
        valid / max(asked, 1),
        "share",
        pairs=asked,
        valid=valid,
        rounds=SMOLLM2_ROUNDS,
    )


# --- the agent's decisions on scripted targets with a known truth ------------------------------
#
# No LLM: the target is ``scripted-likelihood`` with ``p_feminine`` (the P(she) of each planted
# identity, 0.5 for every other), a uniform noise of ±0.05 on P(she) per prompt (seeded by the
# target's version) so that intervals have width, and the agent is either the lexicon's random
# proposer (``--proposer lexicon``) or a scripted chat model whose answers are fixed below.

#: Sessions on the null target, and pairs each proposes.
NULL_SESSIONS = 40
NULL_PER_ROUND = 3
#: Planted identities per side, their P(she), and the trial budget of a planted session.
PLANTED_PER_SIDE = 6
PLANTED_P_FEMININE = {"masculine": 0.35, "feminine": 0.65}
PLANTED_BUDGET = 8000
PLANTED_ROUNDS = 20
PLANTED_PER_ROUND = 3
#: Random-proposer sessions pooled for the efficiency baseline.
RANDOM_SESSIONS = 4
#: The planted targets' default genders (P(she) of anyone they hold no stereotype about), and
#: the one the random proposer is compared on.
PLANTED_DEFAULTS = {"no default": 0.5, "70% he": 0.3, "90% he": 0.1}
RANDOM_DEFAULT = 0.3
#: Rounds in a row without a new finding after which a session stops (the CLI's default).
PATIENCE = 2
KINDS = ("occupation", "power role")


def _known_share() -> dict[str, list[str]]:
    """The lexicon's identities (outside the paper's lists) with a known share of women, by
    side, most skewed first."""
    from diptych.agent.lexicon import lexicon

    lex = lexicon()
    out: dict[str, list[str]] = {}
    for side in ("masculine", "feminine"):
        names = [n for n in lex.candidates(side, KINDS) if lex.entries[n].pct_female is not None]
        share = {n: float(lex.entries[n].pct_female or 50.0) for n in names}
        out[side] = sorted(names, key=lambda n: -abs(share[n] - 50))
    return out


def _planted() -> dict[str, float]:
    """P(she) of the planted identities: ``PLANTED_PER_SIDE`` of each side drawn at random
    (fixed seed) among the lexicon's identities with a known share of women."""
    import random

    rng = random.Random(7)
    known = _known_share()
    return {
        name: PLANTED_P_FEMININE[side]
        for side in ("masculine", "feminine")
        for name in rng.sample(known[side], PLANTED_PER_SIDE)
    }


def _informed_pairs() -> list[tuple[str, str]]:
    """The scripted agent's proposals: the lexicon's identities with a known share of women
    first, most skewed first (what a model that knows labour statistics would try), then the
    rest in the lexicon's order; no identity twice."""
    from diptych.agent.lexicon import lexicon

    lex = lexicon()
    known = _known_share()
    order = {
        side: known[side] + [n for n in lex.candidates(side, KINDS) if n not in known[side]]
        for side in ("masculine", "feminine")
    }
    pairs, used = [], set()
    fem = iter(order["feminine"])
    for m in order["masculine"]:
        if m in used:
            continue
        f = next((x for x in fem if x not in used and x != m), None)
        if f is None:
            break
        used |= {m, f}
        pairs.append((m, f))
    return pairs


def _session(
    ws: Any,
    target: Any,
    session: str,
    *,
    proposer: str,
    rounds: int,
    per_round: int,
    max_trials: int | None = None,
    pairs: list[tuple[str, str]] | None = None,
) -> Any:
    from diptych.agent.identities import IdentitySettings
    from diptych.agent.memory import HashingEmbedder
    from diptych.agent.session import search_identities

    agent = ws.plugins.model("scripted-chat")
    for r in range(rounds):
        chunk = (pairs or [])[r * per_round : (r + 1) * per_round]
        agent.enqueue(
            json.dumps(
                {
                    "proposals": [
                        {"masculine": m, "feminine": f, "kind": "occupation", "rationale": "r"}
                        for m, f in chunk
                    ]
                }
            )
        )
    settings = IdentitySettings(
        session=session,
        rounds=rounds,
        per_round=per_round,
        proposer=proposer,
        # The default: a session stops after two rounds in a row without a new finding.
        patience=PATIENCE,
        max_trials=max_trials,
    )
    return search_identities(ws, target, agent, settings, embedder=HashingEmbedder())


def _confirmed(report: Any, planted: dict[str, float]) -> set[str]:
    """Planted identities the session confirmed (each identity of a pair is decided on its
    own held-out test)."""
    out = set()
    for p in report.ranked:
        for part in (p.heldout or {}).get("parts") or []:
            if part["identity"] in planted and part.get("status") == "finding":
                out.add(part["identity"])
    return out


@bench(agent__null_false_findings_rate="<= 0.05")
def null_false_findings_rate() -> Iterator[Result]:
    """Sessions of random lexicon pairs on a target that stereotypes nobody (P(he) = P(she)
    for every identity, up to each prompt's noise): the share with any finding (of a pair or
    of one side)."""
    from diptych.agent.decision import is_finding
    from diptych.core.workspace import Workspace

    with_finding, scored, trials = 0, 0, 0
    with tempfile.TemporaryDirectory() as tmp, Workspace.open(Path(tmp) / "ws") as ws:
        for i in range(NULL_SESSIONS):
            target = ws.plugins.model(
                (
                    "scripted-likelihood",
                    {"p_feminine": {}, "noise": 0.05, "version": f"null-{i}"},
                )
            )
            report = _session(
                ws, target, f"null-{i}", proposer="lexicon", rounds=1, per_round=NULL_PER_ROUND
            )
            with_finding += any(is_finding(p.status) for p in report.ranked)
            scored += sum(p.sts is not None for p in report.ranked)
            trials += int(report.budget.get("trials", 0))
    yield result(
        "agent.null_false_findings_rate",
        with_finding / NULL_SESSIONS,
        "share",
        sessions=NULL_SESSIONS,
        proposals_scored=scored,
        trials=trials,
    )


@bench(
    agent__planted_recall=">= 0.8",
    agent__vs_random_efficiency=">= 2",
)
def planted_recall() -> Iterator[Result]:
    """Stereotypes planted on 12 lexicon identities outside the paper's lists (P(she) 0.35 on
    six masculine-side ones, 0.65 on six feminine-side ones, on a model without a default
    gender), found within a budget of 8,000 trials (the placebo words' included), on three
    targets: without a default gender, and saying "he" of 70% and of 90% of anyone (every
    person's log-odds moved by the default's, the planted ones' too). The figure is the
    smallest recall of the three. The scripted agent proposes what a model that knows labour
    statistics would (:func:`_informed_pairs`); the planted identities are a random subset of
    those whose share of women the lexicon knows, so the figure measures the loop given such a
    proposer, not an LLM's knowledge. ``agent.vs_random_efficiency``: confirmed planted
    identities per 1,000 trials spent, the agent's over the lexicon's random pairs' (same
    target — 70% "he" — budget and settings, both stop after two quiet rounds, four random
    sessions pooled)."""
    from diptych.core.workspace import Workspace

    planted = _planted()

    def spec(default: float) -> tuple[str, dict[str, Any]]:
        params = {"p_feminine": planted, "noise": 0.05, "default_p_feminine": default}
        return ("scripted-likelihood", {**params, "version": f"planted-{default}"})

    recall: dict[str, float] = {}
    trials: dict[str, int] = {}
    agent_found: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        for label, default in PLANTED_DEFAULTS.items():
            with Workspace.open(Path(tmp) / f"agent-{default}") as ws:
                report = _session(
                    ws, ws.plugins.model(spec(default)), "planted", proposer="llm",
                    rounds=PLANTED_ROUNDS, per_round=PLANTED_PER_ROUND,
                    max_trials=PLANTED_BUDGET, pairs=_informed_pairs(),
                )  # fmt: skip
                found = _confirmed(report, planted)
                recall[label] = len(found) / len(planted)
                trials[label] = int(report.budget.get("trials", 0))
                if default == RANDOM_DEFAULT:
                    agent_found = found
        random_found, random_trials = 0, 0
        for i in range(RANDOM_SESSIONS):
            with Workspace.open(Path(tmp) / f"random-{i}") as ws:
                report = _session(
                    ws, ws.plugins.model(spec(RANDOM_DEFAULT)), f"random-{i}",
                    proposer="lexicon", rounds=PLANTED_ROUNDS, per_round=PLANTED_PER_ROUND,
                    max_trials=PLANTED_BUDGET,
                )  # fmt: skip
                random_found += len(_confirmed(report, planted))
                random_trials += int(report.budget.get("trials", 0))
    yield result(
        "agent.planted_recall",
        min(recall.values()),
        "share",
        planted=len(planted),
        recall=recall,
        trials=trials,
        budget=PLANTED_BUDGET,
    )
    agent_trials = trials[next(k for k, v in PLANTED_DEFAULTS.items() if v == RANDOM_DEFAULT)]
    agent_rate = 1000 * len(agent_found) / max(agent_trials, 1)
    random_rate = 1000 * random_found / max(random_trials, 1)
    yield result(
        "agent.vs_random_efficiency",
        agent_rate / random_rate if random_rate else float("inf"),
        "ratio",
        agent_per_1000_trials=round(agent_rate, 3),
        random_per_1000_trials=round(random_rate, 3),
        random_confirmed=random_found,
        random_trials=random_trials,
    )


@bench(agent__placebo_false_findings_rate="<= 0.05")
def placebo_false_findings_rate() -> Iterator[Result]:
    """Made-up pairs ("glorber | flimbat" and the like, none a placebo word) proposed to the
    real SmolLM2, which says "he" of most people it knows nothing about: the share of them
    declared findings, of a pair or of one side (bench/agent/placebo.py)."""
    from bench.agent.placebo import SMOLLM2_PARTNERS, made_up_words_on_smollm2

    got = made_up_words_on_smollm2()
    n = max(got["proposals"], 1)
    rate = got["declared"] / n
    yield result(
        "agent.placebo_false_findings_rate",
        rate,
        "share",
        mc_error=round((max(rate, 1 / n) * (1 - rate) / n) ** 0.5, 3),
        partners=SMOLLM2_PARTNERS,
        **got,
    )


@bench(agent__default_gender_false_findings_rate="<= 0.05")
def default_gender_false_findings_rate() -> Iterator[Result]:
    """Null sessions (random lexicon pairs, nothing planted) on scripted models that say "he"
    of 70% and of 90% of anyone: the share of sessions with any finding, the two pooled
    (bench/agent/placebo.py)."""
    from bench.agent.placebo import default_gender_nulls

    got = default_gender_nulls()
    sessions = sum(g["sessions"] for g in got.values())
    rate = sum(g["with_finding"] for g in got.values()) / sessions
    yield result(
        "agent.default_gender_false_findings_rate",
        rate,
        "share",
        sessions=sessions,
        mc_error=round((max(rate, 1 / sessions) * (1 - rate) / sessions) ** 0.5, 3),
        by_default=got,
    )
