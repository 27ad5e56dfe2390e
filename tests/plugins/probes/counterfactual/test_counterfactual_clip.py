"""``diptych run counterfactual-retrieval -m clip:<dir> --sets pairs`` end to end, offline, on a
tiny CLIP built from a config (the builder of the clip plugin's tests)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.tiny.clip import build_tiny_clip

pytestmark = pytest.mark.usefixtures("offline")


def _run(store: Path, clip_dir: Path, *params: str) -> None:
    env = {**os.environ, "DIPTYCH_STORE": str(store), "HF_HUB_OFFLINE": "1"}
    cli = [sys.executable, "-m", "diptych.cli.main", "run", "counterfactual-retrieval"]
    ran = subprocess.run(
        [*cli, "-m", f"clip:{clip_dir}", "--sets", "pairs", *params],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr


@pytest.fixture(scope="module")
def pairs_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A workspace where the tiny CLIP (random weights) ran on the PAIRS pools, and its dir."""
    root = tmp_path_factory.mktemp("clip-pairs")
    clip_dir = root / "tiny-clip"
    build_tiny_clip(clip_dir)
    _run(root / "ws", clip_dir)
    return root / "ws", clip_dir


def test_the_cli_runs_and_analyses_pairs_with_a_local_clip(pairs_store: tuple[Path, Path]) -> None:
    store, _ = pairs_store
    from diptych import Workspace

    with Workspace.open(store) as ws:
        (summary,) = ws.runs.list()
        assert summary.counts.get("done", 0) == len(ws.runs.view(summary.run.id).trials)
        result = ws.analysis.analyze(summary.run.id)
    stages = result.tables[0].rows
    assert stages[0][1:3] == [50, 200]
    assert json.dumps(result.data["filter"])  # the counts are plain data for the JSON report
    assert (store / "chroma").is_dir()


def test_a_blind_encoder_is_not_called_biased(pairs_store: tuple[Path, Path]) -> None:
    """A CLIP with random weights knows nothing of race or gender, yet to it the four images
    of a PAIRS scenario are near duplicates, so its top 4 is often one whole, balanced set: a
    random ranking of the pool expects more skew than that, and an excess over a random
    ranking read "less skewed than chance". Against the null that permutes the attributes
    within each set, every figure's excess interval holds 0."""
    store, clip_dir = pairs_store
    # The embeddings are stored: this run only scores, with every set kept.
    _run(store, clip_dir, "-p", "detectability=false")
    from diptych import Workspace

    with Workspace.open(store) as ws:
        latest = ws.runs.list()[-1]
        result = ws.analysis.analyze(latest.run.id)
    excesses = {k: v for k, v in result.numbers.items() if k.endswith(".excess")}
    # Three attribute views (race × gender, race, gender) of four figures each, and the
    # gender view's Bias@K and |Bias@K|, which count its two genders only.
    assert len(excesses) == 14
    assert {k.split(".race-gender.")[1] for k in excesses if "bias" in k} == {
        "gender.bias.excess", "gender.abs_bias.excess"
    }  # fmt: skip
    for key, excess in excesses.items():
        assert excess["ci_low"] <= 0 <= excess["ci_high"], key
        # 68 answer options share three pools: the interval permutes within the 50 sets too.
        assert excess["units"] == {"occupation": 68, "counterfactual set": 50}, key
    # Every interval printed, excess and mean, is finite and inside its figure's range (the
    # gender view's MinSkew@4 of two groups can reach ln(1/2); of four it is always 0).
    for key, number in result.numbers.items():
        low, high = number["ci_low"], number["ci_high"]
        assert isinstance(low, float) and isinstance(high, float), key
        floor, ceiling = number.get("range", (-math.inf, math.inf))
        assert floor <= low <= number["value"] <= high <= ceiling, key
    (model,) = {k.split(".race-gender.")[0] for k in excesses}
    skew = result.numbers[f"{model}.race-gender.race × gender.max_skew"]
    # The random ranking expects far more MaxSkew@4 than the within-set null does.
    assert skew["random_ranking"] - skew["null"] > 0.2
    assert math.isfinite(skew["permutation_p"])
