"""The openai-compatible plugin's errors against a scripted fake server: what is transient (to
retry), what is permanent, what is a refusal, and the API key kept out of every record."""

from __future__ import annotations

import json
import threading

import pytest
from support.openai_http import (
    ANSWER_SCHEMA,
    ASK,
    FakeOpenAI,
    Scripted,
    chat_answer,
    model_for,
    openai_error,
)

from diptych.core.capabilities import Sampling
from diptych.core.errors import PermanentModelError, RefusalError, TransientModelError
from diptych.plugins.models.openai_compat import OpenAICompatible
from diptych.testing import free_port


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


async def test_an_answer_that_never_ends_times_out_as_a_whole() -> None:
    # A body that keeps coming a little at a time never trips a per-read timeout: without a
    # bound on the whole answer the call, and the memory it holds, would grow for ever.
    import asyncio
    import time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    stop = threading.Event()

    class Endless(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"choices": [{"message": {"content": "')
            while not stop.is_set():
                self.wfile.write(b"a" * 64)
                self.wfile.flush()
                time.sleep(0.02)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Endless)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    model = OpenAICompatible(OpenAICompatible.Params(base_url=base_url, model="m", timeout=0.5))
    try:
        # The outer bound only keeps a regression from hanging the suite.
        with pytest.raises(TransientModelError) as raised:
            await asyncio.wait_for(model.complete(ASK, Sampling()), 20)
        assert raised.value.maybe_charged and "0.5 s" in str(raised.value)
    finally:
        stop.set()
        await model.aclose()
        server.shutdown()
        server.server_close()
