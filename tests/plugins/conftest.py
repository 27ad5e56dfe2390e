"""Fixtures of the plugin tests: an offline Hugging Face hub, torch on one thread, and the tiny
LLaVA both the model and the annotator tests load."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.tiny.llava import build_tiny_llava


@pytest.fixture(scope="module")
def offline() -> Iterator[None]:
    """No test that uses this may reach the Hugging Face hub."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
        yield


@pytest.fixture(scope="module")
def torch_one_thread() -> Iterator[None]:
    """Torch on one thread: the tiny test models gain nothing from more, and on a busy machine
    (tests in parallel) torch's spinning worker threads make them several times slower."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def tiny_llava(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny LLaVA checkpoint directory (see support.tiny.llava), built once per module."""
    directory = tmp_path_factory.mktemp("llava") / "tiny-llava"
    build_tiny_llava(directory)
    return directory


@pytest.fixture
def plugin_env() -> Iterator[pytest.MonkeyPatch]:
    """Environment and sys.path changes for one test, then a clean registry for the next."""
    import importlib

    from diptych.core import plugins

    with pytest.MonkeyPatch.context() as patch:
        yield patch
    importlib.invalidate_caches()
    plugins.load_plugins(reload=True)
