"""The openai-images model plugin, through the real openai SDK against the loopback fake."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from diptych.cli.runs_cmd import export_rows
from diptych.core import plugins
from diptych.core.capabilities import Capability, Model
from diptych.core.engine import RetryPolicy, run_probe
from diptych.core.errors import (
    InputFileError,
    MissingDependencyError,
    ModelLoadError,
    ParameterError,
    PermanentModelError,
    RefusalError,
    TransientModelError,
)
from diptych.core.runview import RunView
from diptych.core.store import Store
from diptych.core.workspace import Workspace
from diptych.plugins.models import openai_images
from diptych.plugins.models.openai_images import OpenAIImages, price_table
from diptych.testing import CONTENT_POLICY_MESSAGE, FakeOpenAIServer, dalle3_revise

IMAGES = "/v1/images/generations"
#: Retries without the production backoff, so that only a server's Retry-After makes a
#: retry wait.
FAST_RETRY = RetryPolicy(max_attempts=6, base_delay=0.01, max_delay=0.02)


# Long enough that an answered request never times out on a loaded machine; the held one is held
# far longer (the server's stop wakes it).
SLOW_MACHINE_TIMEOUT = 2.0


@pytest.fixture
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(image_size=(32, 32)) as server:
        yield server


def images_model(fake: FakeOpenAIServer, **params: Any) -> OpenAIImages:
    return OpenAIImages(OpenAIImages.Params(base_url=fake.base_url, **params))


def image_run(
    store: Store, model: OpenAIImages, n: int = 1, retry: RetryPolicy = FAST_RETRY
) -> tuple[str, dict[str, Any]]:
    """Run the scripted probe's image trials ("request 0", "request 1" ...) on the model."""
    run = run_probe(
        store,
        "scripted",
        [model],
        probe_params={"n": n, "capability": "image_generator"},
        retry=retry,
        concurrency=4,
    )
    return run.id, store.run_results(run.id)


def by_prompt(store: Store, run_id: str) -> dict[str, Any]:
    results = store.run_results(run_id)
    return {t.payload["prompt"]: results[t.key] for t in store.trials(run_id)}


# --- generation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (
            {"model": "dall-e-3", "quality": "hd", "style": "natural"},
            {"size": "1024x1024", "quality": "hd", "style": "natural"},
        ),
        ({"model": "dall-e-2", "size": "512x512"}, {"size": "512x512", "quality": "standard"}),
        (
            {"model": "gpt-image-1", "quality": "low", "size": "1536x1024"},
            {"size": "1536x1024", "quality": "low"},
        ),
    ],
)
async def test_each_model_generates_with_its_provenance(
    fake: FakeOpenAIServer, params: dict[str, Any], expected: dict[str, Any]
) -> None:
    model = images_model(fake, **params)
    [generated] = await model.generate("a photo of the pilot", 1, seed=7, size=None)
    await model.aclose()
    name = params["model"]
    assert generated.image.size == (32, 32)  # the fake's forced size; PIL decoded it
    sent = fake.requests[0].body
    facts = generated.provenance
    assert facts["model"] == sent["model"] == name
    assert (facts["size"], facts["quality"]) == (expected["size"], expected["quality"])
    assert facts["style"] == expected.get("style")
    assert facts["seed"] == "not supported by the service" and facts["seed_requested"] == 7
    assert facts["service"] == f"127.0.0.1:{fake.port}"
    assert facts["request_id"].startswith("req_") and isinstance(facts["created"], int)
    if name == "dall-e-3":
        # What DALL-E 3 actually drew: the fake's rewriting added people to this prompt.
        assert facts["revised_prompt"] == dalle3_revise("a photo of the pilot")
        assert facts["revised_prompt"] == (
            "a photo of the pilot, showing people of diverse genders and descents, "
            "in a realistic style."
        )
    else:
        assert facts["revised_prompt"] is None
    if name == "gpt-image-1":
        assert "response_format" not in sent  # the service rejects it for this model
        assert facts["usage"]["output_tokens"] == 400  # low quality, 1536x1024
    else:
        assert sent["response_format"] == "b64_json" and "usage" not in facts
    assert "seed" not in sent


async def test_a_real_sized_image_and_the_size_argument_overriding_the_parameter() -> None:
    with FakeOpenAIServer() as fake:
        model = images_model(fake, size="1792x1024")
        [generated] = await model.generate("a pilot", 1, seed=None, size="1024x1792")
        with pytest.raises(PermanentModelError, match="not offered by dall-e-3"):
            await model.generate("a pilot", 1, seed=None, size="256x256")
        await model.aclose()
    assert generated.image.size == (1024, 1792)
    assert generated.provenance["size"] == "1024x1792"
    assert [r.body["size"] for r in fake.requests] == ["1024x1792"]  # the bad size never sent


async def test_dalle3_makes_one_request_per_image(fake: FakeOpenAIServer) -> None:
    model = images_model(fake)
    generated = await model.generate("a chef", 3, seed=None, size=None)
    await model.aclose()
    assert len(generated) == 3
    assert fake.count(path=IMAGES, prompt="a chef") == 3
    assert all(r.body["n"] == 1 for r in fake.requests)


async def test_dall_e_2_asks_for_n_images_at_once(fake: FakeOpenAIServer) -> None:
    model = images_model(fake, model="dall-e-2", size="256x256")
    generated = await model.generate("a chef", 3, seed=None, size=None)
    await model.aclose()
    assert len(generated) == 3 and fake.total_requests == 1 and fake.requests[0].body["n"] == 3
    assert len({g.image.tobytes() for g in generated}) == 3


async def test_sdk_errors_map_to_what_the_engine_should_do(fake: FakeOpenAIServer) -> None:
    model = images_model(fake, timeout=SLOW_MACHINE_TIMEOUT)
    fake.inject("rate_limit", retry_after=4)
    with pytest.raises(TransientModelError, match="Rate limited") as limited:
        await model.generate("p", 1, None, None)
    assert limited.value.retry_after == 4
    fake.inject("server_error", status=502)
    with pytest.raises(TransientModelError, match="502"):
        await model.generate("p", 1, None, None)
    fake.inject("timeout", hold=30)
    # The SDK's wait for a read and the bound on the whole answer run out together: either says.
    with pytest.raises(TransientModelError, match="No (whole )?answer (in time|within)") as late:
        await model.generate("p", 1, None, None)
    # Sent and not answered in time: the service may have made (and billed) the image.
    assert late.value.maybe_charged and not limited.value.maybe_charged
    fake.refuse("forbidden")
    with pytest.raises(RefusalError) as refused:
        await model.generate("something forbidden", 1, None, None)
    assert str(refused.value) == CONTENT_POLICY_MESSAGE
    await model.aclose()
    assert fake.total_requests == 4  # the SDK's own retries are off


# --- through the engine ---------------------------------------------------------------------


def test_refusal_is_stored_as_refused_with_the_services_message(
    scripted: None, store: Store, fake: FakeOpenAIServer
) -> None:
    fake.refuse("request 1")
    run_id, _ = image_run(store, images_model(fake), n=3)
    results = by_prompt(store, run_id)
    assert store.status_counts(run_id) == {"done": 2, "refused": 1, "failed": 0, "pending": 0}
    refused = results["request 1"]
    assert (refused.status, refused.error, refused.attempts) == (
        "refused",
        CONTENT_POLICY_MESSAGE,
        1,
    )
    assert fake.count(prompt="request 1") == 1  # a refusal is never retried
    done = results["request 0"]
    assert done.provenance["revised_prompt"] == dalle3_revise("request 0")
    assert done.provenance["plugin"] == "openai-images" and done.blob is not None
    # Nothing paid for is asked twice: running again finds every outcome stored.
    image_run(store, images_model(fake), n=3)
    assert fake.total_requests == 3


def test_retry_after_of_a_429_is_honoured_and_the_trial_completes(
    scripted: None, store: Store, fake: FakeOpenAIServer
) -> None:
    fake.inject("rate_limit", retry_after=1)
    run_id, results = image_run(store, images_model(fake))
    [result] = results.values()
    assert (result.status, result.attempts) == ("done", 2)
    limited, served = fake.requests
    assert (limited.status, served.status) == (429, 200)
    assert limited.answered_at is not None
    # The engine's own backoff is at most 0.02 s here: the wait is the server's second.
    assert served.received_at - limited.answered_at >= 1.0


def test_the_servers_sliding_window_paces_a_run(
    scripted: None, store: Store, fake: FakeOpenAIServer
) -> None:
    fake.rate_limit_per_min = 2
    fake.rate_window = 1.0
    run_id, results = image_run(store, images_model(fake), n=3)
    assert store.status_counts(run_id)["done"] == 3
    assert fake.count(status=200) == 3 and fake.count(status=429) >= 1
    first, third = sorted(r.received_at for r in fake.requests if r.status == 200)[::2]
    assert third - first >= 1.0  # no more than 2 accepted within any second


def test_server_errors_are_retried_and_a_timeout_that_may_have_been_paid_is_not(
    scripted: None, store: Store, fake: FakeOpenAIServer
) -> None:
    fake.inject("server_error", times=2)
    fake.inject("timeout", hold=30)
    run_id, results = image_run(store, images_model(fake, timeout=SLOW_MACHINE_TIMEOUT))
    [result] = results.values()
    assert (result.status, result.attempts) == ("failed", 3)
    assert result.error.startswith("may have been paid: ")
    assert result.provenance["maybe_paid"] == 1
    assert [r.status for r in fake.requests] == [500, 500, None]


def test_a_timeout_is_sent_again_when_asked_to(
    scripted: None, store: Store, fake: FakeOpenAIServer
) -> None:
    fake.inject("server_error", times=2)
    fake.inject("timeout", hold=30)
    retry = replace(FAST_RETRY, retry_maybe_paid=True)
    run_id, results = image_run(
        store, images_model(fake, timeout=SLOW_MACHINE_TIMEOUT), retry=retry
    )
    [result] = results.values()
    assert (result.status, result.attempts) == ("done", 4)
    assert result.provenance["maybe_paid"] == 1
    assert [r.status for r in fake.requests] == [500, 500, None, 200]


def test_a_fault_that_never_clears_fails_the_trial_after_max_attempts(
    scripted: None, store: Store, fake: FakeOpenAIServer
) -> None:
    fake.inject("server_error", times=None)
    run_id, results = image_run(store, images_model(fake))
    [result] = results.values()
    assert result.status == "failed" and result.attempts == FAST_RETRY.max_attempts
    assert result.error is not None and "Server error (500)" in result.error
    assert fake.total_requests == FAST_RETRY.max_attempts


# --- secrets --------------------------------------------------------------------------------

KEY = "sk-diptych-LEAKCHECK-7f3a9c1e5b"
WRONG_KEY = "sk-diptych-WRONGKEY-2d8e4f6a0c"


def test_the_api_key_never_reaches_store_blobs_exports_reports_or_logs(
    scripted: None,
    store: Store,
    fake: FakeOpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake.api_key = KEY
    fake.refuse("request 2")
    monkeypatch.setenv("DIPTYCH_IMAGES_KEY", KEY)
    wrong = tmp_path / "wrong.key"
    wrong.write_text(WRONG_KEY + "\n")
    caplog.set_level(logging.DEBUG)
    right_run, _ = image_run(store, images_model(fake, api_key_env="DIPTYCH_IMAGES_KEY"), n=3)
    wrong_run, wrong_results = image_run(
        store, images_model(fake, model="dall-e-2", api_key_file=str(wrong)), n=1
    )
    # Not vacuous: the key was sent, and the wrong one was refused with OpenAI's message.
    assert fake.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert store.status_counts(right_run) == {"done": 2, "refused": 1, "failed": 0, "pending": 0}
    [failed] = wrong_results.values()
    assert failed.status == "failed" and failed.error is not None
    assert "Incorrect API key provided: ***" in failed.error
    assert f"Check the key in {wrong}" in failed.error
    assert caplog.records  # the SDK and HTTP client did log at DEBUG
    exported = [
        json.dumps(row) for run in (right_run, wrong_run) for row in export_rows(store, run)
    ]
    view = RunView(store, store.get_run(right_run))
    report_dir = tmp_path / "report"
    Workspace(store).analysis.report(view.id, report_dir)
    stored = [p for p in store.path.rglob("*") if p.is_file()]
    assert any(p.name == "diptych.db" for p in stored) and len(stored) > 3
    written = [p.read_bytes() for p in stored]
    written += [p.read_bytes() for p in Path(report_dir).rglob("*") if p.is_file()]
    for secret in (KEY, WRONG_KEY):
        assert not any(secret.encode() in data for data in written)
        assert not any(secret in row for row in exported)
        assert secret not in caplog.text
    # OpenAI quotes a rejected key's last characters; they are scrubbed too.
    assert WRONG_KEY[-4:] not in failed.error


def test_the_key_file_is_read_and_a_missing_one_stops_the_run_early(
    scripted: None, store: Store, fake: FakeOpenAIServer, tmp_path: Path
) -> None:
    key_file = tmp_path / "key"
    key_file.write_text(f"  {KEY}\n")
    fake.api_key = KEY
    run_id, results = image_run(store, images_model(fake, api_key_file=str(key_file)))
    assert [r.status for r in results.values()] == ["done"]
    # Where every trial is stored the model is never loaded, so the key is never needed;
    # with one trial to run, the missing file stops the run before any request.
    missing = images_model(fake, api_key_file=str(tmp_path / "nope"))
    image_run(store, missing, n=1)
    with pytest.raises(BaseException) as caught:
        image_run(store, missing, n=2)
    # The engine currently lets load()'s error out wrapped in an ExceptionGroup (its
    # TaskGroup); accept it bare too, as it should arrive.
    error = caught.value
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    assert isinstance(error, ModelLoadError)
    assert str(error).startswith(f"cannot read the API key file {tmp_path / 'nope'}")
    assert fake.total_requests == 1


# --- parameters, identity, prices -----------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"size": "256x256"}, "size '256x256' is not offered by dall-e-3"),
        ({"model": "gpt-image-1", "size": "1792x1024"}, "not offered by gpt-image-1"),
        ({"model": "dall-e-2", "size": "1024x1792"}, "not offered by dall-e-2"),
        ({"model": "gpt-image-1", "quality": "hd"}, "quality 'hd' is not offered by gpt-image-1"),
        ({"quality": "high"}, "quality 'high' is not offered by dall-e-3"),
        ({"model": "gpt-image-1", "style": "vivid"}, "style is a dall-e-3 setting"),
        ({"model": "dall-e-4"}, "Input should be"),
        ({"api_key": "sk-x"}, "has no parameter 'api_key'"),
    ],
)
def test_parameters_are_checked_against_the_model(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        plugins.get_model("openai-images", params)


def test_accepted_settings_per_model() -> None:
    for params in (
        {"model": "dall-e-3", "size": "1024x1792", "quality": "hd", "style": "vivid"},
        {"model": "gpt-image-1", "size": "auto", "quality": "medium"},
        {"model": "dall-e-2", "size": "512x512", "quality": "standard"},
    ):
        assert OpenAIImages.Params.model_validate(params).size == params["size"]
    with pytest.raises(ValidationError):
        OpenAIImages.Params(rate_limit_per_min=0)


def test_version_identity_and_hints() -> None:
    hosted = OpenAIImages(OpenAIImages.Params(rate_limit_per_min=50, max_concurrency=2))
    assert hosted.version == "dall-e-3"
    assert (hosted.hints.rate_limit_per_min, hosted.hints.max_concurrency) == (50, 2)
    other = OpenAIImages(
        OpenAIImages.Params(
            model="gpt-image-1",
            base_url="https://user:pw@images.example.com:8443/v1",
            api_key_file="/secret/key",
            timeout=5,
        )
    )
    assert other.version == "gpt-image-1@images.example.com:8443"
    # Operational parameters and credentials stay out of trial keys.
    assert other.identity_params() == {
        "model": "gpt-image-1",
        "size": None,
        "quality": None,
        "style": None,
        "base_url": "images.example.com:8443/v1",
    }
    same = OpenAIImages(OpenAIImages.Params(model="gpt-image-1", base_url=other.p.base_url))
    assert same.identity_params() == other.identity_params()


def test_price_comes_from_the_shipped_table() -> None:
    def price(payload: dict[str, Any] | None = None, **params: Any) -> float | None:
        model = OpenAIImages(OpenAIImages.Params(**params))
        return model.price(Capability.IMAGE_GENERATOR, payload or {"prompt": "p"})

    assert price() == 0.04  # dall-e-3, standard, 1024x1024 by default
    assert price(quality="hd", size="1792x1024") == 0.12
    assert price({"prompt": "p", "size": "1024x1792"}) == 0.08  # a trial's size wins
    assert price(model="dall-e-2", size="256x256") == 0.016
    assert price(model="dall-e-2") == 0.02
    assert price(model="gpt-image-1", quality="high", size="1024x1536") == 0.25
    assert price(model="gpt-image-1", quality="medium", size="1024x1024") == 0.042
    # Unknown to the table: the service picks quality/size, or another service's prices.
    assert price(model="gpt-image-1", quality="auto", size="1024x1024") is None
    assert price(model="gpt-image-1", quality="low") is None  # size auto
    assert price(base_url="http://127.0.0.1:9/v1") is None
    model = OpenAIImages()
    assert model.price(Capability.CHAT, {"prompt": "p"}) is None


def test_price_table_says_where_and_when_it_was_read() -> None:
    table = price_table()
    assert set(table.models) == {"dall-e-3", "dall-e-2", "gpt-image-1"}
    for prices in table.models.values():
        assert prices.source.startswith("https://") and prices.read_on >= date(2024, 1, 1)
    assert table.models["gpt-image-1"].approximate is True


def test_a_malformed_price_table_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = Path(openai_images.__file__).parent.parent.parent / "prompts" / "prices.yaml"
    (tmp_path / "prices.yaml").write_text(shipped.read_text() + "discount: 0.5\n")
    monkeypatch.setenv("DIPTYCH_PROMPTS", str(tmp_path))
    with pytest.raises(InputFileError, match="discount"):
        price_table()


# --- plugin plumbing ------------------------------------------------------------------------


def test_registered_through_its_entry_point() -> None:
    registry = plugins.load_plugins()
    assert registry.models["openai-images"] is OpenAIImages
    registered: list[type[Model]] = []
    openai_images.register_models(registered.append)
    assert registered == [OpenAIImages]


def test_a_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)  # import openai now raises ImportError
    with pytest.raises(MissingDependencyError, match=r"pip install 'diptych\[openai\]'"):
        OpenAIImages()


def test_importing_the_plugin_does_not_import_openai() -> None:
    code = (
        "import sys, diptych.plugins.models.openai_images\n"
        "assert 'openai' not in sys.modules, 'openai imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[3])
