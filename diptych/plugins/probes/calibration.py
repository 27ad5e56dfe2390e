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
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from diptych.core.capabilities import Capability
from diptych.core.hookspecs import hookimpl
from diptych.core.probe import Label, Probe, ProbeResult, Table
from diptych.core.runview import RunView
from diptych.core.store import Store
from diptych.core.trials import Subject, TrialSpec, sha256_hex
from diptych.datasets import pairs

PROFILE_SCHEMA_VERSION = 1
#: The gender each PAIRS group was made to show, in the STS vocabulary.
PERCEIVED = {"man": "masculine", "woman": "feminine"}


@cache
def image_sha(path: Path) -> str:
    """The sha256 of a bundled image's bytes: its blob name, and so its part of a trial key."""
    return sha256_hex(path.read_bytes())


class CalibrationParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    subset: Literal["occupations", "status", "potential_crime"] | None = Field(
        None, description="PAIRS subset to use (default: all 200 images)"
    )


class Calibration(Probe):
    """Measure a perceived-gender annotator's errors on the PAIRS images of known gender."""

    name = "calibration"
    goal = (
        "Coverage, accuracy per race × gender, sensitivity and specificity of a person "
        "annotator on PAIRS (Fraser & Kiritchenko 2024), to correct scores that rely on it."
    )
    version = "1"
    capabilities = frozenset({Capability.PERSON_ANNOTATOR})
    Params = CalibrationParams  # type: ignore[assignment]

    @property
    def p(self) -> CalibrationParams:
        assert isinstance(self.params, CalibrationParams)
        return self.params

    def images(self) -> list[pairs.PairsImage]:
        return pairs.images(subset=self.p.subset)

    def bind(self, store: Store) -> Calibration:
        # The trials name images by blob; putting them in the workspace here (idempotent) is
        # what lets the engine load them.
        for image in self.images():
            store.put_blob(image.path.read_bytes())
        return self

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

    def analyze(self, run: RunView) -> ProbeResult:
        return analyze_calibration(run)


# --- the profile ------------------------------------------------------------------------------


def _cell() -> dict[str, Any]:
    return {
        "images": 0,
        "answered": 0,
        "labelled": 0,
        "correct": 0,
        "refused": 0,
        "failed": 0,
        "labels": {},
    }


def _finish(cell: dict[str, Any]) -> dict[str, Any]:
    from diptych.core.metrics.correction import jeffreys_interval

    cell["coverage"] = cell["labelled"] / cell["answered"] if cell["answered"] else None
    cell["accuracy"] = cell["correct"] / cell["labelled"] if cell["labelled"] else None
    cell["accuracy_ci"] = jeffreys_interval(cell["correct"], cell["labelled"])
    return cell


def calibration_profile(run: RunView, model_id: str | None = None) -> dict[str, Any]:
    """The error profile of the annotator of a ``calibration`` run (the first model, or
    ``model_id``). A JSON-ready dict: counts and rates per race × gender and overall, and the
    sensitivity/specificity with their counts (``error_counts``)."""
    from diptych.core.metrics.agreement import canonical_label
    from diptych.core.metrics.correction import ErrorCounts, jeffreys_interval

    model = model_id or (run.model_ids() or [""])[0]
    cells = {(r, g): _cell() for r in pairs.RACES for g in pairs.GENDERS}
    overall = _cell()
    pairs_seen: list[tuple[str, str]] = []
    for trial in run.trials:
        if trial.model_id != model:
            continue
        race, gender = trial.meta["race"], trial.meta["gender"]
        truth = PERCEIVED[gender]
        result = run.result(trial)
        status = result.status if result is not None else "pending"
        for cell in (cells[(race, gender)], overall):
            cell["images"] += 1
        if status == "refused":
            # The annotator declined to say: an abstention, as cannot_identify is.
            for cell in (cells[(race, gender)], overall):
                cell["answered"] += 1
                cell["refused"] += 1
            continue
        if status != "done" or result is None or result.output is None:
            for cell in (cells[(race, gender)], overall):
                cell["failed"] += 1
            continue
        given = [lab for lab in result.output.get("labels", []) if lab["position"] == "single"]
        label = canonical_label(given[0]["label"]) if given else "cannot_identify"
        pairs_seen.append((truth, label))
        for cell in (cells[(race, gender)], overall):
            cell["answered"] += 1
            cell["labels"][label] = cell["labels"].get(label, 0) + 1
            if label in ("masculine", "feminine"):
                cell["labelled"] += 1
                cell["correct"] += label == truth
    counts = ErrorCounts.from_pairs(pairs_seen)

    def rate(successes: int, trials: int) -> dict[str, Any]:
        ci = jeffreys_interval(successes, trials)
        return {
            "value": successes / trials if trials else None,
            "successes": successes,
            "trials": trials,
            "ci_low": ci[0] if ci else None,
            "ci_high": ci[1] if ci else None,
        }

    return {
        "schema_version": PROFILE_SCHEMA_VERSION,
        "dataset": "PAIRS",
        "subset": run.run.params.get("subset"),
        "attribution": pairs.ATTRIBUTION,
        "license": pairs.LICENSE,
        "run": run.id,
        "model_id": model,
        "positive_class": "feminine",
        "overall": _finish(overall),
        "cells": [
            {"race": r, "gender": g, **_finish(cell)} for (r, g), cell in cells.items()
        ],
        "sensitivity": rate(counts.feminine_correct, counts.feminine_total),
        "specificity": rate(counts.masculine_correct, counts.masculine_total),
        "error_counts": counts.to_dict(),
    }


def _ci(pair: Sequence[float] | None) -> str:
    return "—" if not pair else f"[{pair[0]:.2f}, {pair[1]:.2f}]"


def calibration_table(profile: dict[str, Any], title: str = "") -> Table:
    """A profile as a table: coverage and accuracy per race × gender, then sensitivity and
    specificity; its note carries the PAIRS attribution and license."""
    rows: list[list[Any]] = []
    for cell in [*profile["cells"], {"race": "all", "gender": "", **profile["overall"]}]:
        rows.append(
            [
                f"{cell['race']} {cell['gender']}".strip(),
                cell["images"],
                cell["answered"],
                cell["labelled"],
                cell["coverage"],
                cell["correct"],
                cell["accuracy"],
                _ci(cell["accuracy_ci"]),
            ]
        )
    for name in ("sensitivity", "specificity"):
        r = profile[name]
        ci = None if r["ci_low"] is None else (r["ci_low"], r["ci_high"])
        rows.append([name, None, None, r["trials"], None, r["successes"], r["value"], _ci(ci)])
    subset = profile.get("subset") or "all subsets"
    return Table(
        title or f"Annotator calibration on PAIRS ({subset})",
        ["group", "images", "answered", "gave a gender", "coverage", "correct", "accuracy",
         "accuracy 95% CI"],
        rows,
        note=(
            "coverage: share of the answered images labelled masculine or feminine (not "
            "cannot_identify or refused); accuracy is among those. Feminine is the positive "
            "class: sensitivity is the share of women called feminine, specificity the share of "
            "men called masculine, among those given a gender. 95% Jeffreys intervals. "
            f"{profile['attribution']}. License: {profile['license']}."
        ),
        terminal_columns={
            "group": "group",
            "images": "images",
            "gave a gender": "gender",
            "coverage": "coverage",
            "correct": "correct",
            "accuracy": "accuracy",
            "accuracy 95% CI": "95% CI",
        },
    )  # fmt: skip


def analyze_calibration(run: RunView) -> ProbeResult:
    """The calibration run's profile (of each model in it) as tables and headline numbers."""
    result = ProbeResult(
        title="Annotator calibration on PAIRS",
        summary=(
            "How a person annotator labels the PAIRS images, whose intended gender is known. "
            f"{pairs.ATTRIBUTION}. License: {pairs.LICENSE}."
        ),
    )
    several = len(run.model_ids()) > 1
    for model in run.model_ids():
        profile = calibration_profile(run, model)
        prefix = f"{model}: " if several else ""
        result.tables.append(calibration_table(profile, prefix + calibration_table(profile).title))
        for name in ("sensitivity", "specificity"):
            r = profile[name]
            if r["value"] is not None:
                result.numbers[f"{prefix}{name}"] = {
                    k: r[k] for k in ("value", "ci_low", "ci_high")
                } | {"n": r["trials"]}
        overall = profile["overall"]
        for name in ("coverage", "accuracy"):
            if overall[name] is not None:
                n = overall["answered"] if name == "coverage" else overall["labelled"]
                result.numbers[f"{prefix}{name}"] = {"value": overall[name], "n": n}
        result.data[model or "annotator"] = profile
    return result


@hookimpl
def register_probes(register: Callable[[type[Probe]], None]) -> None:
    register(Calibration)
