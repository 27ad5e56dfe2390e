"""Calibrating an annotator on PAIRS: the probe, the stored profile, `diptych calibrate`, and the
profile in the pst report."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest
from pydantic import Field
from support.lookup_annotator import LookupAnnotator
from support.pst_runs import Image, Person, store_pst_run

from diptych.cli.main import main
from diptych.core import plugins
from diptych.core.capabilities import Model
from diptych.core.engine import run_probe
from diptych.core.labels import Label
from diptych.core.migrations import MIGRATIONS
from diptych.core.runview import RunView
from diptych.core.store import Store, open_store
from diptych.datasets import pairs
from diptych.plugins.probes.calibration import probe as calibration
from diptych.plugins.probes.calibration.probe import Calibration, CalibrationParams
from diptych.plugins.probes.calibration.profile import calibration_profile
from diptych.plugins.probes.pst.analysis import analyze_pst
from diptych.testing import ScriptedParams


class VLMParams(ScriptedParams):
    model: str = Field("default-vlm", description="the vision-language model asked")


class LookupVLM(LookupAnnotator):
    """The same, with a ``model`` parameter as a VLM annotator has."""

    name = "lookup-vlm"
    Params = VLMParams  # type: ignore[assignment]
    asked: ClassVar[list[str]] = []

    async def annotate(self, image: Any, subjects: Sequence[str]) -> list[Label]:
        assert isinstance(self.params, VLMParams)
        LookupVLM.asked.append(self.params.model)
        return await super().annotate(image, subjects)


@pytest.fixture
def lookup(scripted: None) -> Iterator[None]:
    """The lookup annotators and, until its entry point is in pyproject, the calibration probe."""

    def register_annotators(register: Callable[[type[Model]], None]) -> None:
        register(LookupAnnotator)
        register(LookupVLM)

    names = [plugins.register_plugin(plugins.plugin_module(register_annotators=register_annotators),
                                     "lookup")]  # fmt: skip
    if "calibration" not in plugins.load_plugins().probes:
        names.append(plugins.register_plugin(calibration, "calibration-probe"))
    yield
    for name in names:
        plugins.unregister_plugin(name)


# The rule's counts. Each subset has 4 images per scenario: occupations 20, status 20,
# potential_crime 10 scenarios, so 50 images of each race × gender.
#   White man    50 answered, 50 gave a gender, 50 right.
#   White woman  50, 50, 50.
#   Black man    50 answered, 30 gave a gender (20 status abstained), 30 right.
#   Black woman  50, 50 gave a gender, 30 right (20 occupations called masculine).
# Sensitivity = women called feminine / women given a gender = (50 + 30) / 100 = 0.8;
# specificity = men called masculine / men given a gender = (50 + 30) / 80 = 1.0.
EXPECTED_CELLS = {
    ("white", "man"): (50, 50, 50),
    ("white", "woman"): (50, 50, 50),
    ("black", "man"): (50, 30, 30),
    ("black", "woman"): (50, 50, 30),
}


def test_calibration_profile_by_hand(lookup: None, store: Store) -> None:
    annotator = LookupAnnotator(ScriptedParams())
    run = run_probe(store, Calibration(), [annotator])
    assert run.status == "complete" and annotator.calls == 200
    profile = calibration_profile(RunView(store, run))
    # The probe's own method is what the Workspace stores: the same profile.
    assert Calibration().profile(RunView(store, run)) == profile
    cells = {(c["race"], c["gender"]): c for c in profile["cells"]}
    for key, (answered, labelled, correct) in EXPECTED_CELLS.items():
        cell = cells[key]
        got = (cell["answered"], cell["labelled"], cell["correct"])
        assert got == (answered, labelled, correct)
        assert cell["coverage"] == labelled / answered
        assert cell["accuracy"] == correct / labelled
        low, high = cell["accuracy_ci"]
        assert low <= cell["accuracy"] <= high
    assert cells[("black", "man")]["labels"] == {"masculine": 30, "cannot_identify": 20}
    overall = profile["overall"]
    assert (overall["images"], overall["labelled"], overall["correct"]) == (200, 180, 160)
    assert overall["coverage"] == 0.9 and overall["accuracy"] == pytest.approx(160 / 180)
    assert profile["sensitivity"] | {"ci_low": 0, "ci_high": 0} == {
        "value": 0.8, "successes": 80, "trials": 100, "ci_low": 0, "ci_high": 0,
    }  # fmt: skip
    assert profile["specificity"]["value"] == 1.0 and profile["specificity"]["trials"] == 80
    assert profile["specificity"]["ci_high"] == 1.0 and profile["specificity"]["ci_low"] < 1.0
    assert profile["error_counts"] == {
        "feminine_correct": 80, "feminine_total": 100,
        "masculine_correct": 80, "masculine_total": 80,
    }  # fmt: skip
    assert profile["attribution"] == pairs.ATTRIBUTION and profile["license"] == "CC BY 4.0"

    # The annotator's answers are kept as the run's labels too.
    assert len(store.labels(run.id, "self")) == 200


def test_trials_name_images_by_content_and_are_cached(lookup: None, store: Store) -> None:
    probe = Calibration(CalibrationParams(subset="occupations"))
    specs = list(probe.plan())
    assert len(specs) == 80
    first = pairs.images(subset="occupations")[0]
    digest = hashlib.sha256(first.path.read_bytes()).hexdigest()
    assert specs[0].payload == {"image": {"blob": digest}, "subjects": ["single"]}
    assert set(specs[0].meta) == {"subset", "scenario", "race", "gender", "image"}
    annotator = LookupAnnotator(ScriptedParams())
    run = run_probe(store, probe, [annotator])
    assert store.get_blob(digest) == first.path.read_bytes()
    # Occupations only: black women are all called masculine: sensitivity 20/40.
    profile = calibration_profile(RunView(store, run))
    assert profile["sensitivity"]["value"] == 0.5 and profile["subset"] == "occupations"
    # Again, and the full set: the 80 occupation images are not asked for a second time.
    again = LookupAnnotator(ScriptedParams())
    run_probe(store, Calibration(), [again])
    assert again.calls == 120


def test_calibrations_are_stored_and_the_latest_is_found(tmp_path: Path) -> None:
    assert (2, "m002_calibrations") in [(n, name) for n, name, _ in MIGRATIONS]
    with open_store(tmp_path / "ws") as store:
        assert store.latest_calibration("faces") is None
        store.save_calibration("faces", "1", {"error_counts": {"a": 1}})
        second = store.save_calibration("faces", "2", {"error_counts": {"a": 2}})
        store.save_calibration("vqa", "1", {})
    with open_store(tmp_path / "ws") as store:
        latest = store.latest_calibration("faces")
        assert latest == second and latest.profile == {"error_counts": {"a": 2}}


def test_calibrate_command(
    lookup: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), "calibrate", "lookup-annotator", "-q"])
    out = capsys.readouterr().out
    assert done.value.code in (0, None), out
    assert "Annotator calibration on PAIRS" in out and "black woman" in out
    assert pairs.ATTRIBUTION in out and "CC BY 4.0" in out
    assert "stored from run calibration-" in out
    with open_store(ws) as store:
        saved = store.latest_calibration("lookup-annotator")
    assert saved is not None and saved.version == "1"
    assert saved.profile["sensitivity"]["value"] == 0.8
    assert saved.profile["annotator"] == "lookup-annotator"

    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), "calibrate", "lookup-annotator", "--subset", "status",
              "--json"])  # fmt: skip
    assert done.value.code in (0, None)
    profile = json.loads(capsys.readouterr().out)
    # status: black men abstain (0 of 20 gave a gender); everyone else right.
    assert profile["sensitivity"]["value"] == 1.0 and profile["specificity"]["trials"] == 20
    assert profile["overall"]["coverage"] == 60 / 80


def test_calibrate_passes_the_model_to_a_vlm_annotator(
    lookup: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    LookupVLM.asked.clear()
    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), "calibrate", "lookup-vlm", "--model", "llava", "--subset",
              "potential_crime", "-A", "max_concurrency=2", "-q"])  # fmt: skip
    assert done.value.code in (0, None)
    assert set(LookupVLM.asked) == {"llava"} and len(LookupVLM.asked) == 40
    with open_store(ws) as store:
        (row,) = store.db.execute("SELECT annotator FROM calibrations").fetchall()
    # Stored under the id its labels get: the name and a hash of the parameters set.
    assert row[0].startswith("lookup-vlm#")

    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), "calibrate", "lookup-annotator", "--model", "llava"])
    assert done.value.code == 2
    assert "asks no vision-language model" in capsys.readouterr().err
    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), "calibrate", "no-such"])
    assert done.value.code == 2
    assert "no annotator named 'no-such'" in capsys.readouterr().err


def _subset_calibration(store: Store, subset: str | None) -> None:
    """The lookup annotator's calibration (Se 0.8, Sp 1), made on PAIRS ``subset`` (None:
    all subsets)."""
    store.save_calibration(
        "lookup-annotator",
        "1",
        {
            "subset": subset,
            "cells": [],
            "overall": {"images": 200, "answered": 200, "labelled": 180, "correct": 160,
                        "coverage": 0.9, "accuracy": 160 / 180, "accuracy_ci": [0.83, 0.93]},
            "sensitivity": {"value": 0.8, "successes": 80, "trials": 100, "ci_low": 0.71,
                            "ci_high": 0.87},
            "specificity": {"value": 1.0, "successes": 80, "trials": 80, "ci_low": 0.97,
                            "ci_high": 1.0},
            "error_counts": {"feminine_correct": 80, "feminine_total": 100,
                             "masculine_correct": 80, "masculine_total": 80},
            "attribution": pairs.ATTRIBUTION,
            "license": pairs.LICENSE,
        },
    )  # fmt: skip


def _nurses() -> list[Image]:
    return [
        Image(f"s{i}", "single", [Person("single", "nurse", "feminine",
                                         {"lookup-annotator": "feminine" if i < 6 else "male"})])
        for i in range(10)
    ]  # fmt: skip


def test_pst_report_shows_the_calibration_and_corrects_with_it(store: Store) -> None:
    # Ten nurses labelled by the calibrated annotator: 6 feminine, 4 masculine, no human label.
    _subset_calibration(store, None)
    probe = SimpleNamespace(name="pst", p=SimpleNamespace(seed=0, n_boot=300))
    result = analyze_pst(probe, store_pst_run(store, "pst-cal", _nurses()))
    # Observed 6/10 feminine; Se 0.8, Sp 1: true share (0.6 + 1 − 1)/0.8 = 0.75, STS
    # 100(2·0.75 − 1) = 50, where the annotator's labels alone give 100(1.2 − 1) = 20.
    assert result.numbers["occupation: STS single"]["value"] == pytest.approx(20.0)
    corrected = result.numbers["occupation: STS single, corrected for lookup-annotator"]
    assert corrected["value"] == pytest.approx(50.0)
    # A report names the calibration it used: id, annotator, date, version and PAIRS subset.
    (table,) = [t for t in result.tables if t.title.startswith("PAIRS calibration #1 of lookup")]
    assert "PAIRS all subsets)" in table.title
    assert pairs.ATTRIBUTION in table.note and "CC BY 4.0" in table.note
    rows = {r[0]: r for r in table.rows}
    assert rows["sensitivity"][7] == 0.8 and rows["all"][4] == 0.9
    (corr,) = [t for t in result.tables if t.title.startswith("Error-corrected STS")]
    assert corr.rows[0][-1].startswith("PAIRS calibration #1 of lookup-annotator (")
    assert corr.rows[0][-1].endswith("PAIRS all subsets)")


CORRECTED = "occupation: STS single, corrected for lookup-annotator"


def test_a_calibration_on_another_subset_is_refused_with_the_way_to_ask(store: Store) -> None:
    _subset_calibration(store, "status")
    probe = SimpleNamespace(name="pst", p=SimpleNamespace(seed=0, n_boot=300))
    result = analyze_pst(probe, store_pst_run(store, "pst-sub", _nurses()))
    assert CORRECTED not in result.numbers
    (why,) = [n for n in result.notes if "was made on PAIRS status" in n]
    assert "--calibration-subset status" in why


def test_a_calibration_on_the_subset_asked_for_is_used(store: Store) -> None:
    _subset_calibration(store, "status")
    probe = SimpleNamespace(name="pst", p=SimpleNamespace(seed=0, n_boot=300))
    view = store_pst_run(store, "pst-sub", _nurses())
    view.calibration_subset = "status"
    result = analyze_pst(probe, view)
    # The same error rates as above: observed 6/10 feminine corrects to an STS of 50.
    assert result.numbers[CORRECTED]["value"] == pytest.approx(50.0)
    assert not [n for n in result.notes if "was made on PAIRS" in n]


def _jeffreys(x: int, n: int) -> tuple[float, float]:
    """The 95% Jeffreys interval of x in n (0 < x < n): Beta(x + 1/2, n − x + 1/2) quantiles."""
    from scipy.stats import beta

    return float(beta.ppf(0.025, x + 0.5, n - x + 0.5)), float(
        beta.ppf(0.975, x + 0.5, n - x + 0.5)
    )


def test_every_share_carries_its_jeffreys_interval_over_images(
    lookup: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Coverage and accuracy, per group and overall, and the headline figures: each with the
    Jeffreys interval of its count of images, in the profile, the figures and the command's
    table. Black men: 30 of 50 images given a gender; black women: 30 of 50 right."""
    ws = tmp_path / "ws"
    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), "calibrate", "lookup-annotator", "-q"])
    assert done.value.code in (0, None)
    out = capsys.readouterr().out
    with open_store(ws) as store:
        saved = store.latest_calibration("lookup-annotator")
        assert saved is not None
        run = RunView(store, store.get_run(saved.profile["run"]))
        numbers = Calibration().analyze(run).numbers
    cells = {(c["race"], c["gender"]): c for c in saved.profile["cells"]}
    assert cells[("black", "man")]["coverage_ci"] == pytest.approx(_jeffreys(30, 50))
    assert cells[("black", "woman")]["accuracy_ci"] == pytest.approx(_jeffreys(30, 50))
    assert saved.profile["overall"]["coverage_ci"] == pytest.approx(_jeffreys(180, 200))
    for name, (x, n) in {"coverage": (180, 200), "accuracy": (160, 180)}.items():
        low, high = _jeffreys(x, n)
        assert numbers[name] | {"ci_low": 0, "ci_high": 0} == {
            "value": pytest.approx(x / n), "ci_low": 0, "ci_high": 0, "n": n, "count": x,
            "interval_method": "jeffreys", "range": [0.0, 1.0], "measures": "accuracy",
        }  # fmt: skip
        assert (numbers[name]["ci_low"], numbers[name]["ci_high"]) == pytest.approx((low, high))
        # The command prints the figure with its interval, as the table's row of all images.
        assert f"[{low:.2f}, {high:.2f}]" in out
    all_row = next(line for line in out.splitlines() if line.strip("│ ").startswith("all"))
    cov, acc = _jeffreys(180, 200), _jeffreys(160, 180)
    assert f"[{cov[0]:.2f}, {cov[1]:.2f}]" in all_row and f"[{acc[0]:.2f}, {acc[1]:.2f}]" in all_row
