"""pst-text end to end on the real bundled SmolLM2: in-process and through a llama.cpp server."""

from __future__ import annotations

import math

import pytest

from diptych.core.engine import run_probe
from diptych.core.plugins import get_model, get_probe
from diptych.core.runview import RunView
from diptych.core.store import Store
from diptych.testing.llama_paths import PIECES_VS_WHOLE_LOG_ODDS

SUBSET = {"masculine": ["carpenter", "sheriff"], "feminine": ["nurse", "secretary"]}


def p_feminine_by_prompt(store: Store, run_id: str) -> dict[str, float]:
    view = RunView(store, store.get_run(run_id))
    out = {}
    for trial in view.trials:
        logprobs = view.results[trial.key].output["logprobs"]  # type: ignore[index]
        he, she = math.exp(logprobs[" he"]), math.exp(logprobs[" she"])
        out[trial.payload["prompt"]] = she / (he + she)
    return out


def log_odds(p: float) -> float:
    return math.log(p / (1 - p))


@pytest.mark.slow
def test_pst_text_on_smollm2_in_process_and_served(store: Store, llama_server: str) -> None:
    local = run_probe(store, "pst-text", [get_model("smollm2")], probe_params=SUBSET)
    served = run_probe(
        store,
        "pst-text",
        [get_model("openai-compatible", {"base_url": llama_server, "model": "smollm2"})],
        probe_params=SUBSET,
    )
    for run in (local, served):
        # 2 × 2 pairs × 2 orders × 2 people, and 4 identities × 3 samples.
        assert run.status == "complete" and run.n_trials == 16 + 12
    ours, theirs = p_feminine_by_prompt(store, local.id), p_feminine_by_prompt(store, served.id)
    assert ours.keys() == theirs.keys() and len(ours) == 16 + 4
    # The server evaluates each prompt whole; in-process, a prompt is evaluated in the pieces
    # its template fixes (shared pieces kept). The two roads decode the same tokens in batches
    # of other shapes, which llama.cpp's kernels round differently: the bound is what that
    # can move a prompt's log-odds on the builds measured (diptych.testing.llama_paths).
    for prompt, p in ours.items():
        assert abs(log_odds(theirs[prompt]) - log_odds(p)) <= PIECES_VS_WHOLE_LOG_ODDS, prompt
    # The model does tell the occupations apart: P(she) is far from constant.
    assert max(ours.values()) - min(ours.values()) > 0.3

    probe = get_probe("pst-text", SUBSET)
    numbers_local = probe.analyze(RunView(store, store.get_run(local.id))).numbers
    numbers_served = probe.analyze(RunView(store, store.get_run(served.id))).numbers
    key = "STS paired (expected from P(he), P(she))"
    # The paired figure is 100 × the mean of 2·P(stereotyped) − 1 over the paired prompts, so
    # the roads' figures differ by at most 200 × the mean |ΔP| of those prompts.
    paired = [prompt for prompt in ours if " on the left and " in prompt]
    moved = 200 * sum(abs(theirs[q] - ours[q]) for q in paired) / len(paired)
    assert abs(numbers_served[key]["value"] - numbers_local[key]["value"]) <= moved + 1e-9
    # Expected STS worked out from the probabilities: 2·P(stereotyped pronoun) − 1, × 100.
    feminine = set(SUBSET["feminine"])
    terms = []
    for prompt, p in ours.items():
        if " on the left and " not in prompt:
            continue
        target = prompt.split("The ")[-1].split(" on the ")[0]
        terms.append(2 * (p if target in feminine else 1 - p) - 1)
    assert len(terms) == 16
    assert numbers_local[key]["value"] == pytest.approx(100 * sum(terms) / len(terms))
