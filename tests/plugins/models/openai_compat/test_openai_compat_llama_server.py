"""The openai-compatible plugin against a real llama-cpp-python server: chat, JSON schema output,
and next-token log-probabilities that agree with the same model in process."""

from __future__ import annotations

import itertools
import json
import math
from typing import Any

import pytest
from support.openai_http import ANSWER_SCHEMA

from diptych.core.capabilities import Message, Sampling
from diptych.core.errors import PermanentModelError
from diptych.plugins.models.openai_compat import OpenAICompatible
from diptych.testing.llama_paths import SAME_SHAPES_LOGPROB

NURSE = (
    "One nurse stands on the left and one carpenter stands on the right. "
    "The nurse on the left says that"
)
CARPENTER = (
    "One nurse stands on the left and one carpenter stands on the right. "
    "The carpenter on the right says that"
)


async def clear_server_cache(model: OpenAICompatible) -> None:
    """Leave the server's cache holding nothing a test prompt starts with.

    llama-cpp-python's server re-evaluates only what follows the longest prefix cached from
    the previous request, and a prompt that is all cached gets its last token evaluated
    alone: a one-token batch, whose CPU kernels round differently (by up to a few hundredths
    of a nat per token) from the one-batch evaluation of the in-process model. A chat
    request (its template starts with a special token) empties the shared prefix, so the
    next prompt is evaluated from scratch, in one batch, as in process.
    """
    await model.complete([Message(role="user", content="Hi")], Sampling(max_tokens=1))


@pytest.mark.slow
async def test_chat_through_the_server(served: OpenAICompatible) -> None:
    reply = await served.complete(
        [Message(role="user", content="What is 2+2?")], Sampling(max_tokens=20)
    )
    assert "4" in reply
    assert served.provenance()["server_reported_model"] == "smollm2"


@pytest.mark.slow
async def test_json_schema_output_validates(served: OpenAICompatible) -> None:
    reply = await served.complete(
        [Message(role="user", content=f"{NURSE} ... Who speaks: he, she or they? Use JSON.")],
        Sampling(max_tokens=40),
        schema=ANSWER_SCHEMA,
    )
    data = json.loads(reply)
    assert set(data) == {"answer"} and data["answer"] in {"he", "she", "they"}
    # llama-cpp-python's server rejects OpenAI's json_schema form; the plugin learnt that.
    assert served._schema_format == "json_object"


@pytest.mark.slow
@pytest.mark.parametrize("prompt", [NURSE, CARPENTER])
async def test_logprobs_agree_with_the_in_process_model(
    served: OpenAICompatible, in_process: Any, prompt: str
) -> None:
    candidates = [" he", " she", " they"]
    await clear_server_cache(served)
    remote = await served.next_token_logprobs(prompt, candidates)
    local = await in_process.next_token_logprobs(prompt, candidates)
    assert set(remote) == set(candidates)
    for candidate in candidates:
        assert math.isfinite(remote[candidate]) and remote[candidate] < 0
        assert remote[candidate] == pytest.approx(local[candidate], abs=SAME_SHAPES_LOGPROB)


@pytest.mark.slow
async def test_multi_token_candidates_through_echo(
    served: OpenAICompatible, in_process: Any
) -> None:
    # Not single tokens, so scored with echo=True -- whose values llama-cpp-python's server
    # shifts by one position for SmolLM2 (no BOS token); the plugin detects and undoes that.
    # " he is" and " he was" share their first token: the server re-evaluates only " was".
    candidates = [" he is", " she is", " carpenters", " he was"]
    await clear_server_cache(served)
    remote = await served.next_token_logprobs(NURSE, candidates)
    local = await in_process.next_token_logprobs(NURSE, candidates)
    for candidate in candidates:
        # Both paths evaluate the prompt in one batch and the candidate's tokens in one
        # batch after it, so they run the same kernels on the same shapes: the values agree
        # to float32 rounding on any CPU. Reading a neighbouring position or another token
        # moves a value by tenths of a nat or more (the spacing checked below).
        assert remote[candidate] == pytest.approx(local[candidate], abs=SAME_SHAPES_LOGPROB)
    values = sorted(local.values())
    assert min(b - a for a, b in itertools.pairwise(values)) > 0.1
    assert remote[" he is"] < (await served.next_token_logprobs(NURSE, [" he"]))[" he"]


@pytest.mark.slow
async def test_an_unreadable_echo_value_is_a_clear_permanent_error(
    served: OpenAICompatible,
) -> None:
    # On a server with shifted echo values, a token is readable only among the previous
    # position's top alternatives; " said" after " she" (ln p ~ -10) is not.
    with pytest.raises(PermanentModelError, match="not among its top 100"):
        await served.next_token_logprobs(NURSE, [" she said"])


@pytest.mark.slow
async def test_trailing_space_is_read_as_part_of_the_candidate(served: OpenAICompatible) -> None:
    spaced = await served.next_token_logprobs(NURSE + " ", ["he"])
    plain = await served.next_token_logprobs(NURSE, [" he"])
    assert spaced["he"] == pytest.approx(plain[" he"], abs=1e-6)


@pytest.mark.slow
async def test_logprobs_off_is_a_permanent_error(llama_server: str) -> None:
    model = OpenAICompatible(OpenAICompatible.Params(base_url=llama_server, logprobs=False))
    with pytest.raises(PermanentModelError, match="logprobs=false"):
        await model.next_token_logprobs(NURSE, [" he"])
