"""The ``vqa`` and ``vlm-judge`` annotators' ids, versions and keys, the hints and price they take
from the wrapped model, their parameters from the command line, and the models they refuse."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from support.vlm_vision import annotator

from diptych.core import plugins
from diptych.core.annotation import annotator_id
from diptych.core.capabilities import Capability, Sampling
from diptych.core.engine import ModelSlot
from diptych.core.errors import ParameterError, UnknownPluginError
from diptych.plugins.annotators import vlm
from diptych.plugins.annotators.vlm import VisionLanguageAnnotator


def test_ids_versions_and_keys(vision: None) -> None:
    vqa = annotator("vqa", model="position-vision")
    judge = annotator("vlm-judge", model="position-vision")
    assert re.fullmatch(r"vqa:position-vision@[0-9a-f]{8}", vqa.annotator_id)
    assert re.fullmatch(r"vlm-judge:position-vision@[0-9a-f]{8}", judge.annotator_id)
    assert annotator_id(vqa) == vqa.annotator_id  # what the annotation stage stores under
    # The version holds the wrapped model's and the prompts' (the two annotators differ there).
    assert vqa.version.startswith("position-vision=1+prompts=")
    assert vqa.prompt_hash != judge.prompt_hash
    newer = annotator("vqa", model="position-vision", model_params={"version": "2"})
    assert newer.version.startswith("position-vision=2+") and newer.version != vqa.version
    # The wrapped model's operational parameters do not change a label's key; its others do.
    slow = annotator("vqa", model="position-vision", model_params={"latency": 0.5})
    assert ModelSlot.of(slow).ref == ModelSlot.of(vqa).ref
    assert ModelSlot.of(newer).ref.params != ModelSlot.of(vqa).ref.params
    # Labels of two checkpoints (or two sets of questions) never share an id; the same
    # configuration keeps its id, and operational parameters do not change it.
    assert newer.annotator_id != vqa.annotator_id
    assert slow.annotator_id == vqa.annotator_id
    assert annotator("vqa", model="position-vision").annotator_id == vqa.annotator_id
    assert judge.labelling_hash != vqa.labelling_hash  # other questions, same model
    # Defaults: the paper's VQA model, an instruction-following judge, greedy decoding.
    assert vlm.VqaAnnotator.Params().model == "blip-vqa"
    assert vlm.VlmJudgeAnnotator.Params().model == "llava"
    assert vqa.sampling() == Sampling(temperature=0.0, top_p=1.0, max_tokens=64, seed=None)
    assert Capability.PERSON_ANNOTATOR in vqa.capabilities
    assert vqa.provenance()["vision_model"]["model"] == "position-vision"


def test_hints_and_price_follow_the_wrapped_model(vision: None, tmp_path: Path) -> None:
    scripted = annotator("vqa", model="position-vision", model_params={"price_per_call": 0.01})
    assert not scripted.hints.blocking and scripted.hints.max_concurrency == 16
    payload = {"image": {"blob": "ab"}, "subjects": ["left", "right"]}
    assert scripted.price(Capability.PERSON_ANNOTATOR, payload) == pytest.approx(0.02)
    assert (
        annotator("vqa", model="position-vision").price(Capability.PERSON_ANNOTATOR, payload)
        is None
    )
    # A torch model blocks: the annotator that calls it must run in a worker thread too.
    blip = annotator("vqa", model="blip-vqa", model_params={"cache_dir": str(tmp_path)})
    assert blip.hints.blocking and blip.hints.max_concurrency == 1
    assert blip.annotator_id.startswith("vqa:blip-vqa@")
    if importlib.util.find_spec("openai") is not None:
        remote = annotator(
            "vlm-judge", model="openai-vision", model_params={"rate_limit_per_min": 60}
        )
        # Up to two questions per image: half as many images a minute as requests.
        assert not remote.hints.blocking and remote.hints.rate_limit_per_min == 30


def test_parameters_from_the_command_line(vision: None) -> None:
    # `diptych annotate RUN --annotator vqa --model M -A ...` hands key=value strings.
    model = plugins.get_model(
        "vqa", ["model=position-vision", 'model_params={"version": "2"}', "crop=false"]
    )
    assert isinstance(model, VisionLanguageAnnotator)
    assert model.vision_model.version == "2"
    assert model.annotator_id.startswith("vqa:position-vision@")
    with pytest.raises(ParameterError, match="model_params.*not a JSON object"):
        plugins.get_model("vqa", ["model=position-vision", "model_params={version: 2}"])


def test_a_model_that_cannot_see_or_does_not_exist_is_refused(vision: None) -> None:
    with pytest.raises(ParameterError, match="needs a vision_chat model; 'scripted-chat'"):
        annotator("vqa", model="scripted-chat")
    with pytest.raises(UnknownPluginError):
        annotator("vqa", model="no-such-model")
    with pytest.raises(ParameterError, match="no parameter 'colour'"):
        annotator("vqa", model="position-vision", model_params={"colour": "red"})
