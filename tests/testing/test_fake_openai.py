"""The loopback fake OpenAI server, driven through the official openai SDK as plugins drive it."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from typing import Any

import openai
import pytest
from PIL import Image

from diptych.testing import CONTENT_POLICY_MESSAGE, ChatRequest, FakeOpenAIServer, dalle3_revise

IMAGES = "/v1/images/generations"
CHAT = "/v1/chat/completions"


@pytest.fixture
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
async def client(fake: FakeOpenAIServer) -> AsyncIterator[openai.AsyncOpenAI]:
    sdk = openai.AsyncOpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
    yield sdk
    await sdk.close()


def png_of(b64: str | None) -> Image.Image:
    assert b64 is not None
    image = Image.open(io.BytesIO(base64.b64decode(b64)))
    assert image.format == "PNG"
    return image


def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, str], dict[str, Any]]:
    """A raw POST, to see the wire format without the SDK in between."""
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, dict(answer.headers), json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


# --- images -------------------------------------------------------------------------------


async def test_dalle3_answers_with_a_revised_prompt_and_a_png_of_the_requested_size(
    fake: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    prompt = "a nurse and a carpenter"
    before = int(time.time())
    response = await client.images.generate(
        model="dall-e-3", prompt=prompt, size="1792x1024", response_format="b64_json"
    )
    assert before <= response.created <= int(time.time())
    [item] = response.data or []
    assert png_of(item.b64_json).size == (1792, 1024)
    assert item.revised_prompt == dalle3_revise(prompt)
    assert item.url is None and response.usage is None
    assert response._request_id is not None and response._request_id.startswith("req_")
    assert fake.requests[0].body == {
        "model": "dall-e-3",
        "prompt": prompt,
        "size": "1792x1024",
        "response_format": "b64_json",
    }


async def test_gpt_image_1_always_sends_base64_with_usage(client: openai.AsyncOpenAI) -> None:
    response = await client.images.generate(
        model="gpt-image-1", prompt="a pilot", quality="high", size="1024x1536", n=2
    )
    assert [png_of(d.b64_json).size for d in response.data or []] == [(1024, 1536)] * 2
    assert all(d.revised_prompt is None for d in response.data or [])
    assert (response.size, response.quality, response.output_format) == ("1024x1536", "high", "png")
    assert response.usage is not None
    # OpenAI's documented output tokens for one high-quality 1024x1536 image: 6240.
    assert response.usage.output_tokens == 2 * 6240
    assert response.usage.input_tokens == response.usage.input_tokens_details.text_tokens == 3


async def test_dalle2_defaults_to_a_url_that_serves_the_png(
    fake: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    response = await client.images.generate(model="dall-e-2", prompt="a judge", size="256x256")
    [item] = response.data or []
    assert item.b64_json is None and item.revised_prompt is None
    url = item.url
    assert url is not None and url.startswith(fake.url + "/files/")
    data = await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=5).read())
    assert Image.open(io.BytesIO(data)).size == (256, 256)


async def test_images_are_deterministic_from_prompt_seed_and_index(
    client: openai.AsyncOpenAI,
) -> None:
    async def pixels(prompt: str, n: int = 1, seed: int | None = None) -> list[bytes]:
        extra = {"seed": seed} if seed is not None else None
        response = await client.images.generate(
            model="dall-e-2",
            prompt=prompt,
            size="256x256",
            n=n,
            response_format="b64_json",
            extra_body=extra,
        )
        return [png_of(d.b64_json).tobytes() for d in response.data or []]

    first, second = await pixels("a nurse", n=2)
    assert await pixels("a nurse") == [first]
    assert second != first  # each image of one request differs
    assert await pixels("a doctor") != [first]
    assert await pixels("a nurse", seed=3) != [first]
    assert await pixels("a nurse", seed=3) == await pixels("a nurse", seed=3)


async def test_image_size_can_be_forced_small() -> None:
    with FakeOpenAIServer(image_size=(16, 8)) as small:
        sdk = openai.AsyncOpenAI(base_url=small.base_url, api_key="k", max_retries=0)
        response = await sdk.images.generate(
            model="dall-e-3", prompt="x", response_format="b64_json"
        )
        await sdk.close()
    assert png_of((response.data or [])[0].b64_json).size == (16, 8)


@pytest.mark.parametrize(
    ("request_", "param", "message"),
    [
        ({"model": "dall-e-3", "n": 2}, "n", "You must provide n=1 for this model."),
        (
            {"model": "dall-e-3", "size": "256x256"},
            "size",
            "Invalid value: '256x256'. Supported values are: "
            "'1024x1024', '1792x1024', '1024x1792'.",
        ),
        (
            {"model": "gpt-image-1", "response_format": "b64_json"},
            "response_format",
            "Unknown parameter: 'response_format'.",
        ),
        (
            {"model": "gpt-image-1", "quality": "hd"},
            "quality",
            "Invalid value: 'hd'. Supported values are: 'low', 'medium', 'high', 'auto'.",
        ),
        ({"model": "dall-e-2", "style": "vivid"}, "style", "Unknown parameter: 'style'."),
    ],
)
def test_requests_the_service_refuses_are_refused_the_same_way(
    fake: FakeOpenAIServer, request_: dict[str, Any], param: str, message: str
) -> None:
    status, _, body = post(fake.base_url + "/images/generations", {"prompt": "p", **request_})
    assert status == 400
    assert body["error"]["param"] == param
    assert body["error"]["message"] == message
    assert body["error"]["type"] == "invalid_request_error"


def test_dalle3_revise_keeps_some_prompts_and_adds_words_to_others() -> None:
    prompts = [f"a photo of the {job}" for job in ("nurse", "pilot", "CEO", "cook", "judge")]
    prompts += [
        f"two people: a {a} and a {b}" for a in ("man", "woman") for b in ("doctor", "chef")
    ]
    revised = [dalle3_revise(p) for p in prompts]
    assert revised == [dalle3_revise(p) for p in prompts]  # deterministic
    changed = [(p, r) for p, r in zip(prompts, revised, strict=True) if r != p]
    assert 0 < len(changed) < len(prompts)
    for p, r in changed:
        # Words are added, never removed: the subject stays in the revised prompt.
        assert p[1:] in r and len(r.split()) >= len(p.split()) + 8


# --- faults, rate limits, counters --------------------------------------------------------


def test_content_policy_refusal_has_openais_body(fake: FakeOpenAIServer) -> None:
    fake.refuse("forbidden")
    images = fake.base_url + "/images/generations"
    status, _, body = post(images, {"model": "dall-e-3", "prompt": "a forbidden act"})
    assert status == 400
    assert body == {
        "error": {
            "code": "content_policy_violation",
            "message": CONTENT_POLICY_MESSAGE,
            "type": "invalid_request_error",
            "param": None,
        }
    }
    assert post(images, {"model": "dall-e-2", "prompt": "a cat", "size": "256x256"})[0] == 200
    assert post(images, {"model": "dall-e-3", "prompt": "forbidden again"})[0] == 400
    assert fake.count(prompt="a forbidden act") == 1
    assert fake.count(path=IMAGES, status=400) == 2
    assert fake.requests_by_prompt == {"a forbidden act": 1, "a cat": 1, "forbidden again": 1}


async def test_faults_apply_in_order_to_the_next_n_requests(
    fake: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    fake.inject("server_error", times=2)
    fake.inject("rate_limit", retry_after=3)
    fake.inject("server_error", status=503, retry_after=2, path=CHAT)

    async def ask() -> int:
        try:
            await client.images.generate(model="dall-e-2", prompt="p", size="256x256")
        except openai.APIStatusError as error:
            if error.status_code in (429, 503):
                assert error.response.headers["retry-after"] in ("3", "2")
            return error.status_code
        return 200

    assert [await ask() for _ in range(4)] == [500, 500, 429, 200]
    # The 503 rule is for chat only.
    with pytest.raises(openai.InternalServerError) as caught:
        await client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
        )
    assert caught.value.status_code == 503
    assert caught.value.response.headers["retry-after"] == "2"
    assert [f.fired for f in fake.faults] == [2, 1, 1]
    assert fake.count(status=500) == 2 and fake.count(status=429) == 1


async def test_a_timeout_fault_holds_the_connection_past_the_clients_timeout(
    fake: FakeOpenAIServer,
) -> None:
    fake.inject("timeout", hold=10)
    sdk = openai.AsyncOpenAI(base_url=fake.base_url, api_key="k", max_retries=0, timeout=0.3)
    # A timeout, not a dropped connection (APIConnectionError): the fake still held it when the
    # client gave up; and the fake answers the next request while it holds that one.
    with pytest.raises(openai.APITimeoutError):
        await sdk.images.generate(model="dall-e-2", prompt="p", size="256x256")
    assert fake.requests[0].status is None and fake.faults[0].fired == 1
    # The next request may take longer than 0.3 s on a loaded machine: it is given time.
    patient = sdk.with_options(timeout=60)
    response = await patient.images.generate(model="dall-e-2", prompt="p", size="256x256")
    assert len(response.data or []) == 1
    await sdk.close()
    assert fake.requests[0].status is None and fake.requests[1].status == 200


async def test_sliding_window_rate_limit(
    fake: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    fake.rate_limit_per_min = 2
    fake.rate_window = 1.0
    ask = {"model": "dall-e-2", "prompt": "p", "size": "256x256"}
    await client.images.generate(**ask)  # type: ignore[call-overload]
    await client.images.generate(**ask)  # type: ignore[call-overload]
    with pytest.raises(openai.RateLimitError) as caught:
        await client.images.generate(**ask)  # type: ignore[call-overload]
    assert caught.value.code == "rate_limit_exceeded"
    assert caught.value.response.headers["retry-after"] == "1"
    assert "Limit 2" in caught.value.message
    # Once the oldest request leaves the window, one more fits. It was admitted before it was
    # answered, so a window after its answer it has surely left (the fake's clock is ours).
    answered = fake.requests[0].answered_at
    assert answered is not None
    await asyncio.sleep(answered + fake.rate_window - time.monotonic())
    await client.images.generate(**ask)  # type: ignore[call-overload]
    assert [r.status for r in fake.requests] == [200, 200, 429, 200]


async def test_serves_requests_concurrently(
    fake: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    # Each request is held in the fake until all eight are in it at once: a fake serving one
    # request after another would never let the first through (its barrier would break).
    everyone_in = threading.Barrier(8, timeout=30)

    def revise_once_all_are_in(prompt: str) -> str:
        everyone_in.wait()
        return prompt

    fake.revise = revise_once_all_are_in
    fake.image_size = (8, 8)
    await asyncio.gather(
        *(
            client.images.generate(model="dall-e-3", prompt=f"p{i}", size="1024x1024")
            for i in range(8)
        )
    )
    assert [r.status for r in fake.requests] == [200] * 8 and not everyone_in.broken
    assert fake.total_requests == 8 and fake.requests_by_path == {IMAGES: 8}
    assert fake.count(prompt="p3") == 1


def test_api_key_is_checked_and_quoted_masked(fake: FakeOpenAIServer) -> None:
    fake.api_key = "sk-right-key-0123456789"
    sdk = openai.OpenAI(base_url=fake.base_url, api_key="sk-wrong-key-9876543210", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as caught:
        sdk.models.list()
    assert caught.value.code == "invalid_api_key"
    assert f"sk-wrong{'*' * 11}3210" in caught.value.message
    assert "sk-wrong-key-9876543210" not in caught.value.message
    right = openai.OpenAI(base_url=fake.base_url, api_key="sk-right-key-0123456789", max_retries=0)
    assert "gpt-image-1" in [m.id for m in right.models.list().data]
    assert fake.requests[1].headers["authorization"] == "Bearer sk-right-key-0123456789"


def test_reset_forgets_requests_and_faults(fake: FakeOpenAIServer) -> None:
    fake.inject("server_error", times=None)
    assert post(fake.base_url + "/images/generations", {"prompt": "p"})[0] == 500
    fake.reset()
    assert fake.total_requests == 0 and fake.faults == []
    assert post(fake.base_url + "/images/generations", {"prompt": "p", "size": "256x256"})[0] == 200


# --- chat -----------------------------------------------------------------------------------


def data_url(size: tuple[int, int]) -> str:
    buffer = io.BytesIO()
    Image.new("RGB", size, (200, 10, 10)).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


async def test_chat_with_an_image_content_part(
    fake: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    seen: list[ChatRequest] = []

    def reply(request: ChatRequest) -> str:
        seen.append(request)
        width, height = request.images[0].size
        return f"The person on the left is {width}x{height}"

    fake.chat_reply = reply
    completion = await client.chat.completions.create(
        model="gpt-4o",
        messages=[
            {"role": "system", "content": "Answer briefly."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Who is on the left?"},
                    {"type": "image_url", "image_url": {"url": data_url((20, 10))}},
                ],
            },
        ],
        max_tokens=50,
    )
    assert completion.object == "chat.completion" and completion.model == "gpt-4o"
    assert completion.choices[0].message.content == "The person on the left is 20x10"
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage is not None and completion.usage.completion_tokens == 7
    assert seen[0].texts == ["Answer briefly.", "Who is on the left?"]
    assert fake.count(path=CHAT, prompt="Answer briefly.\nWho is on the left?") == 1


async def test_chat_default_reply_truncation_and_bad_images(client: openai.AsyncOpenAI) -> None:
    image_part = {"type": "image_url", "image_url": {"url": data_url((4, 6))}}
    user: Any = {"role": "user", "content": [{"type": "text", "text": "hi"}, image_part]}
    completion = await client.chat.completions.create(model="gpt-4o-mini", messages=[user])
    assert completion.choices[0].message.content == "I see 1 image(s) (4x6). You said: hi"
    short = await client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "one two three"}], max_tokens=2
    )
    assert short.choices[0].message.content == "You said:"
    assert short.choices[0].finish_reason == "length"
    broken: Any = {"type": "image_url", "image_url": {"url": "data:image/png;base64,bm90IGEgcG5n"}}
    with pytest.raises(openai.BadRequestError) as caught:
        await client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": [broken]}]
        )
    assert caught.value.code == "invalid_image_format"


# --- bad successes and long waits -------------------------------------------------------------


async def test_bad_successes_are_whole_200s_in_openais_shape(
    fake: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    for kind in ("unreadable_image", "empty_data", "url_instead"):
        fake.inject(kind, prompt_contains=kind)

    async def draw(prompt: str) -> Any:
        return await client.images.generate(
            model="dall-e-3", prompt=prompt, response_format="b64_json"
        )

    half = await draw("unreadable_image")
    [item] = half.data or []
    assert item.revised_prompt == dalle3_revise("unreadable_image")
    data = base64.b64decode(item.b64_json or "")
    assert data.startswith(b"\x89PNG\r\n\x1a\n")  # the header reads ...
    with pytest.raises(OSError):
        Image.open(io.BytesIO(data)).load()  # ... the pixels do not
    empty = await draw("empty_data")
    assert empty.data == [] and empty.created > 0
    [linked] = (await draw("url_instead")).data or []
    assert linked.b64_json is None and linked.url is not None
    with urllib.request.urlopen(linked.url, timeout=5) as answer:
        assert Image.open(io.BytesIO(answer.read())).format == "PNG"
    [whole] = (await draw("a fourth prompt")).data or []  # each rule fired once
    assert png_of(whole.b64_json).size == (1024, 1024)
    assert [r.status for r in fake.requests] == [200, 200, 200, 200, 200]


async def test_a_chat_answer_without_choices_keeps_its_usage(
    fake: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    fake.inject("empty_data", path=CHAT)
    answer = await client.chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": "who is the nurse?"}]
    )
    assert answer.choices == [] and answer.usage is not None
    assert answer.usage.prompt_tokens > 0


@pytest.mark.parametrize("form", ["seconds", "http-date", "ms"])
def test_a_retry_after_of_an_hour_in_each_form(fake: FakeOpenAIServer, form: Any) -> None:
    from diptych.plugins.models._openai_common import parse_retry_after

    fake.inject("rate_limit", retry_after=3600, retry_after_form=form)
    status, headers, body = post(f"{fake.base_url}/images/generations", {"prompt": "p"})
    assert status == 429 and body["error"]["code"] == "rate_limit_exceeded"
    lowered = {k.lower(): v for k, v in headers.items()}
    expected = {
        "seconds": ("3600", None),
        "ms": ("3600", "3600000"),
    }
    if form == "http-date":
        assert lowered["retry-after"].endswith(" GMT") and "retry-after-ms" not in lowered
    else:
        assert (lowered["retry-after"], lowered.get("retry-after-ms")) == expected[form]
    assert 3598 < (parse_retry_after(lowered) or 0) <= 3601


def test_an_image_asked_again_is_painted_once_a_process() -> None:
    # Many tests ask for the same images (the same runs on the same prompts): each is encoded
    # once, and an image asked again is those very bytes.
    from diptych.testing.fake_openai.images import render_png

    first = render_png("a nurse", 3, 0, (64, 32))
    assert render_png("a nurse", 3, 0, (64, 32)) is first
    assert Image.open(io.BytesIO(first)).size == (64, 32)
    assert render_png("a nurse", 4, 0, (64, 32)) != first
    assert render_png("a nurse", 3, 1, (64, 32)) != first
