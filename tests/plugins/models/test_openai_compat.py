"""The openai-compatible model plugin: against a real llama-cpp-python server and a fake one."""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from diptych.core.capabilities import Message, Model, Sampling
from diptych.core.errors import (
    PermanentModelError,
    RefusalError,
    TransientModelError,
)
from diptych.plugins.models import openai_compat
from diptych.plugins.models.openai_compat import (
    OpenAICompatible,
    parse_retry_after,
)
from diptych.testing import free_port
from diptych.testing.llama_paths import SAME_SHAPES_LOGPROB

NURSE = (
    "One nurse stands on the left and one carpenter stands on the right. "
    "The nurse on the left says that"
)
CARPENTER = (
    "One nurse stands on the left and one carpenter stands on the right. "
    "The carpenter on the right says that"
)
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "enum": ["he", "she", "they"]}},
    "required": ["answer"],
}


@pytest.fixture
async def served(llama_server: str) -> AsyncIterator[OpenAICompatible]:
    model = OpenAICompatible(OpenAICompatible.Params(base_url=llama_server, model="smollm2"))
    yield model
    await model.aclose()


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


@pytest.fixture(scope="module")
def in_process() -> Iterator[Any]:
    from diptych.plugins.models.llamacpp import SmolLM2

    model = SmolLM2()
    yield model
    asyncio.run(model.aclose())


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


# --- a fake server for the error paths ------------------------------------------------------


@dataclass
class Scripted:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    #: When set, the answer waits until this is set (or 30 s pass): a server that is too slow.
    hold: threading.Event | None = None


class FakeOpenAI:
    """A loopback HTTP server that answers each request with the next scripted response."""

    def __init__(self) -> None:
        self.script: list[Scripted] = []
        self.requests: list[dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("content-length", 0))
                fake.requests.append(
                    {
                        "path": self.path,
                        "authorization": self.headers.get("authorization"),
                        "json": json.loads(self.rfile.read(length) or b"{}"),
                    }
                )
                answer = fake.script.pop(0)
                if answer.hold is not None:
                    answer.hold.wait(30)
                payload = json.dumps(answer.body).encode()
                try:
                    self.send_response(answer.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (the timeout test)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    yield server
    server.close()


def openai_error(message: str, type_: str, code: str | None) -> dict[str, Any]:
    """OpenAI's error body, as its API sends it."""
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


def chat_answer(content: str | None, refusal: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-test-2024-01-01",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "finish_reason": "stop",
            }
        ],
    }


def model_for(fake: FakeOpenAI, **params: Any) -> OpenAICompatible:
    return OpenAICompatible(
        OpenAICompatible.Params(base_url=fake.base_url, model="gpt-test", **params)
    )


ASK = [Message(role="user", content="hi")]


async def test_rate_limit_is_transient_with_retry_after(fake: FakeOpenAI) -> None:
    fake.script.append(
        Scripted(
            429,
            openai_error(
                "Rate limit reached for gpt-test on requests per min (RPM): Limit 3.",
                "requests",
                "rate_limit_exceeded",
            ),
            headers={"Retry-After": "7"},
        )
    )
    with pytest.raises(TransientModelError, match="Rate limit reached") as caught:
        await model_for(fake).complete(ASK, Sampling())
    assert caught.value.retry_after == 7
    assert len(fake.requests) == 1  # the SDK's own retries are off


async def test_exhausted_quota_is_permanent(fake: FakeOpenAI) -> None:
    fake.script.append(
        Scripted(
            429,
            openai_error(
                "You exceeded your current quota.", "insufficient_quota", "insufficient_quota"
            ),
        )
    )
    with pytest.raises(PermanentModelError, match="quota"):
        await model_for(fake).complete(ASK, Sampling())


async def test_server_error_is_transient(fake: FakeOpenAI) -> None:
    fake.script.append(
        Scripted(500, openai_error("The server had an error.", "server_error", None))
    )
    with pytest.raises(TransientModelError, match="500") as caught:
        await model_for(fake).next_token_logprobs("The nurse said that", [" he"])
    assert caught.value.retry_after is None
    assert len(fake.requests) == 1


async def test_overload_honours_retry_after(fake: FakeOpenAI) -> None:
    fake.script.append(
        Scripted(
            503,
            openai_error("Overloaded", "server_error", None),
            headers={"retry-after-ms": "1500"},
        )
    )
    with pytest.raises(TransientModelError) as caught:
        await model_for(fake).complete(ASK, Sampling())
    assert caught.value.retry_after == pytest.approx(1.5)


async def test_content_policy_violation_is_a_refusal(fake: FakeOpenAI) -> None:
    message = (
        "Your request was rejected as a result of our safety system. Your prompt may "
        "contain text that is not allowed by our safety system."
    )
    fake.script.append(
        Scripted(400, openai_error(message, "invalid_request_error", "content_policy_violation"))
    )
    with pytest.raises(RefusalError) as caught:
        await model_for(fake).complete(ASK, Sampling())
    assert str(caught.value) == message


async def test_other_bad_requests_are_permanent(fake: FakeOpenAI) -> None:
    fake.script.append(
        Scripted(
            400,
            openai_error(
                "This model's maximum context length is 8192 tokens.",
                "invalid_request_error",
                "context_length_exceeded",
            ),
        )
    )
    with pytest.raises(PermanentModelError, match="maximum context length"):
        await model_for(fake).complete(ASK, Sampling())


async def test_api_key_comes_from_the_named_variable_and_stays_out_of_records(
    fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPTYCH_TEST_KEY", "sk-secret-123")
    fake.script.append(
        Scripted(401, openai_error("Incorrect API key provided.", "invalid_request_error", None))
    )
    model = model_for(fake, api_key_env="DIPTYCH_TEST_KEY")
    with pytest.raises(PermanentModelError, match=r"\$DIPTYCH_TEST_KEY") as caught:
        await model.complete(ASK, Sampling())
    assert fake.requests[0]["authorization"] == "Bearer sk-secret-123"
    records = [str(caught.value), model.version, json.dumps(model.provenance())]
    records.append(model.params.model_dump_json())
    assert not any("sk-secret-123" in record for record in records)


async def test_unreachable_server_is_transient() -> None:
    model = OpenAICompatible(OpenAICompatible.Params(base_url=f"http://127.0.0.1:{free_port()}/v1"))
    with pytest.raises(TransientModelError, match="reach"):
        await model.complete(ASK, Sampling())


async def test_timeout_is_transient(fake: FakeOpenAI) -> None:
    late = threading.Event()  # the answer comes only after the client has given up
    fake.script.append(Scripted(200, chat_answer("late"), hold=late))
    try:
        with pytest.raises(TransientModelError):
            await model_for(fake, timeout=0.3).complete(ASK, Sampling())
    finally:
        late.set()


async def test_structured_output_refusal_is_a_refusal(fake: FakeOpenAI) -> None:
    fake.script.append(Scripted(200, chat_answer(None, refusal="I can't help with that.")))
    with pytest.raises(RefusalError, match="can't help"):
        await model_for(fake).complete(ASK, Sampling(), schema=ANSWER_SCHEMA)


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
    fake.script.append(Scripted(200, chat_answer('{"answer": "sh')))
    with pytest.raises(PermanentModelError, match="max_tokens"):
        await model_for(fake).complete(ASK, Sampling(), schema=ANSWER_SCHEMA)


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


def completion_answer(logprobs: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "cmpl-1",
        "object": "text_completion",
        "created": 0,
        "model": "gpt-test",
        "choices": [{"index": 0, "text": "", "finish_reason": "length", "logprobs": logprobs}],
    }


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
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[3])
