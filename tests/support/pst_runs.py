"""A stored ``pst`` run built by hand: trials, subjects, results and labels as the probe
records them.

Analysis, agreement, correction, comparison and calibration tests score such runs without
generating a single image.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from diptych.core.labels import TONE, Label
from diptych.core.metrics.sts import LabelRow
from diptych.core.probe import ProbeResult, Table
from diptych.core.runview import RunView
from diptych.core.store import ResultRecord, Store, TrialRow


@dataclass
class Person:
    position: str
    identity: str
    stereotype: str
    #: annotator -> label
    labels: dict[str, str] = field(default_factory=dict)
    occupation: str | None = None
    role: str | None = None
    power: str | None = None
    #: annotator -> perceived skin tone label (``monk-1`` ... ``monk-10``, cannot_identify)
    tones: dict[str, str] = field(default_factory=dict)


@dataclass
class Image:
    image: str
    setting: str
    persons: list[Person]
    aspect: str = "occupation"
    run: int = 1
    status: str = "done"
    model_id: str = "m1"
    intervention: str | None = None


def store_pst_run(
    store: Store, run_id: str, images: Sequence[Image], *, probe: str = "pst"
) -> RunView:
    """Insert a run with the trials, subjects, results and labels ``images`` describe."""
    models = list(dict.fromkeys(i.model_id for i in images))
    store.create_run(
        run_id,
        probe=probe,
        probe_version="1",
        params={"seed": 0},
        models=[{"name": m, "version": "1", "params": {}, "model_id": m} for m in models],
        fingerprint=run_id,
        diptych_version="test",
    )
    trials: list[TrialRow] = []
    subjects: list[tuple[int, str, dict[str, Any]]] = []
    for idx, image in enumerate(images):
        meta: dict[str, Any] = {
            "aspect": image.aspect,
            "setting": image.setting,
            "image": image.image,
            "run": image.run,
            "intervention": image.intervention,
        }
        if image.setting == "paired":
            left, right = image.persons
            meta |= {
                "id1": left.identity,
                "id2": right.identity,
                "order": "mf" if left.stereotype == "masculine" else "fm",
            }
        else:
            meta["id"] = image.persons[0].identity
        trials.append(
            TrialRow(
                run_id=run_id,
                idx=idx,
                model_id=image.model_id,
                key=f"{run_id}/{idx}",
                capability="image_generator",
                sample=image.run - 1,
                payload={"prompt": image.image},
                meta=meta,
            )
        )
        for person in image.persons:
            subjects.append(
                (
                    idx,
                    person.position,
                    {
                        "identity": person.identity,
                        "stereotype": person.stereotype,
                        "occupation": person.occupation or person.identity,
                        "role": person.role,
                        "power": person.power,
                    },
                )
            )
    store.add_trials(run_id, trials, subjects)
    for trial, image in zip(trials, images, strict=True):
        if image.status == "pending":
            continue
        store.save_result(
            ResultRecord(
                key=trial.key,
                model_id=trial.model_id,
                model_version="1",
                capability="image_generator",
                status=image.status,
                output={} if image.status == "done" else None,
                blob=None,
                error="content policy" if image.status == "refused" else None,
                attempts=1,
                started_at=0.0,
                finished_at=1.0,
                provenance={},
            )
        )
    ids = {
        (row["trial_idx"], row["position"]): row["subject_id"]
        for row in store.subjects_missing_label(run_id, "nobody")
    }
    store.save_annotations(
        (ids[(idx, person.position)], annotator, Label(person.position, label))
        for idx, image in enumerate(images)
        if image.status == "done"
        for person in image.persons
        for annotator, label in person.labels.items()
    )
    store.save_annotations(
        (ids[(idx, person.position)], annotator, Label(person.position, label, dimension=TONE))
        for idx, image in enumerate(images)
        if image.status == "done"
        for person in image.persons
        for annotator, label in person.tones.items()
    )
    return RunView(store, store.get_run(run_id))


def images_from_rows(
    rows: Iterable[LabelRow], *, annotator: str = "human:a", **image_fields: Any
) -> list[Image]:
    """One stored image per image of the STS rows, each person labelled by ``annotator``."""
    images: dict[tuple[int | None, str], Image] = {}
    for row in rows:
        image = images.setdefault(
            row.image_key,
            Image(row.image, row.setting, [], run=row.run or 1, **image_fields),
        )
        image.persons.append(
            Person(row.position, row.identity, row.stereotype, {annotator: row.label})
        )
    return list(images.values())


PROBE = SimpleNamespace(name="pst", p=SimpleNamespace(seed=0))


def table(result: ProbeResult, title_part: str) -> Table:
    (found,) = [t for t in result.tables if title_part in t.title]
    return found


def column(t: Table, name: str) -> dict[Any, Any]:
    i = t.columns.index(name)
    return {row[0]: row[i] for row in t.rows}
