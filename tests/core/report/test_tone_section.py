"""The report's section on perceived skin tone: the ten swatches with their numbers, the plain
words on what the figures are and are not, the figures with their intervals and the gender ×
tone table, for a run whose persons a reviewer gave tones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from diptych.core.metrics.tone import MONK_SRGB
from diptych.core.workspace import Workspace


@pytest.fixture(scope="module")
def written(audit: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tone-report")
    with Workspace.open(audit.ws_path) as ws:
        ws.analysis.report([audit.runs[1]], out, formats="md,json")
    return out


def test_the_section_draws_each_swatch_with_its_number_and_says_what_tone_is(
    written: Path,
) -> None:
    markdown = (written / "report.md").read_text()
    assert "Perceived skin tone" in markdown
    assert "not race, not ethnicity" in markdown
    # The swatches' text alternative names every step with its colour: never colour alone.
    for step, colour in enumerate(MONK_SRGB, start=1):
        assert f"{step} {colour}" in markdown
    assert (written / "figures" / "tone_monk_swatches.png").read_bytes()[:4] == b"\x89PNG"
    assert "tone.gap_coverage" in markdown
    # The checks carry their measured values from the package's validation file, each with its
    # error and target, never a figure written into the report's text.
    from diptych.plugins.probes.pst.tone.validation import measured_text, tone_validation

    for figure in tone_validation().figures:
        if figure.name in ("tone.gap_coverage", "tone.corrected.gap_coverage"):
            assert f"{figure.name} | " in markdown and measured_text(figure) in markdown


def test_the_report_gives_the_tone_gap_and_the_gender_by_tone_table(written: Path) -> None:
    numbers = json.loads((written / "report.json").read_text())["result"]["numbers"]
    # The reviewer's tones: carpenter 6, sheriff 3 (masculine-stereotyped), nurse 8, editor 4.
    # Scenes carpenter–nurse −2, carpenter–editor 2, sheriff–nurse −5, sheriff–editor −1:
    # the masculine-stereotyped identities are drawn 1.5 steps lighter on average.
    gap = numbers["occupation: tone gap paired"]
    assert gap["value"] == pytest.approx(-1.5)
    assert gap["ci_low"] < gap["value"] < gap["ci_high"]
    markdown = (written / "report.md").read_text()
    assert "Perceived gender × skin tone band" in markdown
    assert "too few to say" in markdown
