"""What the openai-compatible plugin sends and how it reads the replies: schema requests and
sampling, log-probabilities through top_logprobs and echo; its version, registration and
imports."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest
from support.openai_http import (
    ANSWER_SCHEMA,
    ASK,
    FakeOpenAI,
    Scripted,
    chat_answer,
    completion_answer,
    model_for,
    openai_error,
)

from diptych.core.capabilities import Model, Sampling
from diptych.core.errors import PermanentModelError
from diptych.plugins.models import openai_compat
from diptych.plugins.models.openai_compat import OpenAICompatible, parse_retry_after


async def test_schema_request_uses_openai_form_first_and_sampling(fake: FakeOpenAI) -> None:
    fake.script.append(Scripted(200, chat_answer('{"answer": "she"}')))
    model = model_for(fake)
    reply = await model.complete(
        ASK, Sampling(temperature=0.7, top_p=0.9, max_tokens=12, seed=5), schema=ANSWER_SCHEMA
    )
    assert json.loads(reply) == {"answer": "she"}
    sent = fake.requests[0]["json"]
    assert fake.requests[0]["path"] == "/v1/chat/completions"
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": ANSWER_SCHEMA, "strict": True},
    }
    assert (sent["temperature"], sent["top_p"], sent["max_tokens"], sent["seed"]) == (
        0.7,
        0.9,
        12,
        5,
    )
    assert model.provenance()["server_reported_model"] == "gpt-test-2024-01-01"


async def test_a_reply_that_is_not_json_under_a_schema_is_permanent(fake: FakeOpenAI) -> None:
    cut = chat_answer('{"answer": "sh')
    cut["choices"][0]["finish_reason"] = "length"
    fake.script.append(Scripted(200, cut))
    with pytest.raises(PermanentModelError, match=r"cut it short \(finish_reason=length\); raise"):
        await model_for(fake).complete(ASK, Sampling(), schema=ANSWER_SCHEMA)
    # A reply that stopped on its own: what the parser found where, not "raise max_tokens".
    fake.script.append(Scripted(200, chat_answer('{"answer": "sh')))
    with pytest.raises(PermanentModelError) as stopped:
        await model_for(fake).complete(ASK, Sampling(), schema=ANSWER_SCHEMA)
    assert str(stopped.value) == (
        "The reply is not valid JSON (Unterminated string starting at: line 1 column 12 "
        "(char 11); finish_reason=stop)."
    )


async def test_a_raw_control_character_inside_a_string_is_read_as_written(
    fake: FakeOpenAI,
) -> None:
    # llama.cpp's JSON-schema grammar lets a model write one; strict JSON would refuse it.
    fake.script.append(Scripted(200, chat_answer('{"answer": "s\nhe"}')))
    reply = await model_for(fake).complete(ASK, Sampling(), schema=ANSWER_SCHEMA)
    assert json.loads(reply, strict=False) == {"answer": "s\nhe"}


async def test_top_logprobs_step_down_to_what_the_server_allows(fake: FakeOpenAI) -> None:
    top = {" the": -0.7, " he": -2.4, " she": -2.5}
    completion = {
        "id": "cmpl-1",
        "object": "text_completion",
        "created": 0,
        "model": "gpt-test",
        "choices": [
            {
                "index": 0,
                "text": " the",
                "finish_reason": "length",
                "logprobs": {
                    "tokens": [" the"],
                    "token_logprobs": [-0.7],
                    "top_logprobs": [top],
                    "text_offset": [19],
                },
            }
        ],
    }
    too_many = openai_error(
        "logprobs must be less than or equal to 5", "invalid_request_error", None
    )
    fake.script += [Scripted(400, too_many), Scripted(400, too_many), Scripted(200, completion)]
    model = model_for(fake)
    assert await model.next_token_logprobs("The nurse said that", [" he", " she"]) == {
        " he": -2.4,
        " she": -2.5,
    }
    assert [r["json"]["logprobs"] for r in fake.requests] == [100, 20, 5]
    assert all(r["json"]["max_tokens"] == 1 for r in fake.requests)


async def test_echo_on_a_correctly_aligned_server(fake: FakeOpenAI) -> None:
    # What OpenAI and vLLM send: with echo=True the first token has no value and every
    # other token's value comes from the distribution at its own position.
    after_prompt = {" the": -0.7, " he": -2.4, " she": -2.5}
    prompt = "The nurse said that"
    fake.script += [
        Scripted(
            200,
            completion_answer(
                {
                    "tokens": [" the"],
                    "token_logprobs": [-0.7],
                    "top_logprobs": [after_prompt],
                    "text_offset": [len(prompt)],
                }
            ),
        ),
        Scripted(
            200,
            completion_answer(
                {
                    "tokens": ["The", " nurse", " said", " that", " carp", "enters", " are"],
                    "token_logprobs": [None, -9.0, -3.0, -1.0, -7.5, -0.6, -1.1],
                    "top_logprobs": [
                        None,
                        {" nurse": -9.0, " man": -4.0},
                        {" said": -3.0, " is": -1.0},
                        {" that": -1.0, ",": -0.9},
                        {**after_prompt, " carp": -7.5},
                        {"enters": -0.6},
                        {" are": -1.1},
                    ],
                    "text_offset": [0, 3, 9, 14, 19, 24, 30],
                }
            ),
        ),
    ]
    values = await model_for(fake, top_logprobs=3).next_token_logprobs(
        prompt, [" he", " carpenters"]
    )
    assert values == {" he": -2.4, " carpenters": pytest.approx(-7.5 - 0.6)}
    echo = fake.requests[1]["json"]
    assert echo["prompt"] == prompt + " carpenters"
    assert (echo["echo"], echo["max_tokens"], echo["logprobs"]) == (True, 1, 3)


async def test_a_server_keeping_no_logits_is_a_permanent_error(fake: FakeOpenAI) -> None:
    # llama-cpp-python's server started with --logits_all false, word for word.
    fake.script.append(
        Scripted(
            500,
            openai_error(
                "logprobs is not supported for models created with logits_all=False",
                "internal_server_error",
                None,
            ),
        )
    )
    with pytest.raises(PermanentModelError, match="--logits_all true"):
        await model_for(fake).next_token_logprobs("The nurse said that", [" he"])


def test_retry_after_parsing() -> None:
    assert parse_retry_after({"retry-after": "3"}) == 3
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "3"}) == 0.25
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert parse_retry_after({"retry-after": later}) == pytest.approx(30, abs=2)
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_version_names_host_and_model_without_credentials() -> None:
    model = OpenAICompatible(
        OpenAICompatible.Params(base_url="https://user:pw@api.example.com/v1/", model="m-1")
    )
    assert model.version == "api.example.com/v1/m-1"
    assert model.hints.max_concurrency == 8 and model.hints.blocking is False
    assert model.identity_params() == {
        "base_url": "api.example.com/v1",
        "model": "m-1",
        "schema_format": "auto",
    }


def test_registers_the_model() -> None:
    registered: list[type[Model]] = []
    openai_compat.register_models(registered.append)
    assert registered == [OpenAICompatible]


def test_importing_the_plugin_does_not_import_openai() -> None:
    code = (
        "import sys, diptych.plugins.models.openai_compat\n"
        "assert 'openai' not in sys.modules, 'openai imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[4])
