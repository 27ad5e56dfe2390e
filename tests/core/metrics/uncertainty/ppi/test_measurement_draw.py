"""The measurement draw (:mod:`diptych.core.metrics.uncertainty.ppi.draw`): its order and draws, the
probabilities its stored labels are read with, and why the reviewer may stop after any label."""

from __future__ import annotations

import numpy as np
import pytest

from diptych.core.labels import CHOSEN, Sampling, SubjectLabel
from diptych.core.metrics.uncertainty.ppi.draw import (
    DETAIL_KEY,
    VisitRecord,
    plan_draw,
    read_visited_draws,
    visited_probabilities,
)
from diptych.core.metrics.uncertainty.ppi.estimate import active_probabilities


def test_a_plan_is_a_permutation_its_draws_and_their_records() -> None:
    plan = plan_draw([1.0, 1.0, 1.0, 1.0, 1.0], seed=7)
    # Everyone drawn (π = 1): every rank is served, in a shuffled order of all five.
    assert sorted(plan.order) == [0, 1, 2, 3, 4]
    assert plan.drawn_ranks == (1, 2, 3, 4, 5)
    assert plan.record(3) == {"rank": 3, "after": 2, "visited": 3, "population": 5}
    assert plan.record(5) == {"rank": 5, "after": 4, "visited": 5, "population": 5}
    # The same seed, the same draw; another seed, another order (of 5! = 120).
    assert plan_draw([1.0] * 5, seed=7) == plan
    assert plan_draw([1.0] * 5, seed=8).order != plan.order
    with pytest.raises(ValueError):
        plan_draw([0.5, 0.0], seed=1)


def test_a_drawn_persons_record_counts_the_visited_up_to_the_next_drawn() -> None:
    plan = plan_draw([0.5] * 40, seed=2)
    first, second = plan.drawn_ranks[:2]
    assert plan.record(first) == {
        "rank": first, "after": 0, "visited": second - 1, "population": 40
    }  # fmt: skip


def test_a_person_is_drawn_with_its_probability() -> None:
    pi = np.array([0.1] * 500 + [0.9] * 500)
    drawn = np.zeros(1000)
    seeds = 400
    for seed in range(seeds):
        for _, person in plan_draw(pi, seed).served():
            drawn[person] += 1
    share = drawn / seeds
    # Means of 500 × 400 Bernoulli draws: standard errors 0.0007 (π = 0.1) and 0.0007 (0.9).
    assert share[:500].mean() == pytest.approx(0.1, abs=0.004)
    assert share[500:].mean() == pytest.approx(0.9, abs=0.004)


def test_visited_probabilities_worked_by_hand() -> None:
    records = {
        "a": VisitRecord(rank=2, after=0, visited=4, population=10, probability=0.5),
        "b": VisitRecord(rank=5, after=2, visited=8, population=10, probability=0.25),
        "c": VisitRecord(rank=9, after=5, visited=9, population=10, probability=1.0),
    }
    # Visited up to rank 9 (m = 9 of N = 10; rank 10 is drawn, not labelled): π' = 0.9 π.
    assert visited_probabilities(records) == pytest.approx({"a": 0.45, "b": 0.225, "c": 0.9})
    # b's label taken back: c comes after a gap and is left out; a's prefix ends at 4.
    del records["b"]
    assert visited_probabilities(records) == pytest.approx({"a": 0.2})
    # Without the first drawn person nothing can be placed.
    assert visited_probabilities({"c": records["c"]}) == {}


def _label(
    person: tuple[int, str], sampling: Sampling | None, place: dict[str, int] | None, who: str
) -> SubjectLabel:
    return SubjectLabel(
        subject_id=person[0], trial_idx=person[0], model_id="m", position=person[1],
        subject_meta={}, trial_meta={}, annotator=who, label="feminine", confidence=None,
        detail={DETAIL_KEY: place} if place else {}, sampling=sampling,
    )  # fmt: skip


def test_stored_labels_are_read_with_the_draws_probabilities() -> None:
    draw = "measure-x"
    a, b, c, d = (0, "left"), (1, "left"), (2, "right"), (3, "left")
    place_a = {"rank": 1, "after": 0, "visited": 1, "population": 4}
    # Rank 2 was drawn and is not labelled: b, at rank 3, comes after a gap.
    place_b = {"rank": 3, "after": 2, "visited": 4, "population": 4}
    labels = {
        a: [
            _label(a, Sampling("active", 0.5, draw), place_a, "human:ana"),
            _label(a, None, None, "faces"),
        ],
        b: [_label(b, Sampling("active", 0.8, draw), place_b, "human:ana")],
        # A CSV batch's active label: no place in a draw, read as stored.
        c: [_label(c, Sampling("active", 0.3, "active-csv"), None, "human:bo")],
        d: [_label(d, Sampling("uniform", 0.25, "u1"), None, "human:bo")],
    }
    read = read_visited_draws(labels)
    # Visited up to rank 1: m / N = 1/4.
    assert read[a][0].sampling == Sampling("active", 0.125, draw)
    assert read[a][1] == labels[a][1]
    assert read[b][0].sampling == CHOSEN
    assert read[c] == labels[c] and read[d] == labels[d]


def test_the_visited_share_makes_horvitz_thompson_unbiased_after_any_number_of_labels() -> None:
    """The mean of z estimated from the first k drawn persons with π' = (m/N)·π, m counted up
    to the next drawn person (the module's rule) or only up to the k-th (the rule it rejects)."""
    rng = np.random.default_rng(3)
    n_all = 300
    hard = np.arange(n_all) < 60
    # The annotator is unsure about the persons with large z: the active design over-draws them.
    z = rng.normal(0, 1, n_all) + np.where(hard, 2.0, 0.0)
    pi = active_probabilities(np.where(hard, 0.5, 0.02), 60)
    found: dict[tuple[int, bool], list[float]] = {}
    for seed in range(6000):
        plan = plan_draw(pi, seed)
        ranks = plan.drawn_ranks
        for k in (10, 30):
            if len(ranks) <= k:
                continue
            labelled = [plan.order[r - 1] for r in ranks[:k]]
            total = float((z[labelled] / pi[labelled]).sum())
            found.setdefault((k, True), []).append(total / (ranks[k] - 1))
            found.setdefault((k, False), []).append(total / ranks[k - 1])
    for (k, ours), estimates in found.items():
        mean, se = np.mean(estimates), np.std(estimates) / np.sqrt(len(estimates))
        if ours:
            assert abs(mean - z.mean()) < 4 * se, k
        elif k == 10:
            # Counting only up to the k-th drawn person is off by about 8 standard errors
            # here (the test can fail).
            assert mean - z.mean() > 4 * se
