"""pst-text end to end on the real bundled SmolLM2: in-process and through a llama.cpp server."""

from __future__ import annotations

import math

import pytest

from diptych.core.engine import run_probe
from diptych.core.plugins import get_model, get_probe
from diptych.core.runview import RunView
from diptych.core.store import Store

SUBSET = {"masculine": ["carpenter", "sheriff"], "feminine": ["nurse", "secretary"]}


def p_feminine_by_prompt(store: Store, run_id: str) -> dict[str, float]:
    view = RunView(store, store.get_run(run_id))
    out = {}
    for trial in view.trials:
        logprobs = view.results[trial.key].output["logprobs"]  # type: ignore[index]
        he, she = math.exp(logprobs[" he"]), math.exp(logprobs[" she"])
        out[trial.payload["prompt"]] = she / (he + she)
    return out


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
    # its template fixes (shared pieces kept), whose batches round the last digits otherwise.
    for prompt, p in ours.items():
        assert theirs[prompt] == pytest.approx(p, abs=5e-3), prompt
    # The model does tell the occupations apart: P(she) is far from constant.
    assert max(ours.values()) - min(ours.values()) > 0.3

    probe = get_probe("pst-text", SUBSET)
    numbers_local = probe.analyze(RunView(store, store.get_run(local.id))).numbers
    numbers_served = probe.analyze(RunView(store, store.get_run(served.id))).numbers
    key = "STS paired (expected from P(he), P(she))"
    assert numbers_served[key]["value"] == pytest.approx(numbers_local[key]["value"], abs=0.2)
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
