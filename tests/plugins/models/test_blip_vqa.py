"""The ``blip-vqa`` model plugin on a tiny BLIP built here from configs, offline.

The model (2-layer BLIP vision, question-encoder and answer-decoder transformers on 16-pixel
images, a BERT tokenizer over a 26-word vocab.txt written here, a PIL-based BLIP image
processor) is built once per module with fixed random weights drawn wider than the default,
so that its answers depend on the image and the question, and saved with
``save_pretrained``; every test loads it through the plugin host. Nothing is downloaded.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.tiny.parts import TINY_LAYERS, TINY_VISION, pil_image_processor

from diptych.core.capabilities import Capability, Sampling
from diptych.core.errors import ModelLoadError, PermanentModelError
from diptych.core.plugins import get_model
from diptych.plugins.models import blip_vqa as blip_plugin
from diptych.plugins.models.blip_vqa import BlipVqa

#: The plugin under test (see registered_plugin in tests/plugins/models/conftest.py).
PLUGIN = (blip_plugin, "blip-vqa")
pytestmark = pytest.mark.usefixtures("offline", "torch_one_thread", "registered_plugin")

VOCAB = (
    "[PAD] [UNK] [CLS] [SEP] [MASK] [DEC] what who is the person in this image a doctor nurse "
    "yes no man woman color red blue does wear"
).split()
GREEDY = Sampling(temperature=0.0, max_tokens=6)


def build_tiny_blip(directory: Path) -> None:
    """A BlipForQuestionAnswering with its processor, random (seeded) weights, saved."""
    import torch
    from transformers import (
        BertTokenizer,
        BlipConfig,
        BlipForQuestionAnswering,
        BlipProcessor,
        BlipTextConfig,
        BlipVisionConfig,
    )

    image_processor_class = pil_image_processor("BlipImageProcessor")

    directory.mkdir(parents=True)
    vocab_file = directory.parent / "vocab.txt"
    vocab_file.write_text("\n".join(VOCAB) + "\n")
    tokenizer = BertTokenizer(str(vocab_file), bos_token="[DEC]")
    processor = BlipProcessor(
        image_processor=image_processor_class(size={"height": 16, "width": 16}),
        tokenizer=tokenizer,
    )
    spread = 0.2
    text = BlipTextConfig(
        vocab_size=len(VOCAB),
        **TINY_LAYERS,
        encoder_hidden_size=32,
        max_position_embeddings=64,
        pad_token_id=VOCAB.index("[PAD]"),
        sep_token_id=VOCAB.index("[SEP]"),
        bos_token_id=VOCAB.index("[DEC]"),
        initializer_range=spread,
    )
    vision = BlipVisionConfig(
        **TINY_VISION,
        initializer_range=spread,
    )
    config = BlipConfig(
        text_config=text.to_dict(), vision_config=vision.to_dict(), initializer_range=spread
    )
    torch.manual_seed(0)
    BlipForQuestionAnswering(config).save_pretrained(directory)
    processor.save_pretrained(directory)


@pytest.fixture(scope="module")
def tiny_blip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("blip") / "tiny-blip"
    build_tiny_blip(directory)
    return directory


@pytest.fixture(scope="module")
def model(tiny_blip: Path) -> Iterator[BlipVqa]:
    loaded = get_model("blip-vqa", {"model": str(tiny_blip), "batch_size": 2})
    assert isinstance(loaded, BlipVqa)
    loaded.load()
    yield loaded
    asyncio.run(loaded.aclose())


def picture(colour: tuple[int, int, int], size: tuple[int, int] = (40, 30)) -> Any:
    from PIL import Image

    return Image.new("RGB", size, colour)


RED, BLUE, GREY = picture((200, 10, 10)), picture((10, 10, 200)), picture((90, 90, 90), (20, 60))


def ask(model: BlipVqa, images: list[Any], text: str, sampling: Sampling = GREEDY) -> str:
    return asyncio.run(model.ask(images, text, sampling))


def test_defaults_and_keys() -> None:
    params = BlipVqa.Params()
    assert params.model == "Salesforce/blip-vqa-base"
    assert (params.device, params.dtype, params.allow_download) == ("auto", "auto", False)
    assert BlipVqa.default_sampling().temperature == 0.0
    model = get_model("blip-vqa", {"batch_size": 3})
    assert "batch_size" not in model.identity_params()
    assert model.hints.blocking and model.hints.batch_size == 3
    assert Capability.VISION_CHAT in model.capabilities


def test_answers_a_question_about_an_image_on_cpu_and_records_it(
    model: BlipVqa, tiny_blip: Path
) -> None:
    import torch
    import transformers

    answer = ask(model, [RED], "who is this person")
    assert isinstance(answer, str) and answer
    assert set(answer.split()) <= set(VOCAB)
    assert len(answer.split()) <= GREEDY.max_tokens
    assert ask(model, [RED], "who is this person") == answer  # greedy: deterministic
    assert ask(model, [GREY], "who is this person") != answer
    assert ask(model, [RED], "what color") != answer
    p = model.provenance()
    assert (p["device"], p["dtype"]) == ("cpu", "float32")
    assert p["model"] == "blip-vqa" and p["version"].startswith("tiny-blip:")
    assert p["architecture"] == "BlipForQuestionAnswering" and p["processor"] == "BlipProcessor"
    assert p["transformers"] == transformers.__version__ and p["torch"] == str(torch.__version__)
    assert model._model.dtype == torch.float32


def test_a_batch_answers_each_question_as_it_is_answered_alone(model: BlipVqa) -> None:
    requests: list[tuple[list[Any], str]] = [
        ([RED], "who is this person"),
        ([GREY], "what color"),
        ([GREY], "does the man wear red"),
        ([GREY], "who"),
        ([RED], "what color"),
    ]
    alone = [ask(model, images, text) for images, text in requests]
    assert len(set(alone)) >= 3 and all(alone)
    assert asyncio.run(model.ask_batch(requests, GREEDY)) == alone

    # Why questions of different lengths never share a forward pass: BLIP's generate lets
    # the answer attend to the question's padding, so a padded question is answered
    # differently (here, straight through transformers with one padded batch).
    import torch

    processor, blip = model._processor, model._model
    questions = ["who is this person", "who"]
    inputs = processor(images=[RED, GREY], text=questions, padding=True, return_tensors="pt")
    with torch.inference_mode():
        padded = blip.generate(**inputs, max_new_tokens=6, do_sample=False)
    assert processor.decode(padded[0], skip_special_tokens=True) == alone[0]
    assert processor.decode(padded[1], skip_special_tokens=True) != alone[3]


def test_sampling_is_reproducible_per_seed(model: BlipVqa) -> None:
    def seeded(seed: int) -> Sampling:
        return Sampling(temperature=1.0, top_p=1.0, max_tokens=6, seed=seed)

    draws = [ask(model, [RED], "who is this person", seeded(s)) for s in range(5)]
    assert [ask(model, [RED], "who is this person", seeded(s)) for s in range(5)] == draws
    assert len(set(draws)) >= 2
    batch = asyncio.run(
        model.ask_batch([([RED], "who is this person")] * 2, [seeded(3), seeded(1)])
    )
    assert batch == [draws[3], draws[1]]


def test_one_image_per_question(model: BlipVqa) -> None:
    with pytest.raises(PermanentModelError, match="exactly one image; it was given 2"):
        ask(model, [RED, BLUE], "who is this person")
    with pytest.raises(PermanentModelError, match="given 0"):
        ask(model, [], "who is this person")


def test_an_uncached_hub_model_fails_in_one_line_without_touching_the_network(
    network_attempts: list[Any], tmp_path: Path
) -> None:
    model = get_model("blip-vqa", {"cache_dir": str(tmp_path)})
    assert model.version == "Salesforce/blip-vqa-base@main"
    with pytest.raises(ModelLoadError, match=r"download Salesforce/blip-vqa-base`") as caught:
        model.load()
    assert "\n" not in str(caught.value)
