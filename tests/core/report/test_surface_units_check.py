"""The text checks find a unit that is not the probe's: an image counted or resampled in a text
probe's report, in its prose and in report.json's units and populations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.surfaces.text import text_problems, word_problems


@pytest.mark.parametrize(
    "text",
    [
        "95% intervals: percentile bootstrap over images (2,000 resamples, seed 0).",
        "these identities (images resampled)",
        "over 1,600 images",
    ],
)
def test_a_text_probe_resamples_no_images(text: str) -> None:
    assert word_problems(text, ("pst-text",)) != []
    assert word_problems(text, ("pst",)) == []


def _report(tmp_path: Path, unit: str) -> Path:
    figure = {
        "value": 11.8,
        "units": {unit: 612},
        "population": f"these identities ({unit}s resampled)",
    }
    data = {
        "runs": [{"probe": "pst-text"}],
        "result": {"data": {"m": {"overall": {"paired": figure}}}},
    }
    (tmp_path / "report.json").write_text(json.dumps(data), encoding="utf-8")
    return tmp_path


def test_report_json_names_the_probes_unit(tmp_path: Path) -> None:
    problems = text_problems(_report(tmp_path, "image"), digits=False)
    assert any("units names 'image'" in p for p in problems), problems
    assert any("population" in p and "images resampled" in p for p in problems), problems
    assert text_problems(_report(tmp_path, "draw"), digits=False) == []
