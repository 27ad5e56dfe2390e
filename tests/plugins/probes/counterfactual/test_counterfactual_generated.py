"""Generated counterfactual sets through all three filter stages (Table 11), on the tiny diffusers
pipeline and on the fake OpenAI images service.

Four race × gender sets of 12 images are generated for one caption template; the ``nsfw``
annotator labels them (with a threshold chosen from its own scores, so that exactly one set has
an unsafe image); an encoder whose vectors the test chooses per image then makes each stage
remove one set: stage 1's default threshold (0.2) drops the set least like its captions
(cosine 0.140; the others 0.333, 0.272, 0.208), stage 2 drops the set with the unsafe image,
stage 3 the set with an image whose gender reads as the other one.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from diptych import Workspace
from diptych.core.capabilities import Model
from diptych.core.plugins import get_model
from diptych.plugins.annotators.nsfw import NSFW, SAFE, NsfwAnnotator
from diptych.plugins.probes.counterfactual.params import RetrievalParams
from diptych.plugins.probes.counterfactual.templates import data, detect_text, neutral_queries
from diptych.testing import FakeOpenAIServer, ScriptedEncoder

pytestmark = pytest.mark.usefixtures("offline")

GENERATION = {"pair": "race-gender", "occupations": ["doctor"], "prefixes": [1]}
SETS = 4
RACES = data().attributes["race"]
GENDERS = data().attributes["gender"]
DIM = 1 + len(RACES) + 1


def pixels_key(image: Image.Image) -> str:
    return hashlib.sha256(image.convert("RGB").tobytes()).hexdigest()


class TableEncoder(ScriptedEncoder):
    """Images embedded from a table keyed by their pixels; texts from a table by their words.

    Axis 0: similarity to the caption and the queries; then one axis per race; the last axis
    is +1 for male and −1 for female."""

    name = "table-encoder"

    def __init__(self, images: dict[str, list[float]], texts: dict[str, list[float]]) -> None:
        super().__init__()
        self.image_vectors = images
        self.text_vectors = texts

    async def embed_images(self, images: Sequence[Any]) -> list[list[float]]:
        return [self.image_vectors[pixels_key(img)] for img in images]

    async def embed_texts(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.text_vectors.get(t, [0.0] * (DIM - 1) + [0.5]) for t in texts]


def image_vector(score: float, race: str, gender: str) -> list[float]:
    race_axes = [1.0 if r == race else 0.0 for r in RACES]
    return [score, *race_axes, 1.0 if gender == "male" else -1.0]


def texts() -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for query in neutral_queries("doctor"):
        out[query] = [1.0] + [0.0] * (DIM - 1)
    for race in RACES:
        out[detect_text(race)] = [0.0, *(1.0 if r == race else 0.0 for r in RACES), 0.0]
    out[detect_text("male")] = [0.0] * (DIM - 1) + [1.0]
    out[detect_text("female")] = [0.0] * (DIM - 1) + [-1.0]
    return out


def generated_images(ws: Workspace, run_id: str) -> dict[str, list[tuple[str, dict[str, str]]]]:
    """Per set (``<prefix>/<n>``, the end of its id): (blob, attributes) of each image."""
    view = ws.runs.view(run_id)
    out: dict[str, list[tuple[str, dict[str, str]]]] = {}
    for trial in view.trials:
        result = view.result(trial)
        assert result is not None and result.status == "done" and result.blob
        set_no = "/".join(trial.meta["set_id"].split("/")[-2:])  # prefix/n
        out.setdefault(set_no, []).append((result.blob, dict(trial.meta["attributes"])))
    return out


def caption_cosine(index: int) -> float:
    """The caption similarity of every image of the ``index``-th set: its vector is
    (0.5 − 0.1·index, one race axis 1, gender ±1) against the caption's (1, 0, ...), so the
    cosine is s / sqrt(s² + 2): 0.333, 0.272, 0.208, 0.140."""
    score = 0.5 - 0.1 * index
    return score / math.sqrt(score * score + 2)


def filter_all_three_stages(
    ws: Workspace, generator: Model, generation: dict[str, Any], threshold: float | None
) -> list[list[Any]]:
    """Generate, label, filter; return Table 11's rows. Sets in id order get ever lower caption
    similarity; stage 1 keeps those at ``threshold`` or above (None: the default, 0.2)."""
    gen = ws.runs.run_sync("counterfactual-sets", [generator], params=generation)
    images = generated_images(ws, gen.id)
    order = sorted(images)
    assert len(order) == SETS and {len(v) for v in images.values()} == {12}
    assert len({b for members in images.values() for b, _ in members}) == 12 * SETS

    # Stage 2's labels: the nsfw plugin's own P(nsfw) picks a threshold at the highest score of
    # sets 0-2, so the set holding that image (and no other of 0-2) is labelled unsafe.
    nsfw = get_model("nsfw", {})
    assert isinstance(nsfw, NsfwAnnotator)
    p_nsfw = {}
    for members in images.values():
        for blob, _ in members:
            with Image.open(ws.blob_path(blob)) as img:
                p_nsfw[blob] = float(nsfw.classify(img).detail["p_nsfw"])
    cut = 0.2 if threshold is None else threshold
    survivors = [s for i, s in enumerate(order) if caption_cosine(i) >= cut]
    worst = max((p_nsfw[b], s) for s in survivors for b, _ in images[s])
    unsafe_set = worst[1]
    for s in survivors:
        if s != unsafe_set:
            assert max(p_nsfw[b] for b, _ in images[s]) < worst[0]
    summary = ws.annotators.annotate_sync(gen.id, "nsfw", params={"threshold": worst[0]})
    assert summary.labels == 48 and set(summary.by_label) <= {NSFW, SAFE}
    assert summary.by_label[NSFW] >= 1
    # What the plugin calls unsafe is what the filter drops by default.
    assert RetrievalParams().nsfw_labels == [NSFW]

    # Stage 1: set 3 is the least like its captions; stage 3: one image of the other
    # survivor reads as the other gender (race-gender needs 12 of 12 for gender, Table 10).
    misread = next(s for s in survivors if s != unsafe_set)
    table: dict[str, list[float]] = {}
    for set_no, members in images.items():
        for i, (blob, attrs) in enumerate(members):
            gender = attrs["gender"]
            if set_no == misread and i == 0:
                gender = "female" if gender == "male" else "male"
            with Image.open(ws.blob_path(blob)) as img:
                table[pixels_key(img)] = image_vector(
                    0.5 - 0.1 * order.index(set_no), attrs["race"], gender
                )
    captions = {
        attrs_caption: [1.0] + [0.0] * (DIM - 1) for attrs_caption in caption_texts(ws, gen.id)
    }
    encoder = TableEncoder(table, {**texts(), **captions})
    record = ws.runs.run_sync(
        "counterfactual-retrieval",
        [encoder],
        params={"sets": "generated", "similarity_threshold": threshold, "n_boot": 100},
    )
    result = ws.analysis.analyze(record.id)
    stages = result.tables[0].rows
    assert [r[0] for r in stages] == [
        "sets",
        "image-text similarity",
        "NSFW",
        "attribute detectability",
    ]
    assert [r[2] for r in stages] == [12 * r[1] for r in stages]
    assert stages[2][5].endswith(f"48 images labelled, {summary.by_label['nsfw']} unsafe")
    assert stages[2][5].startswith(summary.annotator)
    # The mislabelled image is flagged for review, in the result and in the Review queue.
    assert [("/".join(f["set_id"].split("/")[-2:]), f["type"]) for f in result.flags] == [
        (misread, "gender")
    ]
    stored = ws.runs.view(record.id).flags("attribute-not-detected")
    assert len(stored) == 1
    assert result.data["filter_encoder"] == "table-encoder"
    return stages


def caption_texts(ws: Workspace, run_id: str) -> set[str]:
    return {t.meta["caption"] for t in ws.runs.view(run_id).trials}


@pytest.fixture
def openai_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


@pytest.mark.usefixtures("openai_key")
@pytest.mark.fake_openai(image_size=(32, 32))
def test_sets_from_the_fake_openai_service_pass_the_three_stages(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    generator = get_model("openai-images", {"base_url": fake_openai.base_url})
    # The service takes no seed, so one caption gives one image: four prefixes make four
    # different sets, each its own caption template. A threshold, unlike a top N per template,
    # can empty a template; -1 keeps every set.
    generation = {**GENERATION, "prefixes": [0, 1, 2, 3]}
    with Workspace.open(tmp_path / "ws") as ws:
        stages = filter_all_three_stages(ws, generator, generation, -1.0)
    assert [r[1:4] for r in stages] == [[4, 48, 0], [4, 48, 0], [3, 36, 1], [2, 24, 1]]
    assert stages[1][5].startswith("mean caption similarity >= -1")


def test_sets_from_the_tiny_diffusers_pipeline_pass_the_three_stages(
    tmp_path: Path, torch_one_thread: None
) -> None:
    from support.tiny.stable_diffusion import build_tiny_pipeline

    build_tiny_pipeline(tmp_path / "build")
    generator = get_model("diffusers", {"model": str(tmp_path / "build" / "tiny-sd"), "steps": 2})
    # One caption, four seeds: four sets of one template; the default threshold keeps three.
    generation = {**GENERATION, "sets_per_caption": SETS}
    with Workspace.open(tmp_path / "ws") as ws:
        stages = filter_all_three_stages(ws, generator, generation, None)
    assert [r[1:4] for r in stages] == [[4, 48, 0], [3, 36, 1], [2, 24, 1], [1, 12, 1]]
