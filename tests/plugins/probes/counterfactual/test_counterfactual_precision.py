"""``diptych run counterfactual-retrieval --dry-run`` states the expected half-width of its
headline figures for the planned sets and occupations, warns of designs too small to say
anything, and takes an earlier run's spread where the workspace holds one."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
from support.counterfactual_sets import GENDERS, RACES, colour

from diptych.core.metrics.uncertainty.precision import PlannedDesign, expected_interval
from diptych.plugins.probes.counterfactual.precision import bound, observed_retrieval
from tests.support.cli import call

LN2, LN4 = math.log(2), math.log(4)
DRY_RUN = ["run", "counterfactual-retrieval", "-m", "scripted-encoder", "--dry-run"]


def test_pairs_plans_on_its_sets_because_its_options_share_pools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scripted: None
) -> None:
    code, out = call(capsys, "--store", str(tmp_path / "ws"), *DRY_RUN)
    assert code == 0, out
    # PAIRS: 68 answer options rank three pools of 50 sets between them, so the interval
    # rests on the sets: 50 of them, df 49.
    line = next(x for x in out.splitlines() if "race × gender.max_skew:" in x)
    found = re.search(r"±([\d.]+) \(50 counterfactual sets, df 49, t 2\.01\)", line)
    assert found, line
    # The bound: MaxSkew@4 of four groups in [0, ln 4], every set anywhere in it, SD ln 4 / 2
    # around ln 4 / 2; the plan measures that design's interval as the analysis makes it.
    design = PlannedDesign("clusters", ("counterfactual set",), (50,), 1, "counterfactual sets")
    want = expected_interval(design, bound(0.0, LN4), bounds=(0.0, LN4))
    assert float(found.group(1)) == pytest.approx(want.half_width, abs=5e-3)
    # Roughly t(49) · (ln 4 / 2) / √50 = 2.01 · 0.693 / 7.07 = 0.197, a little less inside
    # the range.
    assert 0.17 < want.half_width < 0.2
    # The race view has two groups: half the range, half the width.
    assert re.search(r"race-gender\.race\.max_skew: ±0\.10\b", out)
    assert re.search(r"race-gender\.gender\.bias: ±0\.2\d", out)
    assert "variance: a bound: every unit's figure anywhere in its range" in out
    assert "warning:" not in out
    code, out = call(
        capsys, "--store", str(tmp_path / "ws"), *DRY_RUN, "--target-width", "0.05"
    )  # fmt: skip
    assert code == 0, out
    # ±0.05 on [0, ln 4] with SD 0.693: about (2 · 0.693 / 0.05)² ≈ 770 sets.
    found = re.search(r"race × gender\.max_skew: ±0\.05 needs (\d+) counterfactual sets", out)
    assert found and 650 <= int(found.group(1)) <= 800, out


def _dataset(directory: Path, occupations: list[str], sets: int = 2) -> Path:
    """A SocialCounterfactuals-shaped dataset: ``sets`` race × gender sets per occupation."""
    import datasets
    from PIL import Image

    keys = ("image", "a1_type", "a1", "a2_type", "a2", "counterfactual_set", "caption")
    rows: dict[str, list[Any]] = {k: [] for k in keys}
    for o, occupation in enumerate(occupations):
        for n in range(sets):
            for race in RACES:
                for gender in GENDERS:
                    rows["image"].append(Image.new("RGB", (4, 4), colour(n + 3 * o, race, gender)))
                    rows["a1_type"].append("race")
                    rows["a1"].append(race)
                    rows["a2_type"].append("gender")
                    rows["a2"].append(gender)
                    rows["counterfactual_set"].append(f"{occupation}{n}")
                    rows["caption"].append(f"A photo of a {race} {gender} {occupation}")
    features = datasets.Features(
        {"image": datasets.Image(), **{k: datasets.Value("string") for k in keys[1:]}}
    )
    datasets.Dataset.from_dict(rows, features=features).save_to_disk(str(directory))
    return directory


def test_three_occupations_are_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scripted: None
) -> None:
    sets = _dataset(tmp_path / "sc", ["doctor", "nurse", "pilot"])
    code, out = call(capsys, "--store", str(tmp_path / "ws"), *DRY_RUN, "-p", f"sets={sets}")
    assert code == 0, out
    # Each occupation its own pool: the occupations are the units, their 4 wordings together.
    assert re.search(r"race × gender\.max_skew: ±[\d.]+ \(3 occupations, df 2, t 4\.30\)", out)
    warnings = [x for x in out.splitlines() if x.startswith("warning:")]
    # One line for the design (the first figure's: every figure rests on the same occupations):
    # 2 degrees of freedom.
    assert len(warnings) == 1
    first = warnings[0]
    assert "3 occupations leave race-gender.race × gender.max_skew a t interval" in first
    assert "with 2 degrees of freedom (t 4.30): enough for a gate's test but too wide" in first
    assert "use at least 4 per list (add sets" in first


def test_an_earlier_runs_spread_replaces_the_bound() -> None:
    # An earlier run's excess of MaxSkew@4 with se 0.02 over 50 sets: a unit SD of
    # 0.02 · √50 = 0.1414, centred on its value; only the first model's figures are read.
    numbers = {
        "clip#1.race-gender.race × gender.max_skew.excess": {
            "value": 0.03, "se": 0.02, "units": {"occupation": 68, "counterfactual set": 50},
        },
        "clip#1.race-gender.race × gender.max_skew": {
            "value": 0.45, "se": 0.02, "units": {"occupation": 68, "counterfactual set": 50},
        },
        "clip#2.race-gender.race × gender.max_skew": {
            "value": 0.9, "se": 0.5, "units": {"occupation": 68, "counterfactual set": 50},
        },
        "clip#1.race-gender.race × gender.min_skew": {
            "value": 0.0, "se": 0.0, "units": {"occupation": 68},
        },
    }  # fmt: skip
    # A model id may hold dots of its own (a local directory).
    numbers = {k.replace("clip#1", "clip:./tiny.v2"): v for k, v in numbers.items()}
    found = observed_retrieval(numbers, "run r1")
    assert set(found) == {"race-gender.race × gender.max_skew"}
    comp = found["race-gender.race × gender.max_skew"]
    assert comp.rows == pytest.approx(0.02 * math.sqrt(50))
    assert comp.centre == 0.45 and comp.source == "run r1 (clip:./tiny.v2)"
