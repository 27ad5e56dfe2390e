"""The service a model plugin calls is part of its identity, and never with its credentials.

Covers the plugins built on the ``openai`` SDK: the effective base URL (``-M base_url``, else
``$OPENAI_BASE_URL``, else OpenAI's own) names the service in trial keys and provenance;
OpenAI's own service keeps the keys that runs stored before this had; user info and secret
query parameters never reach the parameters that are stored.
"""

from __future__ import annotations

import json

import openai  # noqa: F401  (the dev extra installs it; these plugins need it)
import pytest

from diptych.core.capabilities import Capability
from diptych.core.engine import ModelSlot
from diptych.core.errors import ParameterError
from diptych.core.plugins import get_model
from diptych.core.trials import TrialSpec, trial_key
from diptych.plugins.models._openai_common import redact, without_credentials

SPEC = TrialSpec(Capability.VISION_CHAT, {"images": [{"blob": "ab"}], "text": "who?"})
#: The trial key of SPEC for openai-vision with default parameters, as stored by earlier
#: releases: a change here makes every stored OpenAI answer unfindable.
DEFAULT_IDENTITY = {"base_url": None, "detail": "auto", "model": "gpt-4o"}


def key_of(model: object) -> str:
    return trial_key(ModelSlot.of(model).ref, SPEC)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def _no_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def test_openai_itself_keeps_the_identity_stored_runs_have() -> None:
    default = get_model("openai-vision")
    assert default.identity_params() == DEFAULT_IDENTITY
    assert default.version == "gpt-4o"
    assert ModelSlot.of(default).ref.model_id == "openai-vision"
    explicit = get_model("openai-vision", ["base_url=https://api.openai.com/v1/"])
    assert key_of(explicit) == key_of(default)
    assert explicit.params.base_url is None  # type: ignore[attr-defined]


def test_openai_base_url_from_the_environment_is_another_service(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    default_key = key_of(get_model("openai-vision"))
    monkeypatch.setenv("OPENAI_BASE_URL", "http://gateway.example:8080/v1")
    for name in ("openai-vision", "openai-images"):
        model = get_model(name)
        assert model.params.base_url == "http://gateway.example:8080/v1"  # type: ignore[attr-defined]
        assert model.provenance()["service"] == "gateway.example:8080"
        assert model.version.endswith("@gateway.example:8080")
    via_env = get_model("openai-vision")
    assert key_of(via_env) != default_key
    monkeypatch.delenv("OPENAI_BASE_URL")
    named = get_model("openai-vision", ["base_url=http://gateway.example:8080/v1"])
    assert key_of(named) == key_of(via_env)
    assert ModelSlot.of(named).ref.model_id == ModelSlot.of(via_env).ref.model_id


@pytest.mark.parametrize("name", ["openai-vision", "openai-images", "openai-compatible"])
def test_credentials_in_base_url_are_kept_out_of_stored_parameters(name: str) -> None:
    url = "http://drill:PASSWORD1@127.0.0.1:9/v1?api-key=QUERYKEY1&api-version=2024-02-01"
    model = get_model(name, [f"base_url={url}"])
    stored = json.dumps(
        [model.params.model_dump(mode="json"), model.identity_params(), model.version]
    )
    assert "PASSWORD1" not in stored and "QUERYKEY1" not in stored and "drill" not in stored
    assert model.params.base_url == "http://127.0.0.1:9/v1?api-version=2024-02-01"  # type: ignore[attr-defined]
    assert model._called_url == url  # type: ignore[attr-defined]
    # The same service with other credentials is the same model.
    other = get_model(name, [f"base_url={url.replace('PASSWORD1', 'other')}"])
    assert ModelSlot.of(other).ref == ModelSlot.of(model).ref


def test_vlm_annotator_stores_the_wrapped_service_without_credentials() -> None:
    url = "http://drill:PASSWORD1@127.0.0.1:9/v1"
    annotator = get_model("vqa", [f'model_params={{"base_url": "{url}"}}', "model=openai-vision"])
    dumped = json.dumps(annotator.params.model_dump(mode="json"))
    assert "PASSWORD1" not in dumped
    assert annotator.params.model_params == {"base_url": "http://127.0.0.1:9/v1"}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "url", ["not-a-url", "ftp://host/v1", "http:///v1", "http://host:port/v1", "http://[::1/v1"]
)
def test_a_base_url_no_request_could_reach_is_refused_before_any_work(url: str) -> None:
    with pytest.raises(ParameterError, match="base_url"):
        get_model("openai-images", [f"base_url={url}"])


def test_any_form_of_a_rejected_key_is_masked_whole() -> None:
    key = "azure0123456789abcdefKEYTAIL"
    masked = f"{key[:8]}{'*' * (len(key) - 12)}{key[-4:]}"
    message = f"Incorrect API key provided: {masked}. You can find your API key at https://x."
    shown = redact(message, key)
    assert key[:8] not in shown and key[-4:] not in shown and "***" in shown
    short = "abcdefghij"  # OpenAI quotes 8 + 4 characters: the whole key, overlapped
    assert "abcdefgh" not in redact(f"provided: {short[:8]}{short[-4:]}.", short)
    assert "PW" not in redact("Could not reach http://u:PW@host/v1 (refused)")
    assert "QK" not in redact("GET /v1/x?api-key=QK&b=1 failed")


def test_without_credentials_keeps_what_names_the_service() -> None:
    assert without_credentials("https://u:p@Host.example:8443/base/v1/?token=T&deployment=d") == (
        "https://host.example:8443/base/v1?deployment=d"
    )
