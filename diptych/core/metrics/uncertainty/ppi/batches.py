"""Which designed human labels enter a prediction-powered figure, and with what probability.

People label a run in batches: each ``diptych annotate --sample N --design D`` draws one (its
``draw``), a census labels a whole stratum (every flagged person). Batches are drawn
independently of one another, so a person is left out of all of them with probability
Π_b (1 − π_b) and is labelled by at least one with

    π = 1 − Π_b (1 − π_b),

whatever each batch's own design: a uniform batch draws a fixed number without replacement
(every person's π_b = n_b / N), an active one draws each person on its own (Poisson sampling),
and in both π_b is the person's probability of being in that batch, which is what a label stores.
Independence across batches is all the product needs. Weighting a labelled person by 1 / π is
then Horvitz–Thompson for the union of the batches: unbiased, and a person two batches labelled
counts once (with the majority of its labels).

The product needs every batch's π_b for every labelled person — also for the batches that did not
draw the person. A uniform batch gave everyone the same probability (any of its labels says
which); a census gave its stratum 1 (and π = 1 whatever else drew the person), everyone else 0.
An active batch's probabilities differ by person and are stored only for the persons it drew, so
it combines with census strata alone: when a run has several batches that cannot all be combined,
the combinable set that labelled most persons enters — every uniform batch together, or one
active batch — and the others are counted and said to be left out. (A batch's probabilities are
those of the persons of the run when it was drawn; draw batches once the run is finished.)
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field

from diptych.core.labels import Sampling

#: Stored probabilities of one uniform batch differ at most by this much (they are written with
#: ``repr``, so they are equal; the tolerance only absorbs a file edited by hand).
_SAME = 1e-9


def union_probability(probabilities: Iterable[float]) -> float:
    """A person's probability of being drawn by at least one of independent batches that gave
    it ``probabilities``: 1 − Π (1 − π_b)."""
    left_out = 1.0
    for p in probabilities:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"a probability must be in [0, 1], got {p}")
        left_out *= 1.0 - p
    return 1.0 - left_out


@dataclass(frozen=True)
class Batch:
    """One drawn batch: its name, design, the persons it labelled (with the probability its
    label stores for each) and, for a uniform batch, the probability every person had."""

    draw: str
    design: str
    persons: Mapping[Hashable, float]
    #: Every person's probability, where the batch gave all the same one (a uniform batch).
    constant: float | None


@dataclass(frozen=True)
class CombinedDesign:
    """The batches whose labels enter, each labelled person's probability, what is left out."""

    #: Persons of census strata (probability 1).
    census: frozenset[Hashable]
    #: The drawn batches that enter.
    batches: tuple[Batch, ...]
    #: Batches left out (draw → persons it labelled).
    left_out: Mapping[str, int] = field(default_factory=dict)

    @property
    def draws(self) -> tuple[str, ...]:
        return tuple(b.draw for b in self.batches)

    def enters(self, sampling: Sampling | None) -> bool:
        """Whether a label with this sampling enters (census, or a batch that enters)."""
        if sampling is None or not sampling.known_probability:
            return False
        return sampling.design == "census" or _draw(sampling) in self.draws

    def labelled(self, person: Hashable) -> bool:
        return person in self.census or any(person in b.persons for b in self.batches)

    def probability(self, person: Hashable) -> float:
        """A labelled person's probability of having been drawn by census or entering batches
        (module docstring); ValueError for a person none of them labelled."""
        if person in self.census:
            return 1.0
        if not any(person in b.persons for b in self.batches):
            raise ValueError(f"{person!r} was labelled in no batch that enters")
        return union_probability(
            b.constant if b.constant is not None else b.persons[person] for b in self.batches
        )

    def design_of(self, person: Hashable) -> str:
        """The design a labelled person is counted under: census, else its entering batches'."""
        if person in self.census:
            return "census"
        return next(b.design for b in self.batches if person in b.persons)


def _draw(sampling: Sampling) -> str:
    return sampling.draw or sampling.design


def combine_batches(labels: Iterable[tuple[Hashable, Sampling]]) -> CombinedDesign:
    """The combined design of a run's human labels: (person, sampling) for each, chosen ones
    skipped. Census strata always enter; of the drawn batches, every uniform one together or a
    single active one (module docstring), whichever labelled more persons."""
    census: set[Hashable] = set()
    drawn: dict[str, dict[Hashable, float]] = {}
    designs: dict[str, str] = {}
    for person, sampling in labels:
        if not sampling.known_probability:
            continue
        if sampling.design == "census":
            census.add(person)
            continue
        draw = _draw(sampling)
        assert sampling.probability is not None  # a uniform or active label stores one
        drawn.setdefault(draw, {}).setdefault(person, float(sampling.probability))
        designs[draw] = sampling.design
    batches = [
        Batch(draw, designs[draw], persons, _constant(designs[draw], persons))
        for draw, persons in sorted(drawn.items())
    ]
    together = tuple(b for b in batches if b.constant is not None)
    options = ([together] if together else []) + [(b,) for b in batches if b.constant is None]
    if not options:
        return CombinedDesign(frozenset(census), ())

    def size(option: tuple[Batch, ...]) -> int:
        return len(set().union(*(b.persons for b in option)) - census)

    best = max(options, key=size)  # the first wins a tie: the uniform batches together
    left_out = {b.draw: len(b.persons) for b in batches if b not in best}
    return CombinedDesign(frozenset(census), best, left_out)


def _constant(design: str, persons: Mapping[Hashable, float]) -> float | None:
    """The probability a uniform batch gave everyone; None when its labels disagree on it (then
    it is read as per-person probabilities, as an active batch's)."""
    values = list(persons.values())
    if design != "uniform" or not values:
        return None
    first = values[0]
    if all(math.isclose(v, first, rel_tol=_SAME, abs_tol=_SAME) for v in values):
        return first
    return None


def probability_summary(probabilities: Iterable[float]) -> dict[str, float]:
    """min, max and mean of the labelled persons' probabilities (what the methods state)."""
    values = list(probabilities)
    if not values:
        return {}
    return {"min": min(values), "max": max(values), "mean": sum(values) / len(values)}
