"""The clip model plugin on a tiny CLIP built from configs, offline; and the scripted encoder."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.tiny.clip import build_tiny_clip

from diptych.core.capabilities import Capability, ImageTextEncoder
from diptych.core.errors import ModelLoadError
from diptych.core.plugins import get_model, load_plugins
from diptych.plugins.models.clip import Clip, ClipParams
from diptych.testing import ScriptedEncoder

pytestmark = pytest.mark.usefixtures("offline")


@pytest.fixture(scope="module")
def tiny_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("clip") / "tiny-clip"
    build_tiny_clip(directory)
    return directory


@pytest.fixture(scope="module")
def model(tiny_clip: Path, torch_one_thread: None) -> Iterator[Clip]:
    clip = Clip(ClipParams(model=str(tiny_clip), device="cpu", batch_size=2))
    yield clip
    asyncio.run(clip.aclose())


def _images() -> list[Any]:
    from PIL import Image

    return [
        Image.new("RGB", (20, 16), (200, 30, 30)),
        Image.new("RGB", (16, 16), (20, 180, 40)),
        Image.new("L", (24, 24), 90),  # greyscale: converted to RGB
        Image.new("RGBA", (16, 20), (10, 10, 220, 255)),
        Image.new("RGB", (32, 32), (250, 250, 250)),
    ]


TEXTS = ["a photo of a doctor", "a nurse", "a photo of a black woman", "the person", "a man"]


def _norms(vectors: list[list[float]]) -> list[float]:
    return [math.sqrt(sum(x * x for x in v)) for v in vectors]


def test_embeddings_are_unit_vectors_of_the_projection_size(model: Clip) -> None:
    images = asyncio.run(model.embed_images(_images()))
    texts = asyncio.run(model.embed_texts(TEXTS))
    assert len(images) == 5 and len(texts) == 5
    assert {len(v) for v in images + texts} == {24}  # projection_dim
    assert _norms(images + texts) == pytest.approx([1.0] * 10, abs=1e-6)
    # different inputs, different embeddings
    assert images[0] != pytest.approx(images[1], abs=1e-3)
    assert texts[0] != pytest.approx(texts[1], abs=1e-3)


def test_a_batch_embeds_as_one_by_one(model: Clip) -> None:
    # batch_size=2 over 5 inputs: batches of 2, 2, 1, with texts padded to different lengths
    batched = asyncio.run(model.embed_texts(TEXTS))
    alone = [asyncio.run(model.embed_texts([t]))[0] for t in TEXTS]
    for b, a in zip(batched, alone, strict=True):
        assert b == pytest.approx(a, abs=1e-5)
    images = _images()
    batched_images = asyncio.run(model.embed_images(images))
    alone_images = [asyncio.run(model.embed_images([img]))[0] for img in images]
    for b, a in zip(batched_images, alone_images, strict=True):
        assert b == pytest.approx(a, abs=1e-5)


def test_text_image_similarity_is_a_texts_by_images_matrix(model: Clip) -> None:
    import numpy as np

    images = np.asarray(asyncio.run(model.embed_images(_images()[:3])))
    texts = np.asarray(asyncio.run(model.embed_texts(TEXTS[:2])))
    similarity = texts @ images.T
    assert similarity.shape == (2, 3)
    assert np.all(np.abs(similarity) <= 1 + 1e-6)  # cosines of unit vectors


def test_provenance_names_the_model_and_its_preprocessing(model: Clip, tiny_clip: Path) -> None:
    asyncio.run(model.embed_texts(["a man"]))
    facts = model.provenance()
    assert facts["model"] == "clip" and facts["model_id"] == str(tiny_clip)
    assert facts["version"].startswith("tiny-clip:") and facts["version"] == model.version
    assert facts["architecture"] == "CLIPModel" and facts["normalized"] == "l2"
    assert facts["device"] == "cpu" and facts["dtype"] == "float32"
    pre = facts["preprocessing"]
    assert pre["crop_size"] == {"height": 16, "width": 16}
    assert pre["image_mean"] == pytest.approx([0.5, 0.4, 0.3])
    assert pre["image_std"] == pytest.approx([0.2, 0.25, 0.3])
    assert pre["text_padding"] == "longest"


def test_empty_inputs_need_no_model() -> None:
    clip = Clip(ClipParams(model="openai/clip-vit-base-patch32"))
    assert asyncio.run(clip.embed_texts([])) == []


def test_an_uncached_hub_id_is_refused_in_one_line(tmp_path: Path) -> None:
    clip = Clip(ClipParams(model="nobody/no-such-clip", cache_dir=str(tmp_path)))
    with pytest.raises(ModelLoadError, match="not in the local Hugging Face cache") as info:
        clip.load()
    assert "\n" not in str(info.value)


def test_the_plugin_is_registered_and_takes_a_directory(tiny_clip: Path) -> None:
    registry = load_plugins()
    assert registry.models["clip"] is Clip
    clip = get_model("clip", [f"model={tiny_clip}", "device=cpu"])
    assert isinstance(clip, ImageTextEncoder)
    assert Capability.IMAGE_TEXT_ENCODER in clip.capabilities
    assert clip.identity_params()["model"] == str(tiny_clip)
    assert "batch_size" not in clip.identity_params()


def test_the_scripted_encoder_is_deterministic() -> None:
    from PIL import Image

    first, second = ScriptedEncoder(), ScriptedEncoder()
    texts = ["a doctor", "a nurse"]
    images = [Image.new("RGB", (8, 8)), Image.new("RGB", (8, 4))]
    assert asyncio.run(first.embed_texts(texts)) == asyncio.run(second.embed_texts(texts))
    assert asyncio.run(first.embed_images(images)) == asyncio.run(second.embed_images(images))
    a, b = asyncio.run(first.embed_texts(texts))
    assert a != b and len(a) == 4
