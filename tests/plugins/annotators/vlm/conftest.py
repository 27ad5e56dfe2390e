"""Fixtures of the ``vqa`` and ``vlm-judge`` tests: the scripted vision models of
support.vlm_vision and the annotators registered, and no reaching the Hugging Face hub."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from support.vlm_vision import VISION_MODELS

from diptych.core import plugins
from diptych.core.capabilities import Model
from diptych.plugins.annotators import vlm


@pytest.fixture
def vision(scripted: None) -> Iterator[None]:
    """The scripted vision models of support.vlm_vision, and the annotators (until their entry
    point exists)."""

    def register_models(register: Callable[[type[Model]], None]) -> None:
        for cls in VISION_MODELS:
            register(cls)

    names = [
        plugins.register_plugin(
            plugins.plugin_module(register_models=register_models), "vlm-test-models"
        )
    ]
    if "vqa" not in plugins.load_plugins().annotators:
        names.append(plugins.register_plugin(vlm, "vlm-annotators-under-test"))
    yield
    for name in reversed(names):
        plugins.unregister_plugin(name)


@pytest.fixture(autouse=True)
def no_hub(offline: None) -> None:
    """No test here may reach the Hugging Face hub (``offline``: tests/plugins/conftest.py)."""
