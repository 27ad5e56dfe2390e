"""The OpenAI services' plugins bound the whole answer, not each read: a service whose answer
never ends fails the request in ``timeout`` seconds as one that may have been paid, and a run
does not send it again."""

from __future__ import annotations

from typing import Any

import pytest
from support.endless_answer import endless_answers

from diptych.core.capabilities import Sampling
from diptych.core.engine import RetryPolicy, run_probe
from diptych.core.errors import TransientModelError
from diptych.core.store import Store
from diptych.plugins.models.openai_images import OpenAIImages
from diptych.plugins.models.openai_vision import OpenAIVision


async def _fails_whole(call: Any, model: Any) -> TransientModelError:
    try:
        with pytest.raises(TransientModelError) as raised:
            await call
    finally:
        await model.aclose()
    return raised.value


async def test_a_vision_answer_that_never_ends_times_out_as_a_whole() -> None:
    from PIL import Image

    with endless_answers() as service:
        model = OpenAIVision(OpenAIVision.Params(base_url=service.base_url, timeout=0.5))
        image = Image.new("RGB", (8, 8), (200, 10, 10))
        error = await _fails_whole(model.ask([image], "Who is this?", Sampling()), model)
        assert error.maybe_charged
        assert str(error).startswith("No whole answer within 0.5 s")
        assert service.paths == ["/v1/chat/completions"]


async def test_an_image_answer_that_never_ends_times_out_as_a_whole() -> None:
    with endless_answers() as service:
        model = OpenAIImages(OpenAIImages.Params(base_url=service.base_url, timeout=0.5))
        error = await _fails_whole(model.generate("a nurse", 1, None, None), model)
        assert error.maybe_charged
        assert str(error).startswith("No whole answer within 0.5 s")
        assert service.paths == ["/v1/images/generations"]


def test_a_run_pays_once_for_an_image_answer_that_never_ends(scripted: None, store: Store) -> None:
    retry = RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.02)
    with endless_answers() as service:
        model = OpenAIImages(OpenAIImages.Params(base_url=service.base_url, timeout=0.5))
        run = run_probe(
            store,
            "scripted",
            [model],
            probe_params={"n": 1, "capability": "image_generator"},
            retry=retry,
        )
        [result] = store.run_results(run.id).values()
        assert (result.status, result.attempts) == ("failed", 1)
        assert result.error.startswith("may have been paid: No whole answer within 0.5 s")
        assert service.paths == ["/v1/images/generations"]
