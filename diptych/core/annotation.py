"""The annotation stage: an annotator labels the people in a run's generated images.

Annotator calls go through the engine like any trial: each image is one ``person_annotator``
request whose key hashes the annotator, its parameters and the image's content, so an image is
never labelled twice by the same annotator (across runs too), a killed annotation pass resumes,
and faults are retried. Labels land in the annotations table under the annotator's id, next to
human labels; the analysis picks among them by its label policy.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from diptych.core.capabilities import Capability, Model
from diptych.core.engine import (
    ModelSlot,
    NullReporter,
    Reporter,
    RetryPolicy,
    RunOptions,
    RunPlan,
    execute,
    refresh_flags,
)
from diptych.core.engine.lease import holding
from diptych.core.errors import CapabilityError, UsageError
from diptych.core.labels import GENDER, Label, is_reserved_for_people_or_self
from diptych.core.plugins import get_probe
from diptych.core.store import TERMINAL, Lease, RunRecord, Store, TrialRow
from diptych.core.trials import TrialSpec, trial_key

#: Images labelled at once unless the options say otherwise (annotators are mostly local models).
ANNOTATION_CONCURRENCY = 4


@dataclass
class AnnotationSummary:
    annotator: str
    images: int = 0
    asked: int = 0
    labels: int = 0
    by_label: dict[str, int] = field(default_factory=dict)
    #: Images with no labels from this pass: their request failed or was refused.
    failed: int = 0
    #: Of ``failed``, those the service refused (stored as such, never asked again).
    refused: int = 0
    errors: list[str] = field(default_factory=list)


def annotator_id(model: Model) -> str:
    """The name labels are stored under: the annotator's own id if it has one (e.g.
    ``vqa:llava``), else its name and a short hash of its parameters."""
    own = getattr(model, "annotator_id", None)
    if isinstance(own, str) and own:
        return own
    return ModelSlot.of(model).ref.model_id


async def annotate_run_async(
    store: Store,
    run_id: str,
    annotator: Model,
    *,
    options: RunOptions | None = None,
    reporter: Reporter | None = None,
    retry: RetryPolicy | None = None,
    concurrency: int | None = None,
    label_as: str | None = None,
) -> AnnotationSummary:
    """Label every person in the run's generated images with ``annotator`` (see module doc).

    ``options`` carries concurrency (default :data:`ANNOTATION_CONCURRENCY`), retries and the
    jitter seed; ``retry`` and ``concurrency`` override it for callers that pass them alone."""
    if Capability.PERSON_ANNOTATOR not in annotator.capabilities:
        raise CapabilityError(f"'{annotator.name}' is not a person annotator")
    run = store.get_run(run_id)
    name = label_as or annotator_id(annotator)
    if is_reserved_for_people_or_self(name):
        raise UsageError(f"annotator id '{name}' is reserved; choose another")
    slot = ModelSlot.of(annotator)
    # One request per generated image, with every person in it (positions in plan order).
    by_image: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for subject in store.run_subjects(run.id):
        if subject["status"] == "done" and subject["blob"]:
            by_image[subject["blob"] + "\x1f" + str(subject["trial_idx"])].append(subject)
    if not by_image:
        # A text run (or one with no image answered yet): a pass would "succeed" with nothing.
        raise UsageError(f"{annotator.name} labels people in images; run {run.id} has no images")
    reporter = reporter or NullReporter()
    options = (options or RunOptions(concurrency=ANNOTATION_CONCURRENCY)).updated(
        retry=retry, concurrency=concurrency
    )
    # The run's lease, as a run takes it: a second annotation pass (or a run) on the same run
    # is refused or waits, and every paid request is claimed before it is sent, so no image
    # shared with another run being annotated is asked twice either.
    async with holding(
        store, run.id, wait=options.wait, reporter=reporter, action="annotate"
    ) as lease:
        return await _annotate_leased(
            store, run, annotator, name, slot, by_image, options, reporter, lease
        )


async def _annotate_leased(
    store: Store,
    run: RunRecord,
    annotator: Model,
    name: str,
    slot: ModelSlot,
    by_image: dict[str, list[dict[str, Any]]],
    options: RunOptions,
    reporter: Reporter,
    lease: Lease,
) -> AnnotationSummary:
    rows: list[TrialRow] = []
    for idx, subjects in enumerate(by_image.values()):
        payload = {
            "image": {"blob": subjects[0]["blob"]},
            "subjects": [s["position"] for s in subjects],
        }
        spec = TrialSpec(Capability.PERSON_ANNOTATOR, payload)
        rows.append(
            TrialRow(
                run_id=run.id,
                idx=idx,
                model_id=slot.ref.model_id,
                key=trial_key(slot.ref, spec),
                capability=str(spec.capability),
                sample=0,
                payload=payload,
                meta={},
            )
        )
    statuses = store.result_statuses(r.key for r in rows)
    # An answer paid for but unusable is asked again only within the allowance of paid
    # retries, as in a run.
    unusable = store.paid_failed_keys(r.key for r in rows)
    allowance = options.paid_retry_allowance()
    pending = {
        r.key: r
        for r in rows
        if statuses.get(r.key) not in TERMINAL
        and (r.key not in unusable or allowance.take(None, None))
    }
    plan = RunPlan(run=run, trials=rows, pending=pending, statuses=statuses)
    reporter.run_started(run, len(rows), len(rows) - len(pending), len(pending))
    try:
        await execute(
            store, plan, [slot], options, reporter=reporter, lease=lease, paid_retries=allowance
        )
    finally:
        slot.close()
        await annotator.aclose()
    summary = AnnotationSummary(annotator=name, images=len(rows), asked=len(pending))
    labels: list[tuple[int, str, Label]] = []
    for row, subjects in zip(rows, by_image.values(), strict=True):
        result = store.result(row.key)
        if result is None or result.status != "done" or result.output is None:
            summary.failed += 1
            if result is not None and result.status == "refused":
                summary.refused += 1
            if result is not None and result.error and len(summary.errors) < 5:
                summary.errors.append(result.error)
            continue
        ids = {s["position"]: s["subject_id"] for s in subjects}
        dimensions = getattr(annotator, "label_dimensions", frozenset({GENDER}))
        for label in result.output.get("labels", []):
            dimension = label.get("dimension") or GENDER
            if dimension not in dimensions:
                # An annotator labels only the dimensions it declares: a label in another
                # would sit where no reader of that dimension expects this annotator.
                if len(summary.errors) < 5:
                    summary.errors.append(
                        f"{name} returned a {dimension!r} label; it declares "
                        f"{', '.join(sorted(dimensions))}"
                    )
                continue
            if label["position"] in ids:
                stored = Label(
                    label["position"],
                    label["label"],
                    label.get("confidence"),
                    label.get("detail") or {},
                    dimension=dimension,
                )
                labels.append((ids[label["position"]], name, stored))
                summary.by_label[label["label"]] = summary.by_label.get(label["label"], 0) + 1
    summary.labels = store.save_annotations(labels)
    # New labels change what needs review (disagreements, abstentions, person counts).
    refresh_flags(store, run.id, get_probe(run.probe, run.params))
    return summary


def annotate_run(store: Store, run_id: str, annotator: Model, **kwargs: Any) -> AnnotationSummary:
    """Label every person in the run's generated images with ``annotator`` (see module doc);
    ``kwargs`` are :func:`annotate_run_async`'s."""
    return asyncio.run(annotate_run_async(store, run_id, annotator, **kwargs))
