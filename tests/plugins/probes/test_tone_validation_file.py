"""The measured checks the report's skin-tone section quotes: the shipped file agrees with the
benchmark's declarations and targets, a figure that drifts from a new run or is not declared is
named, and a cell reads as the benchmark printed it."""

from __future__ import annotations

from pathlib import Path

import yaml

from bench.tone.validation import FILE, check, write
from diptych.plugins.probes.pst.swatches import BENCH_FIGURES
from diptych.plugins.probes.pst.tone.validation import (
    MeasuredFigure,
    measured_text,
    tone_validation,
)


def test_the_shipped_file_holds_every_declared_tone_figure_within_its_target() -> None:
    assert check({}) == []
    shipped = tone_validation()
    assert shipped.version == 1 and shipped.diptych
    # Every figure the report quotes has a recorded value.
    recorded = shipped.by_name()
    assert [name for name, _ in BENCH_FIGURES if name not in recorded] == []


def test_a_new_run_more_than_three_monte_carlo_errors_away_is_named() -> None:
    recorded = tone_validation().by_name()["tone.gap_coverage"]
    assert recorded.mc_se is not None
    near = recorded.value + 2 * recorded.mc_se
    far = recorded.value + 5 * recorded.mc_se
    row = {"name": "tone.gap_coverage", "unit": "fraction", "mc_se": recorded.mc_se}
    assert check({"tone.gap_coverage": {**row, "value": near}}) == []
    # Two runs' errors combine: 5 se apart is > 3 · √2 se.
    assert check({"tone.gap_coverage": {**row, "value": far}}) == [
        f"tone.gap_coverage: recorded {recorded.value}, measured {far}"
    ]


def test_writing_merges_a_run_and_a_stray_figure_is_named(tmp_path: Path) -> None:
    path = tmp_path / "tone_validation.yaml"
    path.write_text(FILE.read_text())
    write({"tone.gap_type1": {"name": "tone.gap_type1", "value": 0.051, "unit": "fraction",
                              "mc_se": 0.007, "want": "<= 0.06", "ok": True}}, path)  # fmt: skip
    data = yaml.safe_load(path.read_text())
    by_name = {f["name"]: f for f in data["figures"]}
    assert by_name["tone.gap_type1"]["value"] == 0.051
    assert len(by_name) == len(tone_validation().figures)
    data["figures"].append({"name": "tone.made_up", "value": 1.0, "unit": "ratio"})
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    assert check({}, path) == ["tone.made_up: recorded, but no benchmark declares it"]


def test_a_cell_gives_the_value_its_error_and_its_target() -> None:
    figure = MeasuredFigure(name="x", value=0.972, unit="fraction", mc_se=0.014, want=">= 0.9")
    assert measured_text(figure) == "0.97 ± 0.01 (want ≥ 0.9)"
    band = MeasuredFigure(name="y", value=0.9641, unit="fraction", mc_se=0.0059,
                          want="in 0.93..0.97")  # fmt: skip
    assert measured_text(band) == "0.96 ± 0.01 (want 0.93–0.97)"
    assert measured_text(None) == "not measured"
