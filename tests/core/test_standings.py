"""Standing among models: Holm's adjusted p-values, ranks and their intervals on figures whose
values are planted exactly, and a model measured again against its predecessor."""

from __future__ import annotations

import itertools

import pytest

from diptych.core.metrics.uncertainty.resampling import holm
from diptych.core.standings import (
    FigureSample,
    Measured,
    design_of,
    rank_table,
    standings,
    successions,
)

MASC = ["m1", "m2", "m3", "m4"]
FEM = ["f1", "f2", "f3", "f4"]
#: A fixed, zero-sum pattern over the 16 scenes (each row and column sums to 0 too).
PATTERN = {
    (m, f): ((i + j) % 2 * 2 - 1) * 0.1 * (1 if i < 2 else -1)
    for (i, m), (j, f) in itertools.product(enumerate(MASC), enumerate(FEM))
}
#: How each identity moves every model's values: what two models of one design share.
SHARED = {
    (m, f): 0.05 * i - 0.04 * j
    for (i, m), (j, f) in itertools.product(enumerate(MASC), enumerate(FEM))
}


def sample(model: str, level: float, wiggle: float = 0.0, *, design: str = "d") -> FigureSample:
    """Mean ``level`` over 16 crossed scenes, each scene's value moved by the shared identity
    effects (zero mean by the pattern's symmetry, see below) and by ``wiggle`` × PATTERN."""
    cells = list(PATTERN)
    # SHARED's mean over the grid is 0.05·1.5 − 0.04·1.5 = 0.015, taken out to plant ``level``.
    values = [level + SHARED[c] - 0.015 + wiggle * PATTERN[c] for c in cells]
    return FigureSample(
        model=model,
        figure="STS paired",
        design=design,
        design_label="a test design",
        values=values,
        units={
            "masculine identity": [c[0] for c in cells],
            "feminine identity": [c[1] for c in cells],
        },  # fmt: skip
        cells=list(cells),
        cell_units={c: {"masculine identity": c[0], "feminine identity": c[1]} for c in cells},
    )


def measured(
    s: FigureSample,
    run: str,
    *,
    created: float = 0.0,
    version: str = "1",
    params: dict[str, object] | None = None,
) -> Measured:
    return Measured(run, created, "scripted", version, params or {"who": s.model}, (), s)


def test_holm_step_down_by_hand() -> None:
    # Sorted: 0.01·3 = 0.03; 0.03·2 = 0.06; 0.04·1 = 0.04, raised to 0.06 by the step before.
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []


def test_planted_order_and_which_pairs_differ() -> None:
    # A and B are planted equal (B differs only by a zero-mean pattern); C is 50 points lower.
    a, b, c = sample("A", 0.6), sample("B", 0.6, wiggle=1.0), sample("C", 0.1, wiggle=0.5)
    table, pairs = rank_table([measured(c, "r3"), measured(a, "r1"), measured(b, "r2")])
    values = {s.measured.sample.model: s.figure.value for s in table}
    assert values == pytest.approx({"A": 60.0, "B": 60.0, "C": 10.0})
    by_pair = {frozenset((p.a, p.b)): p for p in pairs}
    assert by_pair[frozenset("AB")].difference.difference == pytest.approx(0.0, abs=1e-9)
    assert not by_pair[frozenset("AB")].differs
    assert by_pair[frozenset("AC")].differs and by_pair[frozenset("BC")].differs
    # Matched per scene: B − A is the mean change over the 16 scenes, paired.
    assert all(p.difference.paired for p in pairs)
    ranks = {s.measured.sample.model: (s.rank_low, s.rank_high) for s in table}
    assert ranks == {"A": (1, 2), "B": (1, 2), "C": (3, 3)}
    assert table[-1].measured.sample.model == "C" and table[-1].rank == 3


def test_rank_interval_is_every_rank_when_nothing_differs() -> None:
    models = [sample(name, 0.3, wiggle=w) for name, w in (("A", 0.0), ("B", 1.0), ("C", -1.0))]
    table, pairs = rank_table([measured(s, f"r{k}") for k, s in enumerate(models)])
    assert not any(p.differs for p in pairs)
    assert {(s.rank_low, s.rank_high) for s in table} == {(1, 3)}


def test_other_designs_are_ranked_apart() -> None:
    one = [measured(sample("A", 0.6), "r1"), measured(sample("B", 0.1), "r2")]
    other = [measured(sample("C", 0.9, design="e"), "r3")]
    result = standings(one + other)
    assert [len(t.standings) for t in result.tables] == [2, 1]
    assert result.tables[1].standings[0].rank_low == result.tables[1].standings[0].rank_high == 1
    assert result.tables[1].pairs == []


def test_a_model_measured_again_against_its_predecessor() -> None:
    before = measured(sample("X#1", 0.6), "old", created=1.0, version="1", params={"k": 1})
    same = measured(sample("X#2", 0.6, wiggle=1.0), "new", created=2.0, version="2",
                    params={"k": 1})  # fmt: skip
    moved = measured(sample("X#3", 0.2), "newer", created=3.0, version="3", params={"k": 1})
    other = measured(sample("Y", 0.2), "y", created=4.0, params={"k": 2})
    found = successions([before, same, moved, other])
    # Each against the last earlier one of the same plugin and parameters on another version.
    assert [(s.before, s.after) for s in found] == [(before.label, same.label),
                                                    (same.label, moved.label)]  # fmt: skip
    assert not found[0].distinguishable
    assert found[1].distinguishable and found[1].difference.difference == pytest.approx(-40.0)
    against = successions([before, same, moved, other], against="old")
    # Named, the predecessor's one figure stands against every other figure of its design.
    assert [s.after for s in against] == [same.label, moved.label, other.label]


def test_design_words_say_long_lists_by_length() -> None:
    key, words = design_of("pst-text", "1", {"masculine": MASC, "seed": 0, "aspects": ["x"]},
                           apart_from=("aspects",))  # fmt: skip
    assert "aspects" not in key and words == "pst-text v1 (masculine=4 listed, seed=0)"


def test_the_floor_mark_is_explained_only_where_a_row_carries_it() -> None:
    from diptych.core.report.standings_tables import standings_text

    # Four identities a side: every interval resamples them, none falls to its floor.
    a, b = sample("A", 0.6, wiggle=0.3), sample("B", 0.2, wiggle=0.5)
    table = standings([measured(a, "r1"), measured(b, "r2")], n_boot=200).tables[0]
    assert not any(s.figure.floor for s in table.standings)
    text = standings_text(table)
    assert "†" not in text.units and "floor" not in text.units
    assert text.units.startswith("95% interval: over the ")
