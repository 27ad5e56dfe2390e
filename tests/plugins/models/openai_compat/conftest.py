"""Fixtures of the openai-compatible plugin's tests: the plugin against llama-cpp-python's server
with the bundled SmolLM2, the same model in process, and a scripted fake server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from support.openai_http import FakeOpenAI

from diptych.plugins.models.openai_compat import OpenAICompatible


@pytest.fixture
async def served(llama_server: str) -> AsyncIterator[OpenAICompatible]:
    model = OpenAICompatible(OpenAICompatible.Params(base_url=llama_server, model="smollm2"))
    yield model
    await model.aclose()


@pytest.fixture(scope="module")
def in_process() -> Iterator[Any]:
    from diptych.plugins.models.llamacpp import SmolLM2

    model = SmolLM2()
    yield model
    asyncio.run(model.aclose())


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    yield server
    server.close()
