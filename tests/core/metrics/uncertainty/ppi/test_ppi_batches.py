"""Several designed batches in one prediction-powered figure
(:mod:`diptych.core.metrics.uncertainty.ppi.batches`): the union probability, which batches combine,
and the estimate they give, worked by hand."""

from __future__ import annotations

import pytest

from diptych.core.labels import Sampling
from diptych.core.metrics.uncertainty.ppi.batches import combine_batches, union_probability
from diptych.core.metrics.uncertainty.ppi.estimate import prediction_powered_ratio


def test_union_probability_worked_by_hand() -> None:
    # Left out of both: 0.5 · 0.75 = 0.375; drawn by at least one: 0.625.
    assert union_probability([0.5, 0.25]) == pytest.approx(0.625)
    assert union_probability([0.2]) == pytest.approx(0.2)
    assert union_probability([0.3, 1.0]) == 1.0
    assert union_probability([]) == 0.0
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        union_probability([1.5])


def _labels() -> list[tuple[int, Sampling]]:
    # Batch b1 (uniform, π 0.5) labelled persons 0 and 1; b2 (uniform, π 0.25) persons 1 and 2;
    # a census of a stratum labelled person 3; a reviewer chose person 4.
    return [
        (0, Sampling("uniform", 0.5, "b1")),
        (1, Sampling("uniform", 0.5, "b1")),
        (1, Sampling("uniform", 0.25, "b2")),
        (2, Sampling("uniform", 0.25, "b2")),
        (3, Sampling("census")),
        (4, Sampling("chosen")),
    ]


def test_uniform_batches_and_a_census_combine() -> None:
    design = combine_batches(_labels())
    assert design.draws == ("b1", "b2") and not design.left_out
    # Persons of the uniform batches: 1 − (1 − 0.5)(1 − 0.25) = 0.625 — person 0 too, whom b2
    # could have drawn; the census person 1; the chosen one is not labelled for the design.
    assert [design.probability(p) for p in (0, 1, 2)] == pytest.approx([0.625] * 3)
    assert design.probability(3) == 1.0
    assert not design.labelled(4)
    with pytest.raises(ValueError, match="no batch that enters"):
        design.probability(4)
    assert [design.design_of(p) for p in (0, 3)] == ["uniform", "census"]
    assert not design.enters(Sampling("chosen"))
    assert design.enters(Sampling("uniform", 0.5, "b1"))


def test_an_active_batch_combines_with_census_strata_only() -> None:
    active = [(5, Sampling("active", 0.2, "a1")), (6, Sampling("active", 0.6, "a1"))]
    # Three persons in the uniform batches against two in the active one: the uniform enter.
    design = combine_batches(_labels() + active)
    assert design.draws == ("b1", "b2") and dict(design.left_out) == {"a1": 2}
    # The active batch alone (with the census): each person its own stored probability.
    more = active + [(7, Sampling("active", 0.1, "a1")), (8, Sampling("active", 0.9, "a1"))]
    design = combine_batches(_labels() + more)
    assert design.draws == ("a1",) and dict(design.left_out) == {"b1": 2, "b2": 2}
    assert [design.probability(p) for p in (5, 6, 3)] == pytest.approx([0.2, 0.6, 1.0])
    # A uniform batch whose labels disagree on the probability is read as an active one.
    uneven = combine_batches(
        [(0, Sampling("uniform", 0.5, "u")), (1, Sampling("uniform", 0.4, "u"))]
    )
    assert uneven.batches[0].constant is None
    assert uneven.probability(1) == pytest.approx(0.4)


def test_estimate_over_combined_batches_worked_by_hand() -> None:
    design = combine_batches(_labels())
    # Five persons, everyone's gender told; the annotator's Stereo +1, +1, −1, +1, −1; people's
    # (persons 0–3 labelled) +1, −1, −1, +1. Weights 1/0.625 = 1.6 for persons 0–2, 1 for 3.
    #   λ = 0:   (1.6 − 1.6 − 1.6 + 1) / (3 · 1.6 + 1) = −0.6 / 5.8
    #   λ = 0.5: μ_S = 0.5 · 0.2 + [1.6 · 0.5 + 1.6 · (−1.5) + 1.6 · (−0.5) + 1 · 0.5] / 5.8
    #               = 0.1 − 1.9 / 5.8;  μ_D = 0.5 + 0.5 = 1
    labelled = [design.labelled(p) for p in range(5)]
    probability = [design.probability(p) if labelled[p] else 1.0 for p in range(5)]
    args = ([1, -1, -1, 1, 0], [1, 1, 1, 1, 0], [1, 1, -1, 1, -1], [1] * 5, labelled, probability)
    units = {"image": [0, 1, 2, 3, 4]}
    found = prediction_powered_ratio(*args, units, lam=0.5, scale=100.0)
    assert found.labels_only.value == pytest.approx(-100 * 0.6 / 5.8)
    assert found.inference.value == pytest.approx(100 * (0.1 - 1.9 / 5.8))
    assert (found.n_persons, found.n_labelled) == (5, 4)
