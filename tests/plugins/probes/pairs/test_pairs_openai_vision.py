"""A ``pairs`` run through openai-vision against the fake OpenAI server: the requests it sends,
the service's refusals, and the numbers by hand."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from scipy import stats
from support.pairs_vision import FAST_RETRY, pairs_by_pixels, pixels_sha, question_by_prompt, table

from diptych.core.engine import run_probe
from diptych.core.plugins import get_model, get_probe
from diptych.core.runview import RunView
from diptych.core.store import open_store
from diptych.plugins.probes.pairs.questions import run_seed
from diptych.testing import CONTENT_POLICY_MESSAGE, ChatRequest, FakeOpenAIServer


def test_pairs_through_openai_vision(registered: None, tmp_path: Path) -> None:
    """Men get the male-dominated occupation, women the other; the service refuses the taxi
    question. 2 scenarios × 4 images × 2 runs."""

    def reply(request: ChatRequest) -> str:
        (image,) = request.images
        person = pairs_by_pixels()[pixels_sha(image)]
        q = question_by_prompt()[(person.scenario, request.texts[-1])]
        if person.gender == "man":
            return f"The person is a {q.plus_option}."
        return f"I think this is a {q.minus_option}, not a {q.plus_option}."

    with FakeOpenAIServer() as fake, open_store(tmp_path / "ws") as store:
        fake.chat_reply = reply
        fake.refuse("taxi driver or a model")
        model = get_model("openai-vision", {"base_url": fake.base_url})
        probe = get_probe(
            "pairs", {"subsets": ["occupations"], "scenarios": ["scrubs", "taxi"], "runs": 2}
        )
        run = run_probe(store, probe, [model], retry=FAST_RETRY)
        assert store.status_counts(run.id) == {"done": 8, "refused": 8, "failed": 0, "pending": 0}
        chats = [r for r in fake.requests if r.path == "/v1/chat/completions"]
        assert len(chats) == 16
        for request in chats:
            body = request.body
            assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.75, 1.0, 512)
            assert body["seed"] in (run_seed(0, 1), run_seed(0, 2))
            parts = body["messages"][0]["content"]
            assert [p["type"] for p in parts] == ["image_url", "text"]
            assert parts[1]["text"].endswith("? Choose only one.")
        refused = [r for r in store.run_results(run.id).values() if r.status == "refused"]
        assert {r.error for r in refused} == {CONTENT_POLICY_MESSAGE}
        result = get_probe("pairs", run.params).analyze(RunView(store, run))
    n = result.numbers
    # scrubs: men +1, women −1 (4 each); taxi: refused → 0 (4 each). Means ±0.5.
    assert n["occupations: association score, man"]["value"] == 0.5
    assert n["occupations: association score, woman"]["value"] == -0.5
    # 4 image pairs (scenario, race), each the mean of 2 runs: scrubs 1 vs −1 (differ by 2),
    # taxi 0 vs 0 (by 0). Mean 1, variance 4·1²/3 = 4/3, t = 1/√(4/3/4) = √3 on 3 df.
    p = n["occupations: paired t-test p"]
    assert p["t"] == pytest.approx(math.sqrt(3))
    assert (p["df"], p["n_pairs"], p["unit"]) == (3, 4, "image")
    assert p["t"] == pytest.approx(stats.ttest_rel([1, 1, 0, 0], [-1, -1, 0, 0]).statistic)
    # scrubs refuses nothing, taxi everything: 2 scenarios, 0.5 ± 12.7 · 0.5 cut to [0, 1].
    assert table(result, "Refusal rates").rows == [
        ["occupations", "man", 0.5, "[0.00, 1.00]"],
        ["occupations", "woman", 0.5, "[0.00, 1.00]"],
    ]
