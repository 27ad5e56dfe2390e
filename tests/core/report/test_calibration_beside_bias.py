"""A report of a bias run beside an annotator's calibration keeps the bias sections for the
bias run, and says of the calibration what an accuracy leaves unmeasured. (Apart from the
calibration report's module: its browser keeps an event loop running that a run refuses.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.cli.main import main
from diptych.core.engine import run_probe
from diptych.core.store import open_store
from diptych.plugins.probes.calibration.probe import Calibration
from diptych.testing import ScriptedParams
from tests.core.report.test_calibration_report import (
    LARGEST,
    MITIGATIONS,
    NO_BIAS_EXAMINED,
    NOT_COVERED,
    FacesLike,
)


def test_a_report_of_a_bias_run_and_a_calibration_keeps_the_bias_sections(
    scripted: None, tmp_path: Path
) -> None:
    with open_store(tmp_path / "ws") as store:
        calibration = run_probe(store, Calibration(), [FacesLike(ScriptedParams())]).id
        bias = run_probe(store, "pst-text", ["scripted-likelihood"]).id
    with pytest.raises(SystemExit) as done:
        main(["--store", str(tmp_path / "ws"), "report", bias, calibration, "--out",
              str(tmp_path / "report"), "--format", "md"])  # fmt: skip
    assert done.value.code in (0, None)
    markdown = (tmp_path / "report" / "report.md").read_text()
    actions = markdown.split("## Recommended actions", 1)[1].split("\n## ", 1)[0]
    assert f"### {LARGEST}" in actions and f"### {MITIGATIONS}" in actions
    assert "(pst-text, run" in actions and "(calibration, run" not in actions
    assert "Probes not run in these runs: pst, pairs, stories" in actions
    assert "Models not covered: the models audited were scripted-likelihood alone" in actions
    assert NOT_COVERED in actions
    assert "measure one form of this risk" in actions and NO_BIAS_EXAMINED not in actions
    assert "Refused and failed trials are left out" in markdown
