"""The ``llava`` model plugin on a tiny LLaVA built here from configs, offline.

The model (a 2-layer Llama text model and a 2-layer CLIP vision tower with a 16-pixel input,
a 27-word vocabulary with a chat template and the ``<image>`` token, a PIL-based CLIP image
processor) is built once per module with fixed random weights and saved with
``save_pretrained``; every test loads it through the plugin host as a user would. Its weights
are drawn wider than transformers' default (0.2, not 0.02) so that the untrained model's
answers depend clearly on the image and the question, which makes "batch == alone" a claim
that can fail. Nothing is downloaded: hub tests use a cache laid out here.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict
from support.tiny.llava import SPECIALS, WORDS

from diptych.core.capabilities import Capability, Sampling
from diptych.core.data import pairs_sampling
from diptych.core.engine import run_probe
from diptych.core.errors import MissingDependencyError, ModelLoadError, PermanentModelError
from diptych.core.plugins import get_model
from diptych.core.probe import Probe, ProbeResult
from diptych.core.store import Store
from diptych.core.trials import TrialSpec
from diptych.plugins.models import llava as llava_plugin
from diptych.plugins.models._transformers_loading import weights_options
from diptych.plugins.models.llava import Llava

#: The plugin under test (see registered_plugin in tests/plugins/models/conftest.py).
PLUGIN = (llava_plugin, "llava")
pytestmark = pytest.mark.usefixtures("offline", "torch_one_thread", "registered_plugin")

COMMIT = "89abcdef0123456789abcdef0123456789abcdef"
HUB_ID = "diptych-test/tiny-llava"
GREEDY = Sampling(temperature=0.0, max_tokens=8)
PAIRS_SAMPLING = pairs_sampling()


def load(path: Path | str, **params: Any) -> Llava:
    """The plugin as a user gets it (through the host), loaded."""
    model = get_model("llava", {"model": str(path), **params})
    assert isinstance(model, Llava)
    model.load()
    return model


@pytest.fixture(scope="module")
def model(tiny_llava: Path) -> Iterator[Llava]:
    loaded = load(tiny_llava, batch_size=2)
    yield loaded
    asyncio.run(loaded.aclose())


def picture(colour: tuple[int, int, int], size: tuple[int, int] = (40, 30)) -> Any:
    from PIL import Image

    return Image.new("RGB", size, colour)


RED, BLUE, GREEN = picture((200, 10, 10)), picture((10, 10, 200)), picture((10, 200, 10), (24, 48))


def ask(model: Llava, images: list[Any], text: str, sampling: Sampling = GREEDY) -> str:
    return asyncio.run(model.ask(images, text, sampling))


# --- parameters and identity ----------------------------------------------------------------


def test_defaults_and_keys_leave_out_operational_params() -> None:
    params = Llava.Params()
    assert params.model == "llava-hf/llava-1.5-7b-hf"
    assert (params.device, params.dtype, params.allow_download) == ("auto", "auto", False)
    assert Llava.default_sampling() == PAIRS_SAMPLING
    assert (PAIRS_SAMPLING.temperature, PAIRS_SAMPLING.top_p, PAIRS_SAMPLING.max_tokens) == (
        0.75,
        1.0,
        512,
    )
    small = get_model("llava", {"batch_size": 1, "allow_download": True})
    big = get_model("llava", {"batch_size": 16})
    assert small.identity_params() == big.identity_params()
    assert "batch_size" not in small.identity_params()
    assert (small.hints.batch_size, big.hints.batch_size) == (1, 16)
    assert big.hints.blocking and big.hints.max_concurrency == 1
    assert Capability.VISION_CHAT in big.capabilities


def test_building_the_models_imports_no_torch_transformers_or_openai(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from diptych.core import plugins\n"
        "from diptych.plugins.models import llava, blip_vqa\n"
        "for name, module in (('llava', llava), ('blip-vqa', blip_vqa)):\n"
        "    if name not in plugins.load_plugins().models:\n"
        "        plugins.register_plugin(module, name)\n"
        f"m = plugins.get_model('llava', {{'cache_dir': {str(tmp_path)!r}}})\n"
        f"b = plugins.get_model('blip-vqa', {{'cache_dir': {str(tmp_path)!r}}})\n"
        "heavy = [n for n in ('torch', 'transformers', 'openai') if n in sys.modules]\n"
        "print(m.version, b.version, *heavy)\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.split() == ["llava-hf/llava-1.5-7b-hf@main", "Salesforce/blip-vqa-base@main"]


@pytest.mark.parametrize(
    ("version", "device", "accelerate", "expected"),
    [
        ("5.23.0", "cuda", False, {"dtype": "float16", "device_map": "cuda"}),
        ("4.57.1", "cuda", True, {"dtype": "float16", "device_map": "cuda"}),
        ("4.50.0", "cuda", True, {"torch_dtype": "float16", "device_map": "cuda"}),
        ("4.50.0", "mps", False, {"torch_dtype": "float16"}),
        ("5.0.0", "cpu", True, {"dtype": "float16"}),
    ],
)
def test_weights_are_read_in_their_dtype_and_onto_a_gpu_directly(
    version: str, device: str, accelerate: bool, expected: dict[str, Any]
) -> None:
    # transformers renamed torch_dtype to dtype in 4.56 and reads device maps without
    # accelerate from 5.0; the dtype stands in for a torch dtype here.
    assert weights_options(version, device, "float16", accelerate=accelerate) == expected


# --- loading --------------------------------------------------------------------------------


def test_loads_a_local_model_on_cpu_in_float32_and_records_it(
    model: Llava, tiny_llava: Path
) -> None:
    import torch
    import transformers

    answer = ask(model, [RED], "who is this person")
    assert isinstance(answer, str) and answer
    assert set(answer.split()) <= set(WORDS + SPECIALS)
    assert model.version.startswith("tiny-llava:")
    assert model._model.dtype == torch.float32
    p = model.provenance()
    assert (p["device"], p["dtype"]) == ("cpu", "float32")  # device=auto on a CPU machine
    assert p["model"] == "llava" and p["version"] == model.version
    assert p["model_id"] == str(tiny_llava) and p["name_or_path"] == str(tiny_llava.resolve())
    assert p["architecture"] == "LlavaForConditionalGeneration"
    assert p["processor"] == "LlavaProcessor"
    assert p["commit"] is None and p["revision"] is None
    assert p["transformers"] == transformers.__version__ and p["torch"] == str(torch.__version__)
    assert model._processor.tokenizer.padding_side == "left"


def test_a_hub_id_is_read_from_the_local_cache_and_pinned_to_its_commit(
    model: Llava, tiny_llava: Path, tmp_path: Path
) -> None:
    repo = tmp_path / "hub" / ("models--" + HUB_ID.replace("/", "--"))
    shutil.copytree(tiny_llava, repo / "snapshots" / COMMIT)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(COMMIT)

    cached = load(HUB_ID, cache_dir=str(tmp_path / "hub"))
    assert cached.version == f"{HUB_ID}@{COMMIT}"
    assert cached.provenance()["commit"] == COMMIT
    # The same weights answer the same, read from the cache or from the directory.
    assert ask(cached, [BLUE], "describe the man") == ask(model, [BLUE], "describe the man")


def test_an_uncached_hub_id_fails_in_one_line_without_touching_the_network(
    network_attempts: list[Any], tmp_path: Path
) -> None:
    model = get_model("llava", {"cache_dir": str(tmp_path)})
    with pytest.raises(ModelLoadError) as caught:
        model.load()
    message = str(caught.value)
    assert "\n" not in message
    assert "download llava-hf/llava-1.5-7b-hf`" in message
    assert "allow_download=true" in message
    assert network_attempts == []


def test_paths_that_are_not_models_and_devices_torch_cannot_see_are_refused(
    tiny_llava: Path, tmp_path: Path
) -> None:
    with pytest.raises(ModelLoadError, match="does not exist"):
        get_model("llava", {"model": str(tmp_path / "missing" / "llava")})
    with pytest.raises(ModelLoadError, match="without config.json"):
        get_model("llava", {"model": str(tmp_path)})
    with pytest.raises(ModelLoadError, match="no CUDA GPU"):
        load(tiny_llava, device="cuda")


def test_a_missing_transformers_package_says_which_extra_to_install(
    tiny_llava: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = get_model("llava", {"model": str(tiny_llava)})
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'diptych\[transformers\]'"):
        model.load()


# --- answering ------------------------------------------------------------------------------


def test_greedy_answers_are_deterministic_and_depend_on_image_and_question(model: Llava) -> None:
    first = ask(model, [RED], "who is this person")
    assert ask(model, [RED], "who is this person") == first
    assert ask(model, [BLUE], "who is this person") != first
    assert ask(model, [RED], "tell me a story") != first


def test_a_batch_answers_each_request_as_it_is_answered_alone(model: Llava) -> None:
    # Prompts of different lengths (so the batch is padded), zero to two images each, and
    # five requests in forward passes of two (batch_size=2).
    requests: list[tuple[list[Any], str]] = [
        ([RED], "who is this person"),
        ([BLUE], "describe the man in this image"),
        ([], "tell me a story"),
        ([GREEN, RED], "who is the nurse"),
        ([GREEN], "what"),
    ]
    alone = [ask(model, images, text) for images, text in requests]
    assert len(set(alone)) >= 4  # the requests really get different answers
    assert asyncio.run(model.ask_batch(requests, GREEDY)) == alone

    # Right padding would put pad tokens between each prompt and its answer: the shorter
    # prompts would be answered differently. This is what left padding is there for.
    tokenizer = model._processor.tokenizer
    tokenizer.padding_side = "right"
    try:
        wrong = asyncio.run(model.ask_batch(requests, GREEDY))
    finally:
        tokenizer.padding_side = "left"
    assert wrong != alone


def test_max_tokens_bounds_each_answer_in_a_batch(model: Llava) -> None:
    one = Sampling(max_tokens=1)
    [short] = [ask(model, [RED], "who is this person", one)]
    assert len(short.split()) == 1  # one word is one token in this vocabulary
    assert ask(model, [RED], "who is this person").startswith(short)
    mixed = asyncio.run(
        model.ask_batch(
            [([RED], "who is this person"), ([BLUE], "describe the man")],
            [one, GREEDY],
        )
    )
    assert mixed == [short, ask(model, [BLUE], "describe the man")]


def test_sampling_is_reproducible_per_request_seed_in_or_out_of_a_batch(model: Llava) -> None:
    def seeded(seed: int | None, **changes: Any) -> Sampling:
        return PAIRS_SAMPLING.model_copy(update={"seed": seed, "max_tokens": 8, **changes})

    question = "who is this person"
    draws = [ask(model, [RED], question, seeded(seed)) for seed in range(6)]
    assert [ask(model, [RED], question, seeded(seed)) for seed in range(6)] == draws
    assert len(set(draws)) >= 3  # temperature 0.75 on an untrained model: varied answers
    assert model.provenance()["seeds"] == [5]

    # The samples of one question differ only in seed: they share a forward pass, and each
    # is the answer its seed gives alone, whatever else is in the batch.
    batch = asyncio.run(
        model.ask_batch(
            [([RED], question)] * 3 + [([BLUE], "describe the man")],
            [seeded(4), seeded(0), seeded(2), GREEDY],
        )
    )
    assert batch == [draws[4], draws[0], draws[2], ask(model, [BLUE], "describe the man")]

    # Without a seed one is drawn, recorded, and replays the answer.
    unseeded = ask(model, [RED], question, seeded(None))
    [drawn] = model.provenance()["seeds"]
    assert isinstance(drawn, int)
    assert ask(model, [RED], question, seeded(drawn)) == unseeded

    # A nucleus so small it holds only the likeliest token is greedy decoding.
    assert ask(model, [RED], question, seeded(1, top_p=1e-9)) == ask(model, [RED], question)


def test_an_impossible_request_is_a_permanent_error(model: Llava) -> None:
    # Each <image> in the text asks for an image that was not given.
    with pytest.raises(PermanentModelError, match="cannot take this request"):
        ask(model, [RED], "<image> who is this person")
    with pytest.raises(PermanentModelError, match="whole context"):
        ask(model, [RED], " ".join(["person"] * 130))


# --- through the engine ---------------------------------------------------------------------


class AskAboutImages(Probe):
    """Asks one question about each image, PAIRS-style (a test probe)."""

    name = "ask-about-images"
    capabilities = frozenset({Capability.VISION_CHAT})

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")

        images: list[str]
        question: str = "who is this person"
        samples: int = 2

    def plan(self) -> Iterator[TrialSpec]:
        p: Any = self.params
        for index, path in enumerate(p.images):
            for sample in range(p.samples):
                sampling = PAIRS_SAMPLING.model_copy(update={"seed": sample, "max_tokens": 8})
                yield TrialSpec(
                    Capability.VISION_CHAT,
                    {
                        "images": [{"path": path}],
                        "text": p.question,
                        "sampling": sampling.model_dump(),
                    },
                    sample=sample,
                    meta={"image": index},
                )

    def analyze(self, run: Any) -> ProbeResult:
        return ProbeResult(title="ask about images")


def test_a_run_stores_each_answer_with_its_sampling_and_provenance(
    store: Store, tiny_llava: Path, tmp_path: Path
) -> None:
    paths = []
    for name, image in (("red", RED), ("blue", BLUE)):
        paths.append(str(tmp_path / f"{name}.png"))
        image.save(paths[-1])
    probe = AskAboutImages(AskAboutImages.Params(images=paths))
    model = get_model("llava", {"model": str(tiny_llava)})
    assert isinstance(model, Llava)
    run = run_probe(store, probe, [model])
    assert run.status == "complete"
    results = store.run_results(run.id)
    trials = store.trials(run.id)
    assert len(results) == 4 and {r.status for r in results.values()} == {"done"}
    for trial in trials:
        result = results[trial.key]
        sampling = Sampling.model_validate(trial.payload["sampling"])
        assert (sampling.temperature, sampling.top_p) == (0.75, 1.0)
        assert result.provenance["seeds"] == [sampling.seed]
        assert result.provenance["device"] == "cpu"
        # What was stored is what the plugin answers for that image and seed.
        from PIL import Image

        image = Image.open(trial.payload["images"][0]["path"]).convert("RGB")
        assert result.output == {"text": ask(model, [image], trial.payload["text"], sampling)}

    # Everything is stored: a rerun with a fresh model never loads it.
    fresh = get_model("llava", {"model": str(tiny_llava)})
    assert run_probe(store, probe, [fresh]).id == run.id
    assert isinstance(fresh, Llava) and fresh._model is None
