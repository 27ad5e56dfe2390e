"""Probe ``calibration``: a perceived-gender annotator's error profile on the PAIRS images.

The bundled PAIRS images (:mod:`diptych.datasets.pairs`) show the same scenario four times, with
a Black man, a Black woman, a White man and a White woman, so each image's intended gender and
race are known. Running an annotator over them measures how often it abstains (coverage) and how
often it is right, per race × gender — the errors the PST paper found BLIP to make (Appendix E) —
and its sensitivity and specificity with feminine as the positive class:

    sensitivity = P(label feminine | woman),  specificity = P(label masculine | man),

both among the images it did not abstain on. The counts are kept with every rate so that
intervals can be recomputed and the rates can correct a run's scores
(:mod:`diptych.core.metrics.correction`). ``diptych calibrate ANNOTATOR`` runs this probe and stores
the profile under the annotator's id, where the pst report finds it.

Each image is one ``person_annotator`` trial whose payload names the image by the sha256 of its
bytes (the image is put in the workspace's blob store), so the trial key hashes the content, the
engine caches and resumes as for any run, and an image already labelled by the same annotator in
another run is not asked for again.

Anything that shows these numbers carries :data:`diptych.datasets.pairs.ATTRIBUTION` and
:data:`diptych.datasets.pairs.LICENSE`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from diptych.core.capabilities import Capability
from diptych.core.data import image_sha
from diptych.core.labels import Label
from diptych.core.plugins.hookspecs import hookimpl
from diptych.core.probe import Probe, ProbeResult
from diptych.core.runview import RunView
from diptych.core.trials import Subject, TrialSpec
from diptych.datasets import pairs
from diptych.plugins.probes.calibration.profile import PERCEIVED


class CalibrationParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    subset: Literal["occupations", "status", "potential_crime"] | None = Field(
        None, description="PAIRS subset to use (default: all 200 images)"
    )


class Calibration(Probe[CalibrationParams]):
    """Measure a perceived-gender annotator's errors on the PAIRS images of known gender."""

    name = "calibration"
    goal = (
        "Coverage, accuracy per race × gender, sensitivity and specificity of a person "
        "annotator on PAIRS (Fraser & Kiritchenko 2024), to correct scores that rely on it."
    )
    version = "1"
    #: Each figure counts images: one label an image, which is the unit that varies.
    observation = "image"
    capabilities = frozenset({Capability.PERSON_ANNOTATOR})
    Params = CalibrationParams  # type: ignore[assignment]

    def images(self) -> list[pairs.PairsImage]:
        return pairs.images(subset=self.p.subset)

    def input_blobs(self) -> Iterator[bytes]:
        # The trials name images by blob; the engine puts these in the workspace to load them.
        for image in self.images():
            yield image.path.read_bytes()

    def plan(self) -> Iterator[TrialSpec]:
        for image in self.images():
            meta = {
                "subset": image.subset,
                "scenario": image.scenario,
                "race": image.race,
                "gender": image.gender,
                "image": image.id,
            }
            yield TrialSpec(
                Capability.PERSON_ANNOTATOR,
                {"image": {"blob": image_sha(image.path)}, "subjects": ["single"]},
                meta=meta,
                subjects=(Subject("single", {**meta, "perceived": PERCEIVED[image.gender]}),),
            )

    def self_labels(self, spec: TrialSpec, output: dict[str, Any], key: str) -> Sequence[Label]:
        # The model run here is the annotator: its answer is its label, kept so that export and
        # `diptych show` list it like any other.
        return [
            Label(lab["position"], lab["label"], lab.get("confidence"), lab.get("detail") or {})
            for lab in output.get("labels", [])
        ]

    def prompts_used(self) -> dict[str, str]:
        return {"images": f"PAIRS {self.p.subset or 'all subsets'} ({pairs.LICENSE})"}

    def profile(self, run: RunView) -> dict[str, Any]:
        """The error profile of the run's annotator (its first model): what ``diptych
        calibrate`` stores under the annotator's id for later reports to correct with."""
        from diptych.plugins.probes.calibration.profile import calibration_profile

        return calibration_profile(run)

    def analyze(self, run: RunView) -> ProbeResult:
        from diptych.plugins.probes.calibration.analysis import analyze_calibration

        return analyze_calibration(run)


@hookimpl
def register_probes(register: Callable[[type[Probe]], None]) -> None:
    register(Calibration)
