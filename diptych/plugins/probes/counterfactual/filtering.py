"""The paper's three-stage filter of counterfactual sets (Howard et al. 2024, supplement §8.3).

1. **Image–text similarity**: a set's score is the mean cosine similarity of its images to their
   captions under the filtering encoder; the sets whose score reaches ``threshold`` are kept
   (the paper kept 21,359 of 312,000). A threshold, not a top N per caption template: Table 11
   keeps 958 physical × race sets of 1,040 templates with 100 sets each — fewer sets than
   templates, which no top N ≥ 1 can give — and 13,147 and 7,254 of the other two segments'
   equally many templates (12.6 and 7.0 per template, not whole numbers). The default,
   :data:`DEFAULT_SIMILARITY_THRESHOLD`, is documented in ``docs/probes/counterfactual.md``.
2. **NSFW**: a set with any image an NSFW annotator labelled unsafe is dropped.
3. **Attribute detectability**: an image shows attribute type X when "a/an x person" for its
   own value x is the encoder's argmax among X's values; a set passes type X when at least
   Table 10's threshold of its images do (scaled to the set's size,
   :meth:`~.templates.Threshold.required`), and passes when it passes every type.

Each stage is its own function and reports the sets and images it leaves (Table 11). The
rejected images of stage 3 are what a reviewer should look at: they may be mislabelled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from diptych.core.digits import figure_text, percent_text
from diptych.core.vectors import unit_rows
from diptych.plugins.probes.counterfactual.sets import CounterfactualSet
from diptych.plugins.probes.counterfactual.templates import detect_text, threshold_for

Vectors = Mapping[str, np.ndarray]


@dataclass(frozen=True)
class StageCount:
    """What one stage left: sets and images, and how many sets it removed (Table 11)."""

    stage: str
    sets: int
    images: int
    removed: int
    note: str = ""

    @property
    def removed_pct(self) -> float:
        before = self.sets + self.removed
        return 100.0 * self.removed / before if before else 0.0


@dataclass(frozen=True)
class Undetected:
    """An image whose attribute the filtering encoder reads as another value."""

    set_id: str
    #: Its place in the set: two images of a set can have the same blob.
    index: int
    blob: str
    attribute_type: str
    value: str
    predicted: str


@dataclass
class FilterOutcome:
    kept: list[CounterfactualSet]
    counts: list[StageCount] = field(default_factory=list)
    undetected: list[Undetected] = field(default_factory=list)
    similarity: dict[str, float] = field(default_factory=dict)


def _count(
    stage: str, sets: Sequence[CounterfactualSet], before: int, note: str = ""
) -> StageCount:
    return StageCount(stage, len(sets), sum(s.size for s in sets), before - len(sets), note)


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(unit_rows(a) @ unit_rows(b))


#: Stage 1's default threshold on a set's mean image–caption cosine: the one image–text CLIP
#: threshold the SocialCounterfactuals code publishes (``--clip-threshold 0.2`` of its
#: generation script, per image), applied to the set's mean. See docs/probes/counterfactual.md.
DEFAULT_SIMILARITY_THRESHOLD = 0.2
#: Table 11's share of sets kept by stage 1, per segment, for the note that compares the two.
PAPER_KEPT_SHARE = {
    "race-gender": 13_147 / 104_000,
    "physical-gender": 7_254 / 104_000,
    "physical-race": 958 / 104_000,
}


def similarity_scores(
    sets: Sequence[CounterfactualSet], images: Vectors, texts: Vectors
) -> dict[str, float]:
    """Each set's mean cosine similarity of its images to their captions."""
    return {
        s.id: float(np.mean([_cos(images[i.blob], texts[i.caption]) for i in s.images]))
        for s in sets
    }


def similarity_stage(
    sets: Sequence[CounterfactualSet], images: Vectors, texts: Vectors, threshold: float | None
) -> tuple[list[CounterfactualSet], dict[str, float]]:
    """Stage 1: the sets whose mean image–caption similarity is at least ``threshold`` (all
    when ``threshold`` is None)."""
    scores = similarity_scores(sets, images, texts)
    if threshold is None:
        return list(sets), scores
    return [s for s in sets if scores[s.id] >= threshold], scores


def similarity_note(
    sets: Sequence[CounterfactualSet], scores: Mapping[str, float], threshold: float | None
) -> str:
    """What stage 1 did, and per segment the threshold that would keep Table 11's share here."""
    if threshold is None:
        return "not applied"
    parts = [f"mean caption similarity >= {threshold:g}"]
    by_segment: dict[str, list[float]] = {}
    for s in sets:
        by_segment.setdefault(s.segment, []).append(scores[s.id])
    for segment, values in sorted(by_segment.items()):
        share = PAPER_KEPT_SHARE.get(segment)
        if share is None or len(values) < 2:
            continue
        at = float(np.quantile(values, 1 - share))
        parts.append(
            f"{segment}: {percent_text(share)} kept in Table 11 needs >= {figure_text(at)} here"
        )
        templates = {s.template for s in sets if s.segment == segment}
        lost = templates - {
            s.template for s in sets if s.segment == segment and scores[s.id] >= threshold
        }
        if lost:
            parts.append(
                f"{segment}: {len(lost)} of {len(templates)} caption templates lose every set"
            )
    return "; ".join(parts)


def nsfw_stage(
    sets: Sequence[CounterfactualSet], unsafe: set[str] | None
) -> list[CounterfactualSet]:
    """Stage 2: drop every set with an image in ``unsafe`` (blobs); None: nothing labelled."""
    if not unsafe:
        return list(sets)
    return [s for s in sets if not any(i.blob in unsafe for i in s.images)]


def detectability_stage(
    sets: Sequence[CounterfactualSet],
    images: Vectors,
    texts: Vectors,
    values: Mapping[str, Mapping[str, Sequence[str]]],
) -> tuple[list[CounterfactualSet], list[Undetected]]:
    """Stage 3: keep the sets whose every attribute type is detectable in enough images.

    ``values`` gives per segment and type the candidate values (the argmax runs over them).
    Returns the kept sets and every image whose attribute was read as another value."""
    kept, undetected = [], []
    for s in sets:
        threshold = threshold_for(s.segment)
        passes = True
        for t in s.attribute_types:
            candidates = list(values[s.segment][t])
            if len(candidates) < 2:
                continue  # one value: nothing to tell apart
            text_matrix = np.stack([texts[detect_text(v)] for v in candidates])
            hits = 0
            for index, image in enumerate(s.images):
                sims = unit_rows(text_matrix) @ unit_rows(images[image.blob])
                predicted = candidates[int(np.argmax(sims))]
                if predicted == image.attributes[t]:
                    hits += 1
                else:
                    undetected.append(
                        Undetected(s.id, index, image.blob, t, image.attributes[t], predicted)
                    )
            required = threshold.required(t, s.size)
            if hits < (s.size if required is None else required):
                passes = False
        if passes:
            kept.append(s)
    return kept, undetected


def run_filter(
    sets: Sequence[CounterfactualSet],
    images: Vectors,
    texts: Vectors,
    values: Mapping[str, Mapping[str, Sequence[str]]],
    *,
    threshold: float | None,
    unfiltered: str = "not applied",
    unsafe: set[str] | None,
    nsfw_note: str,
    detectability: bool,
) -> FilterOutcome:
    """The three stages in the paper's order, with Table 11's counts."""
    start = list(sets)
    counts = [_count("sets", start, len(start))]
    after_sim, scores = similarity_stage(start, images, texts, threshold)
    note = similarity_note(start, scores, threshold) if threshold is not None else unfiltered
    counts.append(_count("image-text similarity", after_sim, len(start), note))
    after_nsfw = nsfw_stage(after_sim, unsafe)
    counts.append(_count("NSFW", after_nsfw, len(after_sim), nsfw_note))
    undetected: list[Undetected] = []
    if detectability:
        final, undetected = detectability_stage(after_nsfw, images, texts, values)
        counts.append(_count("attribute detectability", final, len(after_nsfw), "Table 10"))
    else:
        final = after_nsfw
        counts.append(_count("attribute detectability", final, len(after_nsfw), "not applied"))
    return FilterOutcome(final, counts, undetected, scores)


def counts_table_rows(counts: Sequence[StageCount]) -> list[list[Any]]:
    return [[c.stage, c.sets, c.images, c.removed, round(c.removed_pct, 1), c.note] for c in counts]
