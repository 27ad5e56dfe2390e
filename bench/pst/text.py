"""pst_text.*: the demo's plan (``pst-text`` on the bundled SmolLM2) through the likelihood road.

Both figures come from one process on the same machine at the same time, so the ratio
holds where absolute times do not (a 2-core machine shared with other work):

* ``prompts_per_s``: the demo's 1,640 distinct prompts asked in the engine's batches, in
  plan order, each evaluated in the pieces its template fixes (shared pieces kept);
* ``speedup_vs_fresh``: against every prompt evaluated whole from an empty cache (the road
  before pieces existed), on every ``FRESH_EVERY``-th prompt, timed in turns with the first so
  that both see the same load.

Beside the speedup, what bounds it: ``token_ratio`` is the tokens a fresh evaluation decodes
per prompt over those the pieces decode, and ``*_ms_per_token`` the cost of a decoded token on
each road. On llama.cpp's CPU kernels a token of SmolLM2 costs about the same in any batch of
more than a few tokens (with one thread, 8.2-8.6 ms of CPU per token from 8 to 256), so the
speedup cannot pass the token ratio: the pieces already decode each distinct beginning of the
plan's prompts once. ``floor_ratio`` is the same ratio against the plan's distinct token
prefixes, the fewest positions any exact evaluation must decode (a position's keys and values
depend on every token before it): 2.15 for the demo's plan, against a ``token_ratio`` of 2.13.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from bench.harness import Result, bench, result, rounded

#: The engine's batch for a llama.cpp model (its ``batch_size`` parameter's default).
BATCH = 64
#: One prompt in this many is also evaluated whole from an empty cache.
FRESH_EVERY = 4


@bench(pst_text__prompts_per_s=None, pst_text__speedup_vs_fresh=">= 3")
def pst_text_prefix_sharing() -> Iterator[Result]:
    """The demo's plan on SmolLM2: pieces kept and shared against every prompt fresh."""
    import asyncio

    from diptych.core.capabilities import LikelihoodRequest
    from diptych.core.plugins import get_probe
    from diptych.plugins.models.llamacpp import SmolLM2

    requests: dict[str, LikelihoodRequest] = {}
    for spec in get_probe("pst-text").plan():
        request = LikelihoodRequest.from_payload(spec.payload)
        requests.setdefault(request.prompt, request)
    planned = list(requests.values())
    shared, fresh = SmolLM2(), SmolLM2()
    shared.load()
    fresh.load()
    floor = distinct_prefixes(shared, planned)
    shared_s = fresh_s = 0.0
    n_fresh = 0
    try:
        for start in range(0, len(planned), BATCH):
            batch = planned[start : start + BATCH]
            t0 = time.perf_counter()
            shared._batch_sync(batch)
            shared_s += time.perf_counter() - t0
            for request in batch[::FRESH_EVERY]:
                whole = LikelihoodRequest(request.prompt, request.candidates)
                t0 = time.perf_counter()
                fresh._evaluator.forget()
                fresh._batch_sync([whole])
                fresh_s += time.perf_counter() - t0
                n_fresh += 1
        decodes = shared._evaluator.decodes
        shared_tokens = shared._evaluator.tokens
        fresh_tokens = fresh._evaluator.tokens
    finally:
        asyncio.run(shared.aclose())
        asyncio.run(fresh.aclose())
    per_prompt = shared_s / len(planned)
    per_prompt_fresh = fresh_s / n_fresh
    yield result(
        "pst_text.prompts_per_s",
        len(planned) / shared_s,
        "prompts/s",
        prompts=len(planned),
        wall_s=rounded(shared_s),
        decodes=decodes,
    )
    yield result(
        "pst_text.speedup_vs_fresh",
        per_prompt_fresh / per_prompt,
        "ratio",
        fresh_prompts=n_fresh,
        fresh_ms_per_prompt=rounded(1000 * per_prompt_fresh),
        shared_ms_per_prompt=rounded(1000 * per_prompt),
        token_ratio=rounded((fresh_tokens / n_fresh) / (shared_tokens / len(planned))),
        floor_ratio=rounded((fresh_tokens / n_fresh) / (floor / len(planned))),
        fresh_ms_per_token=rounded(1000 * fresh_s / fresh_tokens),
        shared_ms_per_token=rounded(1000 * shared_s / shared_tokens),
    )


def distinct_prefixes(model: Any, requests: list[Any]) -> int:
    """How many distinct token prefixes the requests' prompts have: each needs its own
    decoded position, however the prompts are cut or batched."""
    from diptych.plugins.models.llamacpp.likelihood import split_trailing_space

    seen: set[tuple[int, ...]] = set()
    for request in requests:
        tokens = tuple(model._tokenize(split_trailing_space(request.prompt)[0]))
        seen.update(tokens[:i] for i in range(1, len(tokens) + 1))
    return len(seen)


#: About this many of the demo's prompts cut in pieces are evaluated on both roads for the
#: path gap, spread evenly over the plan.
GAP_PROMPTS = 60


@bench(
    pst_text__path_gap_log_odds="<= 0.35",
    pst_text__path_gap_logprob="<= 0.35",
)
def pst_text_path_gap() -> Iterator[Result]:
    """How far the pieces road and the whole-prompt road (a server's) differ on this build:
    the largest |Δ (ln P(she) − ln P(he))| and |Δ ln p| of a candidate over about
    ``GAP_PROMPTS`` prompts of the demo's plan that are cut in pieces. The targets are the
    bounds the tests use (``diptych.testing.llama_paths``); run with another build of
    llama-cpp-python first on ``PYTHONPATH`` to measure that build."""
    import asyncio

    import llama_cpp

    from diptych.core.capabilities import LikelihoodRequest
    from diptych.core.plugins import get_probe
    from diptych.plugins.models.llamacpp import SmolLM2
    from diptych.testing.llama_paths import (
        OTHER_SHAPES_LOGPROB_PER_TOKEN,
        PIECES_VS_WHOLE_LOG_ODDS,
    )

    requests: dict[str, LikelihoodRequest] = {}
    for spec in get_probe("pst-text").plan():
        request = LikelihoodRequest.from_payload(spec.payload)
        requests.setdefault(request.prompt, request)
    # Prompts without pieces are evaluated whole on both roads: only those with pieces differ.
    cut = [r for r in requests.values() if len(r.segments) > 1]
    sample = cut[:: max(1, len(cut) // GAP_PROMPTS)]
    model = SmolLM2()
    model.load()
    try:
        pieces = model._batch_sync(sample)
        whole = []
        for request in sample:
            model._evaluator.forget()
            whole += model._batch_sync([LikelihoodRequest(request.prompt, request.candidates)])
    finally:
        asyncio.run(model.aclose())
    log_odds = max(
        abs((a[" she"] - a[" he"]) - (b[" she"] - b[" he"]))
        for a, b in zip(pieces, whole, strict=True)
    )
    logprob = max(abs(a[c] - b[c]) for a, b in zip(pieces, whole, strict=True) for c in a)
    build = llama_cpp.llama_print_system_info().decode().strip()
    yield result(
        "pst_text.path_gap_log_odds",
        log_odds,
        "nats",
        prompts=len(sample),
        bound=PIECES_VS_WHOLE_LOG_ODDS,
        build=build,
    )
    yield result(
        "pst_text.path_gap_logprob",
        logprob,
        "nats",
        prompts=len(sample),
        bound=OTHER_SHAPES_LOGPROB_PER_TOKEN,
        build=build,
    )


#: The prompt the in-process scoring figure times: one PST-text scene, two candidates.
NURSE = (
    "One nurse stands on the left and one carpenter stands on the right. "
    "The nurse on the left says that"
)


@bench(pst_text__scoring_over_prompt_evaluation="<= 3")
def pst_text_scoring_cost() -> Iterator[Result]:
    """SmolLM2's next-token log-probabilities of a fresh prompt against the same machine's own
    evaluation of that prompt (best of ten each, after a warm-up): tokenising and two
    log-softmaxes over the vocabulary should add little to the evaluation they rest on."""
    import asyncio

    from diptych.plugins.models.llamacpp import SmolLM2

    model = SmolLM2()
    model.load()
    prompt_ids = model._tokenize(NURSE)

    def best_of_ten(call: Any) -> float:
        call()
        times = []
        for _ in range(10):
            t0 = time.perf_counter()
            call()
            times.append(time.perf_counter() - t0)
        return min(times)

    def prompt_only() -> None:
        model._llm.reset()
        model._llm.eval(prompt_ids)

    def scoring_afresh() -> None:
        model._evaluator.forget()
        model._logprobs_sync(NURSE, [" he", " she"])

    try:
        evaluation = best_of_ten(prompt_only)
        scoring = best_of_ten(scoring_afresh)
    finally:
        asyncio.run(model.aclose())
    yield result(
        "pst_text.scoring_over_prompt_evaluation",
        rounded(scoring / evaluation),
        "x",
        scoring_s=rounded(scoring),
        evaluation_s=rounded(evaluation),
    )
