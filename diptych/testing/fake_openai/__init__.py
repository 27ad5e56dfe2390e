"""A loopback fake of the OpenAI API, for testing plugins that talk to OpenAI-compatible services.

:class:`FakeOpenAIServer` speaks the real wire format of the three endpoints an audit uses, so
a plugin is tested through the official ``openai`` SDK (or any HTTP client) exactly as it runs
against the service, with no network and no cost:

* ``POST /v1/images/generations`` -- ``model``, ``prompt``, ``n``, ``size``, ``quality``,
  ``style``, ``response_format`` (``b64_json`` | ``url``), validated per model as OpenAI does
  (dall-e-3: n=1, three sizes, standard|hd, vivid|natural; gpt-image-1: low|medium|high|auto,
  always base64, no ``response_format``; dall-e-2: square sizes). The images are small real
  PNGs (Pillow), the same for the same prompt, seed and index, of the requested size unless
  ``image_size`` forces one; ``painter`` paints them otherwise (a test of an annotator may
  compose photographs). dall-e-3 answers with a ``revised_prompt`` (see ``revise``);
  gpt-image-1 answers with a ``usage`` block.
* ``POST /v1/chat/completions`` -- text and image content parts
  (``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}``, decoded and
  checked to be an image), answered in the ``chat.completion`` shape by ``chat_reply``.
* ``GET /v1/models`` (and ``/v1/models/{id}``).

Every answer carries an ``x-request-id`` header, as OpenAI's do. Errors use OpenAI's body,
``{"error": {"message", "type", "param", "code"}}``.

Use it as a context manager; it binds 127.0.0.1 on a free port and serves each request in its
own thread, so concurrent clients really run concurrently::

    from diptych.testing import FakeOpenAIServer

    def test_my_plugin():
        with FakeOpenAIServer(latency=0.01, image_size=(32, 32)) as fake:
            fake.inject("rate_limit", retry_after=1)           # the next request gets a 429
            fake.inject("content_policy", times=None, prompt_contains="forbidden")
            model = MyPlugin(MyPlugin.Params(base_url=fake.base_url))
            ...
            assert fake.count(path="/v1/images/generations", prompt="a nurse") == 2
            assert fake.count(status=429) == 1

What can be set (each also as an attribute, changeable while the server runs):

``latency``
    Seconds every request takes before it is answered.
``rate_limit_per_min`` / ``rate_window``
    At most this many POST requests in any sliding window of ``rate_window`` seconds (a
    minute unless a test shortens it); the next one gets a 429 with ``Retry-After`` (whole
    seconds until the oldest request leaves the window) and OpenAI's ``rate_limit_exceeded``
    body. Only requests the limiter lets through count against it.
faults (:meth:`inject`, :meth:`refuse`)
    Rules tried in the order added, before the rate limiter. Each has a ``kind`` --
    ``"rate_limit"`` (429 with ``Retry-After``), ``"server_error"`` (500, or ``status``),
    ``"timeout"`` (hold the connection ``hold`` seconds, longer than the client waits, then
    drop it unanswered; ``hold=0`` is a dropped connection), ``"content_policy"`` (OpenAI's
    400 ``content_policy_violation``), ``"dropped"`` (close the connection unanswered),
    ``"truncated"`` (a 200 whose body stops half-way, then the connection closes), and the
    bad successes -- a whole 200 in the endpoint's own shape that cannot be used (a real
    service bills it): ``"unreadable_image"`` (each image's base64 holds half a PNG),
    ``"empty_data"`` (``data: []``, or a chat completion with ``choices: []``) and
    ``"url_instead"`` (a URL where ``b64_json`` was asked for) --
    and applies to the next ``times`` matching requests
    (``None``: all of them), matching on ``prompt_contains`` and ``path`` when given. A
    Retry-After (``retry_after`` seconds, which may be huge) is written as seconds, an HTTP
    date or OpenAI's ``retry-after-ms`` (``retry_after_form``).
    :meth:`inject_randomly` answers a random share of requests with faults of chosen kinds
    (counted in ``random_faults``), for drills.
``revise``
    ``prompt -> revised prompt`` for dall-e-3. The default, :func:`dalle3_revise`, rewrites
    deterministically and sometimes adds words -- including people's descriptors, which
    DALL-E 3's rewriter is documented to add and which an audit must be able to see.
``chat_reply``
    ``ChatRequest -> str``: the assistant's text. The default names what it was shown.
``api_key``
    When set, a request without ``Authorization: Bearer <api_key>`` gets OpenAI's 401, whose
    message quotes the wrong key masked the way OpenAI masks it.

What it records: ``requests`` (one :class:`RecordedRequest` per request: method, path,
headers, parsed body, prompt, answered status, times), ``total_requests``,
``requests_by_path``, ``requests_by_prompt`` and :meth:`count`. A request's *prompt* is the
image prompt, or the text parts of a chat request's messages joined by newlines.
"""

from diptych.testing.fake_openai.chat import ChatRequest, default_chat_reply
from diptych.testing.fake_openai.faults import (
    BAD_SUCCESSES,
    CONTENT_POLICY_MESSAGE,
    Fault,
    FaultKind,
)
from diptych.testing.fake_openai.images import GPT_IMAGE_OUTPUT_TOKENS, IMAGE_MODELS, dalle3_revise
from diptych.testing.fake_openai.server import DEFAULT_MODELS, FakeOpenAIServer
from diptych.testing.fake_openai.wire import CHAT_PATH, IMAGES_PATH, RecordedRequest

__all__ = [
    "BAD_SUCCESSES",
    "CHAT_PATH",
    "CONTENT_POLICY_MESSAGE",
    "DEFAULT_MODELS",
    "GPT_IMAGE_OUTPUT_TOKENS",
    "IMAGES_PATH",
    "IMAGE_MODELS",
    "ChatRequest",
    "FakeOpenAIServer",
    "Fault",
    "FaultKind",
    "RecordedRequest",
    "dalle3_revise",
    "default_chat_reply",
]
