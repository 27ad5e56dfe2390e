"""A designed labels batch: the labels template of a sample of a run's persons drawn with known
probabilities, so that their human labels may enter a prediction-powered figure.

* ``uniform`` — ``n`` persons at random, each with probability n / N;
* ``active`` — each person on its own with a probability that rises with the automatic
  annotator's uncertainty about it (its confidence, another annotator's different label, an
  abstention, a review flag;
  :func:`~diptych.core.metrics.uncertainty.ppi.estimate.active_probabilities`), about ``n`` persons
  in all;
* ``census`` — every flagged person (probability 1): a stratum labelled in full.

Each row carries its ``design``, ``probability`` and ``draw``; the import keeps them
(:func:`~diptych.core.workspace.labels.design.sampling_by_line`).
"""

from __future__ import annotations

import csv
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diptych.core.errors import UsageError
from diptych.core.labels import SAMPLING_DESIGNS, SamplingDesign, automatic_order
from diptych.core.store import RunRecord, Store
from diptych.core.workspace.labels.imports import (
    RunSubject,
    new_csv,
    run_subjects,
    template_columns,
    template_row,
)

#: The columns a designed batch adds to the labels template.
SAMPLING_COLUMNS = ("design", "probability", "draw")
DRAWN_DESIGNS: tuple[SamplingDesign, ...] = ("uniform", "active", "census")
#: The largest seed of a draw: numpy's seeds are non-negative, and the draw's name carries the
#: seed in hex, so it is kept to 64 bits.
MAX_SEED = 2**64 - 1


@dataclass
class SampleReport:
    """What :func:`write_sample` drew and wrote."""

    design: SamplingDesign
    draw: str
    #: People in generated images: the population the sample is drawn from.
    population: int
    rows: int
    #: The sum of the probabilities: the batch's expected size.
    expected: float
    images: int = 0


def annotator_uncertainties(store: Store, run: RunRecord, people: list[RunSubject]) -> list[float]:
    """Each person's uncertainty as the active design reads it (the run's preferred automatic
    annotator's confidence, the other annotators' labels, the flags:
    :func:`~diptych.core.metrics.uncertainty.ppi.estimate.annotator_uncertainty`)."""
    from diptych.core.metrics.uncertainty.ppi.estimate import annotator_uncertainty

    labels = [lab for lab in store.labels(run.id) if lab.kind == "automatic"]
    order = automatic_order(labels)
    by_subject: dict[int, dict[str, Any]] = {}
    for lab in labels:
        by_subject.setdefault(lab.subject_id, {})[lab.annotator] = lab
    flagged = _flagged(store, run)
    out = []
    for person in people:
        given = by_subject.get(person.subject_id, {})
        primary = next((given[a] for a in order if a in given), None)
        others = [
            lab.label for a, lab in given.items() if primary is None or a != primary.annotator
        ]
        out.append(
            annotator_uncertainty(
                None if primary is None else primary.label,
                None if primary is None else primary.confidence,
                others=others,
                flagged=(person.trial_idx, person.position) in flagged,
            )
        )
    return out


def _flagged(store: Store, run: RunRecord) -> set[tuple[int, str]]:
    """(trial, position) of every flagged person (a flag on a whole output lands on each)."""
    positions: dict[int, list[str]] = {
        idx: [p for p, _ in subjects] for idx, subjects in store.subjects_by_trial(run.id).items()
    }
    out: set[tuple[int, str]] = set()
    for flag in store.flags(run.id):
        idx = flag["trial_idx"]
        for position in [flag["position"]] if flag["position"] else positions.get(idx, []):
            out.add((idx, position))
    return out


def write_sample(
    store: Store,
    run: RunRecord,
    path: Path,
    *,
    n: int | None,
    design: str,
    seed: int | None = None,
    images: Path | None = None,
) -> SampleReport:
    """Draw a sample of the run's people by ``design`` and write its labels template to
    ``path`` (with each row's design, probability and draw), its images to ``images``."""
    import numpy as np

    from diptych.core.metrics.uncertainty.ppi.estimate import (
        active_probabilities,
        draw_sample,
        uniform_probabilities,
    )

    if design not in DRAWN_DESIGNS:
        raise UsageError(
            f"--design {design!r}: choose {', '.join(DRAWN_DESIGNS)} ('chosen' is a "
            "reviewer's pick, not a drawn sample)"
        )
    assert design in SAMPLING_DESIGNS
    chosen_design: SamplingDesign = design
    if design == "census" and n is not None:
        raise UsageError(
            "--design census takes every flagged person: leave out --sample (or draw N with "
            "--design uniform or active)"
        )
    if design != "census" and (n is None or n < 1):
        raise UsageError(f"--design {design} needs --sample N (how many persons to label)")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise UsageError(f"--seed {seed}: a draw's seed is a whole number from 0 to 2^64 - 1")
    if path.exists():
        raise UsageError(f"{path} exists; choose another file name or remove it first")
    people = [s for s in run_subjects(store, run) if s.status == "done"]
    if not people:
        raise UsageError(f"run {run.id} has no person in a generated image to sample")
    seed = secrets.randbits(32) if seed is None else seed
    rng = np.random.default_rng(seed)
    if design == "census":
        flagged = _flagged(store, run)
        pi = np.array([1.0 if (p.trial_idx, p.position) in flagged else 0.0 for p in people])
        drawn = pi > 0
    else:
        assert n is not None
        if design == "uniform":
            pi = uniform_probabilities(len(people), n)
        else:
            pi = active_probabilities(annotator_uncertainties(store, run, people), n)
        drawn = draw_sample(pi, chosen_design, rng)
    draw = f"{design}-{time.strftime('%Y%m%d-%H%M%S')}-{seed:08x}"
    report = SampleReport(chosen_design, draw, len(people), 0, float(pi.sum()))
    written: set[str] = set()
    columns = template_columns(store, run)
    with new_csv(path) as handle:
        writer = csv.DictWriter(handle, fieldnames=(*columns, *SAMPLING_COLUMNS))
        writer.writeheader()
        for person, p, chosen in zip(people, pi.tolist(), drawn.tolist(), strict=True):
            if not chosen:
                continue
            writer.writerow(
                {**template_row(person, columns), "design": design, "probability": repr(p),
                 "draw": draw}
            )  # fmt: skip
            report.rows += 1
            if images is not None and person.blob is not None and person.image not in written:
                target = images / f"{person.image}.png"
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(store.get_blob(person.blob))
                written.add(person.image)
    report.images = len(written)
    return report
