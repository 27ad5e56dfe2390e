"""The ``diffusers`` model plugin on a tiny Stable Diffusion pipeline built here, offline.

The pipeline (a 2-block UNet, a 2-block VAE, a 2-layer CLIP text encoder with a letter-level
tokenizer) is built from configs with fixed initial weights and saved once per module; every
test loads it through the plugin host as a user would. Nothing is downloaded: the hub cache
tests use a cache directory laid out here, and network access is trapped where it matters.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.tiny.stable_diffusion import build_tiny_pipeline

from diptych.core.capabilities import Capability, GeneratedImage
from diptych.core.engine import run_probe
from diptych.core.errors import (
    MissingDependencyError,
    ModelLoadError,
    ParameterError,
    PermanentModelError,
    RefusalError,
)
from diptych.core.plugins import get_model
from diptych.core.store import Store
from diptych.plugins.models.diffusers import Diffusers, resolve_placement

pytestmark = pytest.mark.usefixtures("offline", "torch_one_thread")

NATIVE_SIZE = (32, 32)  # UNet sample_size 16 x the VAE's 2x upsampling
COMMIT = "0123456789abcdef0123456789abcdef01234567"
HUB_ID = "diptych-test/tiny-sd"


@pytest.fixture(scope="module")
def tiny_sd(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("diffusers")
    build_tiny_pipeline(root / "build")
    return root / "build" / "tiny-sd"


def load(path: Path | str, **params: Any) -> Diffusers:
    """The plugin as a user gets it (through the host), loaded, with 2 steps unless told."""
    model = get_model("diffusers", {"model": str(path), "steps": 2, **params})
    assert isinstance(model, Diffusers)
    model.load()
    return model


def generate(
    model: Diffusers, prompt: str, n: int, seed: int | None, size: str | None = None
) -> list[GeneratedImage]:
    return asyncio.run(model.generate(prompt, n, seed, size))


def pixels(generated: GeneratedImage) -> np.ndarray:
    return np.asarray(generated.image.convert("RGB"), dtype=np.int16)


def max_difference(a: GeneratedImage, b: GeneratedImage) -> int:
    return int(np.abs(pixels(a) - pixels(b)).max())


# --- parameters, identity and placement ---------------------------------------------------


def test_defaults_follow_the_pst_paper_and_keys_leave_out_operational_params() -> None:
    params = Diffusers.Params()
    assert params.model == "stabilityai/stable-diffusion-2"
    assert (params.steps, params.guidance_scale, params.batch_size) == (50, 7.5, 4)
    assert (params.device, params.dtype, params.allow_download) == ("auto", "auto", False)
    with pytest.raises(ParameterError, match="no parameter 'num_steps'"):
        get_model("diffusers", {"num_steps": 3})
    with pytest.raises(ParameterError, match="width"):
        get_model("diffusers", {"width": 30})

    small = get_model("diffusers", {"batch_size": 1, "allow_download": True})
    big = get_model("diffusers", {"batch_size": 16, "attention_slicing": True})
    assert small.identity_params() == big.identity_params()
    assert "batch_size" not in small.identity_params()
    assert (small.hints.batch_size, big.hints.batch_size) == (1, 16)
    assert big.hints.blocking and big.hints.max_concurrency == 1
    assert get_model("diffusers", {"steps": 30}).identity_params()["steps"] == 30


def test_building_the_model_imports_no_torch_and_versions_an_uncached_hub_id(
    tmp_path: Path,
) -> None:
    code = (
        "import sys\n"
        "from diptych.core.plugins import get_model\n"
        f"m = get_model('diffusers', {{'cache_dir': {str(tmp_path)!r}}})\n"
        "print(m.version, 'torch' in sys.modules, 'diffusers' in sys.modules)\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.split() == ["stabilityai/stable-diffusion-2@main", "False", "False"]


@pytest.mark.parametrize(
    ("asked", "cuda", "mps", "expected"),
    [
        (("auto", "auto"), True, True, ("cuda", "float16")),
        (("auto", "auto"), False, True, ("mps", "float32")),
        (("auto", "auto"), False, False, ("cpu", "float32")),
        (("auto", "bfloat16"), False, False, ("cpu", "bfloat16")),
        (("cpu", "auto"), True, False, ("cpu", "float32")),
        (("cuda", "float32"), True, False, ("cuda", "float32")),
    ],
)
def test_device_and_dtype_are_chosen_from_what_torch_sees(
    asked: tuple[str, str], cuda: bool, mps: bool, expected: tuple[str, str]
) -> None:
    assert resolve_placement(*asked, cuda=cuda, mps=mps) == expected


def test_a_device_torch_cannot_see_is_refused_before_loading() -> None:
    with pytest.raises(ModelLoadError, match="no CUDA GPU"):
        resolve_placement("cuda", "auto", cuda=False, mps=True)
    with pytest.raises(ModelLoadError, match="no Apple GPU"):
        resolve_placement("mps", "auto", cuda=True, mps=False)


# --- loading --------------------------------------------------------------------------------


def test_loads_a_local_pipeline_on_cpu_in_float32_and_records_it(tiny_sd: Path) -> None:
    import diffusers
    import torch

    model = load(tiny_sd, guidance_scale=3.0)
    assert model.version.startswith("tiny-sd:")
    [image] = generate(model, "a doctor", 1, 11)
    assert image.image.size == NATIVE_SIZE
    p = image.provenance
    assert (p["device"], p["dtype"]) == ("cpu", "float32")
    assert model._pipe.unet.dtype == torch.float32
    assert p["model"] == "diffusers" and p["version"] == model.version
    assert p["name_or_path"] == str(tiny_sd.resolve())
    assert p["commit"] is None and p["revision"] is None
    assert p["pipeline"] == "StableDiffusionPipeline"
    assert p["scheduler"] == "DDIMScheduler"
    assert (p["steps"], p["guidance_scale"], p["seed"], p["size"]) == (2, 3.0, 11, "32x32")
    assert p["diffusers"] == diffusers.__version__ and p["torch"] == str(torch.__version__)
    # What the engine stores beside each result carries the same facts.
    assert model.provenance()["device"] == "cpu" and model.provenance()["backend"] == "diffusers"


def test_a_hub_id_is_read_from_the_local_cache_and_pinned_to_its_commit(
    tiny_sd: Path, tmp_path: Path
) -> None:
    repo = tmp_path / "hub" / ("models--" + HUB_ID.replace("/", "--"))
    shutil.copytree(tiny_sd, repo / "snapshots" / COMMIT)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(COMMIT)

    model = load(HUB_ID, cache_dir=str(tmp_path / "hub"))
    assert model.version == f"{HUB_ID}@{COMMIT}"
    [image] = generate(model, "a nurse", 1, 3)
    assert image.provenance["name_or_path"] == HUB_ID
    assert image.provenance["commit"] == COMMIT
    # The same weights give the same image whether read from the cache or the directory.
    assert max_difference(image, generate(load(tiny_sd), "a nurse", 1, 3)[0]) == 0


def test_an_uncached_hub_id_fails_in_one_line_without_touching_the_network(
    network_attempts: list[Any],
) -> None:
    model_id = "diptych-test/no-such-model-7f3a9c"
    model = get_model("diffusers", {"model": model_id})
    with pytest.raises(ModelLoadError) as caught:
        model.load()
    message = str(caught.value)
    assert "\n" not in message
    assert f"download {model_id}`" in message  # `hf download ...` or `huggingface-cli ...`
    assert "local pipeline directory" in message and "allow_download=true" in message
    assert network_attempts == []


def test_paths_that_are_not_pipelines_are_refused_when_the_model_is_built(
    tiny_sd: Path, tmp_path: Path
) -> None:
    with pytest.raises(ModelLoadError, match="does not exist"):
        get_model("diffusers", {"model": str(tmp_path / "missing" / "sd")})
    with pytest.raises(ModelLoadError, match="without model_index.json"):
        get_model("diffusers", {"model": str(tmp_path)})
    with pytest.raises(ParameterError, match="revision applies to hub ids"):
        get_model("diffusers", {"model": str(tiny_sd), "revision": "main"})


def test_a_local_pipeline_version_follows_its_contents_not_its_location(
    tiny_sd: Path, tmp_path: Path
) -> None:
    def version(path: Path) -> str:
        return get_model("diffusers", {"model": str(path)}).version

    moved = tmp_path / "elsewhere" / "tiny-sd"
    shutil.copytree(tiny_sd, moved)
    assert version(moved) == version(tiny_sd)

    config_file = moved / "scheduler" / "scheduler_config.json"
    config = json.loads(config_file.read_text())
    config["beta_end"] = 0.02
    config_file.write_text(json.dumps(config))
    assert version(moved) != version(tiny_sd)


def test_a_missing_diffusers_package_says_which_extra_to_install(
    tiny_sd: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = get_model("diffusers", {"model": str(tiny_sd)})
    monkeypatch.setitem(sys.modules, "diffusers", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'diptych\[diffusers\]'"):
        model.load()


def test_an_unknown_or_unfitting_scheduler_is_a_load_error(tiny_sd: Path) -> None:
    with pytest.raises(ModelLoadError, match="not a diffusers scheduler.*EulerDiscreteScheduler"):
        load(tiny_sd, scheduler="EulerScheduler")
    with pytest.raises(ModelLoadError, match="not a diffusers scheduler"):
        load(tiny_sd, scheduler="UNet2DConditionModel")


# --- generation -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model(tiny_sd: Path) -> Iterator[Diffusers]:
    loaded = load(tiny_sd)
    yield loaded
    asyncio.run(loaded.aclose())


def test_the_same_seed_gives_the_same_image_and_another_seed_another(model: Diffusers) -> None:
    [first] = generate(model, "a doctor", 1, 42)
    [again] = generate(model, "a doctor", 1, 42)
    [other] = generate(model, "a doctor", 1, 43)
    assert max_difference(first, again) == 0
    assert max_difference(first, other) > 20
    [unseeded] = generate(model, "a doctor", 1, None)
    # Without a seed one is drawn, recorded, and regenerates the image.
    [replayed] = generate(model, "a doctor", 1, unseeded.provenance["seed"])
    assert max_difference(unseeded, replayed) == 0


def test_each_image_of_a_batch_equals_the_image_its_seed_gives_alone(
    model: Diffusers, tiny_sd: Path
) -> None:
    batch = generate(model, "a teacher", 4, 100)
    assert [g.provenance["seed"] for g in batch] == [100, 101, 102, 103]
    alone = [generate(model, "a teacher", 1, 100 + i)[0] for i in range(4)]
    # On the CPU in float32 the batch and the single image agree to the last bit or within
    # one grey level; distinct seeds differ by far more.
    assert all(max_difference(b, a) <= 1 for b, a in zip(batch, alone, strict=True))
    assert max_difference(batch[0], batch[1]) > 20

    # Split into forward passes of 3 + 1, the images are the same again.
    chunked = generate(load(tiny_sd, batch_size=3), "a teacher", 4, 100)
    assert all(max_difference(c, a) <= 1 for c, a in zip(chunked, alone, strict=True))


def test_generate_batch_gives_each_prompt_its_own_seed(model: Diffusers) -> None:
    prompts = ["a doctor", "a nurse", "a doctor", "a pilot", "a nurse"]
    seeds = [7, 7, 8, 9, 10]
    batch = asyncio.run(model.generate_batch(prompts, seeds, None))
    assert [g.provenance["seed"] for g in batch] == seeds
    for prompt, seed, generated in zip(prompts, seeds, batch, strict=True):
        [alone] = generate(model, prompt, 1, seed)
        assert max_difference(generated, alone) <= 1
    # The prompt steers the image: same seed, different prompt, different image.
    assert max_difference(batch[0], batch[1]) > 5
    with pytest.raises(PermanentModelError, match="one seed per prompt"):
        asyncio.run(model.generate_batch(["a doctor"], [1, 2], None))
    # A trial without a seed gets a fresh one, recorded so that it regenerates the image.
    drawn = asyncio.run(model.generate_batch(["a doctor", "a nurse"], [None, 3], None))
    assert drawn[1].provenance["seed"] == 3
    [replayed] = generate(model, "a doctor", 1, drawn[0].provenance["seed"])
    assert max_difference(drawn[0], replayed) <= 1


def test_image_size_comes_from_the_trial_then_the_params_then_the_pipeline(
    model: Diffusers, tiny_sd: Path
) -> None:
    [native] = generate(model, "a chef", 1, 1)
    [wide] = generate(model, "a chef", 1, 1, "48x24")
    assert native.image.size == NATIVE_SIZE
    assert wide.image.size == (48, 24) and wide.provenance["size"] == "48x24"
    [configured] = generate(load(tiny_sd, width=16, height=40), "a chef", 1, 1)
    assert configured.image.size == (16, 40)
    for bad in ("30x30", "big", "0x8"):
        with pytest.raises(PermanentModelError, match="size"):
            generate(model, "a chef", 1, 1, bad)


def test_a_swapped_scheduler_is_used_and_recorded(model: Diffusers, tiny_sd: Path) -> None:
    euler = load(tiny_sd, scheduler="EulerAncestralDiscreteScheduler")
    assert type(euler._pipe.scheduler).__name__ == "EulerAncestralDiscreteScheduler"
    # An ancestral sampler draws fresh noise at every step from the same per-image
    # generators, so batch == alone must hold there too.
    batch = generate(euler, "a judge", 2, 5)
    alone = generate(euler, "a judge", 1, 6)
    assert batch[1].provenance["scheduler"] == "EulerAncestralDiscreteScheduler"
    assert max_difference(batch[1], alone[0]) <= 1
    # With two steps of an untrained UNet the samplers end close together, but clearly
    # further apart than the rounding that separates a batched image from a lone one.
    assert max_difference(batch[0], generate(model, "a judge", 1, 5)[0]) > 1


def test_a_negative_prompt_changes_the_image_and_is_recorded(
    model: Diffusers, tiny_sd: Path
) -> None:
    [plain] = generate(model, "a lawyer", 1, 9)
    [steered] = generate(load(tiny_sd, negative_prompt="a crowd"), "a lawyer", 1, 9)
    assert steered.provenance["negative_prompt"] == "a crowd"
    assert max_difference(plain, steered) > 5


def test_an_image_the_safety_checker_blanks_out_is_a_refusal(tiny_sd: Path) -> None:
    model = load(tiny_sd)

    # The tiny pipeline has no safety checker; stand in one that flags the second image of
    # each forward pass, where the pipeline would call a real one.
    def flag_second(image: Any, device: Any, dtype: Any) -> tuple[Any, list[bool]]:
        return image, [i == 1 for i in range(len(image))]

    model._pipe.run_safety_checker = flag_second
    assert len(generate(model, "a swimmer", 1, 4)) == 1
    with pytest.raises(RefusalError, match=r"safety checker .* seed\(s\) \[5\]"):
        generate(model, "a swimmer", 2, 4)
    with pytest.raises(RefusalError, match=r"seed\(s\) \[8\]"):
        asyncio.run(model.generate_batch(["a swimmer", "a diver"], [7, 8], None))


# --- through the engine ---------------------------------------------------------------------


def test_a_run_stores_each_image_as_a_png_that_its_seed_regenerates(
    scripted: None, store: Store, tiny_sd: Path
) -> None:
    from PIL import Image

    model = get_model("diffusers", {"model": str(tiny_sd), "steps": 2})
    assert isinstance(model, Diffusers)
    run = run_probe(
        store, "scripted", [model], probe_params={"n": 3, "capability": "image_generator"}
    )
    assert run.status == "complete"
    results = list(store.run_results(run.id).values())
    assert len(results) == 3 and {r.status for r in results} == {"done"}
    seeds = set()
    for result in results:
        assert result.blob is not None and result.output == {"blobs": [result.blob]}
        png = store.get_blob(result.blob)
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        stored = Image.open(io.BytesIO(png))
        assert stored.size == NATIVE_SIZE
        p = result.provenance
        assert (p["device"], p["dtype"], p["steps"]) == ("cpu", "float32", 2)
        assert p["model"] == "diffusers" and p["version"] == model.version
        # batch_size 4 (the default): the engine made the three trials one generate_batch
        # call, and each stored image is still the one its own seed gives alone.
        assert p["batch_size"] == 3
        seeds.add(p["seed"])
        trial = next(t for t in store.trials(run.id) if t.key == result.key)
        [again] = generate(model, trial.payload["prompt"], 1, p["seed"])
        assert max_difference(GeneratedImage(stored), again) <= 1
    assert len(seeds) == 3

    # Everything is stored: a rerun with a fresh model never loads the pipeline.
    fresh = get_model("diffusers", {"model": str(tiny_sd), "steps": 2})
    assert isinstance(fresh, Diffusers)
    rerun = run_probe(
        store, "scripted", [fresh], probe_params={"n": 3, "capability": "image_generator"}
    )
    assert rerun.id == run.id and fresh._pipe is None
    assert Capability.IMAGE_GENERATOR in fresh.capabilities
