"""The measurement draw: the active review queue that a reviewer may stop at any moment.

The Review screen's measurement mode serves a run's persons one after another, each drawn with
a probability that rises with the automatic annotator's uncertainty about it (the active rule
of Zrnic & Candès, :func:`~diptych.core.metrics.uncertainty.ppi.estimate.active_probabilities`, with
its uniform floor), and every label given there enters the prediction-powered figure weighted by the
inverse of the person's probability. A reviewer stops when they like — after 12 labels or 90 —
so the design is one whose probabilities stay known wherever it stops.

**The design.** The N persons of the figure's population are put in a random *visiting order*
(a seeded permutation), and each person i gets, once and for all, its probability π_i (budget B:
Σ π_i = B) and an independent uniform u_i; i is *drawn* when u_i < π_i. Both are frozen when the
draw is made, from what was known then (the annotator's labels and confidences, the flags), never
from a label of this draw. The queue serves the drawn persons in visiting order.

**Why the weights stay valid.** Visiting persons in a uniformly random order and drawing each
with its probability as it comes is a two-phase design: the visited persons are a simple random
sample of the population, and the drawn ones among them a Poisson sample with probabilities π_i.
When the reviewer has labelled the first k drawn persons, the *visited* persons are those before
the next drawn one (the (k + 1)-th, at rank m + 1; all N when there is none): m persons, every
drawn one of them labelled, each visited with probability m / N. A labelled person's probability
of being in the sample is therefore

    π'_i = (m / N) · π_i,

the probability it enters the prediction-powered figure with (:func:`visited_probabilities`).
Counting the visited persons up to the next drawn one is what makes m / N unbiased: for equal
probabilities it is Haldane's inverse sampling (k / (T_{k+1} − 1) is unbiased for π, T_{k+1}
the rank of the (k + 1)-th drawn person); with the active design's unequal ones the
Horvitz–Thompson total Σ z / π' is unbiased within simulation error
(``tests/core/metrics/uncertainty/ppi/test_measurement_draw.py``), where counting up to the k-th
drawn person would be biased by O(1/k). The estimator normalises its weights (Σ w (Y − λ f) / Σ w),
so the common factor m / N cancels in the estimate and its interval; it matters where the draw is
combined with another design (a census stratum,
:mod:`diptych.core.metrics.uncertainty.ppi.batches`), in the tuning of λ and in the sampling part of
the variance (1 − π')/π'², which more labels shrink.

**Stopping at any time.** Persons drawn and not yet labelled — the one on screen, those after
it — lie beyond the visited prefix, as if never visited: no label is missing from it, and the
reviewer may leave after any label. A stop that does not depend on what the labels say (a
budget, the end of the day) leaves the design as described. A stop that does (the mode's
"enough") makes the figure a sequential one: its estimate is biased by O(1/n), small beside its
standard error O(1/√n), but an interval looked at after every label clears a limit more often
than its level says — hence the boundary of :mod:`diptych.core.metrics.uncertainty.ppi.stop`, whose
error ``bench/measure.py`` measures. A label taken back opens a gap: the labels after it cannot
be placed in a prefix and are read as ``chosen`` (they serve agreement, not the figure) until
the gap is labelled again — the queue serves the gap first. Resuming the mode later continues
the same order and the same draws (frozen in the workspace), so the prefix only grows.

Each label of the draw records in its ``detail`` (key :data:`DETAIL_KEY`) its person's ``rank``
in the order, the rank of the drawn person before it (``after``, 0 for the first), the persons
visited once it is labelled (``visited``: the next drawn person's rank less one, N after the
last) and the ``population`` N; its sampling is ``active`` with π_i and the draw's id. That is
all a reader needs: :func:`read_visited_draws` turns the stored labels into the probabilities
above.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from diptych.core.labels import CHOSEN, Sampling, SubjectLabel

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

#: Where a label of a measurement draw keeps its place in the draw (in ``detail``).
DETAIL_KEY = "measurement"

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class DrawPlan:
    """A population's visiting order and draws: persons by their index in the population."""

    #: Person indices in visiting order (rank r, 1-based, is ``order[r - 1]``).
    order: tuple[int, ...]
    #: Each person's probability, by population index.
    probability: tuple[float, ...]
    #: The ranks of the drawn persons, ascending: the queue.
    drawn_ranks: tuple[int, ...]

    @property
    def population(self) -> int:
        return len(self.order)

    def served(self) -> list[tuple[int, int]]:
        """(rank, person index) of every drawn person, in the order they are served."""
        return [(rank, self.order[rank - 1]) for rank in self.drawn_ranks]

    def record(self, rank: int) -> dict[str, int]:
        """What a label of the drawn person at ``rank`` records of its place in the draw."""
        at = self.drawn_ranks.index(rank)
        after = self.drawn_ranks[at - 1] if at else 0
        following = self.drawn_ranks[at + 1 :]
        visited = following[0] - 1 if following else self.population
        return {"rank": rank, "after": after, "visited": visited, "population": self.population}


def plan_draw(probability: ArrayLike, seed: int) -> DrawPlan:
    """The visiting order and the draws of a population whose persons have ``probability``
    (module docstring), reproducible from ``seed``."""
    import numpy as np

    pi = np.asarray(probability, dtype=np.float64)
    if pi.ndim != 1 or pi.size < 1:
        raise ValueError("a draw needs at least one person's probability")
    if ((pi <= 0) | (pi > 1)).any():
        raise ValueError("every person's probability must be in (0, 1]")
    rng = np.random.default_rng(seed)
    order = rng.permutation(pi.size)
    # u_i is drawn per person (by index), so a person's draw does not depend on its rank.
    u = rng.random(pi.size)
    drawn = [rank for rank, i in enumerate(order.tolist(), start=1) if u[i] < pi[i]]
    return DrawPlan(tuple(order.tolist()), tuple(pi.tolist()), tuple(drawn))


@dataclass(frozen=True)
class VisitRecord:
    """One labelled person of a measurement draw, as its label recorded it."""

    rank: int
    after: int
    #: The persons visited once this person is labelled (module docstring).
    visited: int
    population: int
    probability: float


def visited_probabilities(records: Mapping[K, VisitRecord]) -> dict[K, float]:
    """Each labelled person's probability of having been visited and drawn, π'_i = (m/N)·π_i,
    for the persons of the unbroken prefix of the draw (module docstring); a person after a
    gap (a drawn person whose label was taken back) is left out."""
    chain = sorted(records.items(), key=lambda kv: kv[1].rank)
    kept: list[tuple[K, VisitRecord]] = []
    expected_after = 0
    for person, rec in chain:
        if rec.after != expected_after:
            break
        kept.append((person, rec))
        expected_after = rec.rank
    if not kept:
        return {}
    visited = kept[-1][1].visited
    return {person: min(1.0, rec.probability * visited / rec.population) for person, rec in kept}


def _visit_record(lab: SubjectLabel) -> VisitRecord | None:
    place = lab.detail.get(DETAIL_KEY) if isinstance(lab.detail, Mapping) else None
    s = lab.sampling
    if not isinstance(place, Mapping) or s is None or s.design != "active":
        return None
    try:
        return VisitRecord(
            int(place["rank"]), int(place["after"]), int(place["visited"]),
            int(place["population"]), float(s.probability or 0.0),
        )  # fmt: skip
    except (KeyError, TypeError, ValueError):
        return None


def read_visited_draws(
    by_person: Mapping[K, Sequence[SubjectLabel]],
) -> dict[K, list[SubjectLabel]]:
    """``by_person``'s labels with the labels of every measurement draw read as the draw
    means them: probability π'_i (module docstring) in place of the stored π_i, and ``chosen``
    for a label after a gap in its draw. Every other label is kept as it is."""
    records: dict[str, dict[K, VisitRecord]] = {}
    for person, labels in by_person.items():
        for lab in labels:
            rec = _visit_record(lab)
            if rec is not None and lab.kind == "human":
                draw = (lab.sampling.draw if lab.sampling else None) or "active"
                records.setdefault(draw, {})[person] = rec
    if not records:
        return {person: list(labels) for person, labels in by_person.items()}
    read = {draw: visited_probabilities(recs) for draw, recs in records.items()}
    out: dict[K, list[SubjectLabel]] = {}
    for person, labels in by_person.items():
        out[person] = [_as_read(lab, person, read) for lab in labels]
    return out


def _as_read(
    lab: SubjectLabel, person: Any, read: Mapping[str, Mapping[Any, float]]
) -> SubjectLabel:
    if lab.kind != "human" or _visit_record(lab) is None or lab.sampling is None:
        return lab
    draw = lab.sampling.draw or "active"
    p = read.get(draw, {}).get(person)
    if p is None:
        return replace(lab, sampling=CHOSEN)
    return replace(lab, sampling=Sampling("active", p, lab.sampling.draw))
