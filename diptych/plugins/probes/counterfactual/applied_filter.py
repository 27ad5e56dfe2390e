"""The paper's filter (:mod:`.filtering`) applied to a ``counterfactual-retrieval`` run: the
filtering encoder it names, the sets every encoder embedded, the NSFW annotator's labels on the
generation run, the similarity threshold in force, and the review flags for images whose
attributes the filtering encoder reads as other values."""

from __future__ import annotations

from diptych.core.errors import UsageError
from diptych.core.labels import SubjectLabel
from diptych.core.probe import ReviewFlag
from diptych.core.runview import RunView
from diptych.plugins.probes.counterfactual import sources
from diptych.plugins.probes.counterfactual.embeddings import (
    ModelEmbeddings,
    run_embeddings,
    run_sets,
)
from diptych.plugins.probes.counterfactual.filtering import (
    DEFAULT_SIMILARITY_THRESHOLD,
    FilterOutcome,
    run_filter,
)
from diptych.plugins.probes.counterfactual.params import RetrievalParams
from diptych.plugins.probes.counterfactual.sets import CounterfactualSet

FLAG_REASON = "attribute-not-detected"


def filter_model(p: RetrievalParams, run: RunView) -> str:
    ids = run.model_ids()
    chosen = p.filter_encoder or ids[0]
    if chosen not in ids:
        raise UsageError(
            f"filter_encoder {chosen!r} is not a model of run {run.id}: {', '.join(ids)}"
        )
    return chosen


def _nsfw_labels(gen_run: RunView, name: str) -> tuple[str | None, list[SubjectLabel]]:
    """The labels of annotator ``name`` on ``gen_run``: stored under ``name`` itself or, when it
    ran with other parameters (another threshold), under ``name#<hash of its parameters>``."""
    by_id: dict[str, list[SubjectLabel]] = {}
    for label in gen_run.labels():
        if label.annotator == name or label.annotator.startswith(name + "#"):
            by_id.setdefault(label.annotator, []).append(label)
    if name in by_id or not by_id:
        return (name if by_id else None), by_id.get(name, [])
    if len(by_id) > 1:
        raise UsageError(
            f"{gen_run.id} has labels from several '{name}' annotators "
            f"({', '.join(sorted(by_id))}); choose one with nsfw_annotator"
        )
    ((chosen, labels),) = by_id.items()
    return chosen, labels


def _unsafe(p: RetrievalParams, run: RunView) -> tuple[set[str] | None, str]:
    """Stage 2's input: the blobs the NSFW annotator labelled unsafe, and how they were found.

    The ``nsfw`` annotator labels an image ``nsfw`` or ``safe``; ``nsfw_labels`` (default
    ``["nsfw"]``) says which labels mean unsafe, so another classifier's words can be named."""
    gen_run = p.generation_run()
    if gen_run is None:
        return None, "not applied: curated images (PAIRS) or an already filtered dataset"
    generation = run.lookup.run(gen_run)
    blobs = {s["subject_id"]: s["blob"] for s in generation.subject_rows()}
    annotator, labels = _nsfw_labels(generation, p.nsfw_annotator)
    if not labels:
        return None, (
            f"not applied: no labels from '{p.nsfw_annotator}' on {gen_run} (run "
            f"'diptych annotate {gen_run} --annotator {p.nsfw_annotator}')"
        )
    unsafe = {blobs[x.subject_id] for x in labels if x.label in p.nsfw_labels}
    return unsafe, f"{annotator}: {len(labels)} images labelled, {len(unsafe)} unsafe"


def _embedded(
    sets: list[CounterfactualSet], models: list[ModelEmbeddings]
) -> list[CounterfactualSet]:
    """The sets every model embedded completely (a failed trial leaves a set out)."""
    return [s for s in sets if all(i.blob in m.images for m in models for i in s.images)]


def similarity_threshold(p: RetrievalParams) -> tuple[float | None, str]:
    """Stage 1's threshold and, when it is not applied, why: generated sets are filtered at
    the default unless ``similarity_threshold`` says otherwise; curated sets only when it is
    set."""
    if p.similarity_threshold is not None:
        return p.similarity_threshold, ""
    if p.generation_run() is not None:
        return DEFAULT_SIMILARITY_THRESHOLD, ""
    return None, (
        "not applied: curated images (PAIRS) or an already filtered dataset; set "
        "similarity_threshold to apply it"
    )


def filter_run(
    p: RetrievalParams, run: RunView
) -> tuple[FilterOutcome, str, dict[str, ModelEmbeddings]]:
    emb = run_embeddings(run)
    sets, _ = run_sets(run)
    chosen = filter_model(p, run)
    usable = _embedded(sets, list(emb.values()))
    unsafe, note = _unsafe(p, run)
    threshold, unfiltered = similarity_threshold(p)
    outcome = run_filter(
        usable,
        emb[chosen].images,
        emb[chosen].texts,
        sources.known_values(sets),
        threshold=threshold,
        unfiltered=unfiltered,
        unsafe=unsafe,
        nsfw_note=note,
        detectability=p.detectability,
    )
    return outcome, chosen, emb


def detectability_flags(p: RetrievalParams, run: RunView) -> list[ReviewFlag]:
    """An image flagged for each attribute the filtering encoder reads as another value."""
    if not run.model_ids():
        return []
    outcome, chosen, _ = filter_run(p, run)
    _, trial_of = run_sets(run)
    return [
        ReviewFlag(
            trial_of[(u.set_id, u.index)],
            None,
            FLAG_REASON,
            {
                "set_id": u.set_id,
                "type": u.attribute_type,
                "value": u.value,
                "predicted": u.predicted,
                "encoder": chosen,
            },
        )
        for u in outcome.undetected
    ]
