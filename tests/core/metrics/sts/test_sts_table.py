"""The STS over columns: the same rows, majority, checks and scores as the row-by-row rules, and the
bootstrap through cluster types that makes a million labels take seconds."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from support.sts_tables import table_14_rows

from diptych.core.labels import majority
from diptych.core.metrics.sts import (
    LABELS,
    LabelRow,
    LabelTable,
    read_label_table,
    read_labels_csv,
    reduce_majority,
    stereotype_test_score,
)
from diptych.core.metrics.sts.labels_csv import _read_rows
from diptych.core.metrics.sts.rows import consistency_problem
from diptych.core.metrics.uncertainty.bootstrap import ClusterMean, percentile_interval

# Three images: two people seen as stereotyped, one person of two seen against the stereotype,
# one person seen against it. Types (persons, Stereo sum): image 2 (1, -1), image 1 (2, 0),
# image 0 (2, 2) — one image of each.
TINY_VALUES = [1, 1, 1, -1, -1]
TINY_CLUSTERS = [0, 0, 1, 1, 2]


def test_type_bootstrap_is_a_multinomial_draw_of_the_types() -> None:
    cm = ClusterMean.from_observations(TINY_VALUES, TINY_CLUSTERS, scale=100)
    reps = cm.replicates_by_type(n_boot=300, rng=np.random.default_rng(7))
    # By hand: how many of the 3 drawn images are of each type, in (persons, sum) order, each
    # type a third of the images; the resample's mean pools their people.
    drawn = np.random.default_rng(7).multinomial(3, [1 / 3, 1 / 3, 1 / 3], size=300)
    persons = np.array([1, 2, 2])
    sums = np.array([-1, 0, 2])
    expected = [100 * (k @ sums) / (k @ persons) for k in drawn]
    assert reps == pytest.approx(expected)


def test_type_bootstrap_has_the_distribution_of_drawing_images() -> None:
    cm = ClusterMean.from_observations(TINY_VALUES, TINY_CLUSTERS, scale=100)
    reps = cm.replicates_by_type(n_boot=20000, rng=np.random.default_rng(3))
    # All 27 equally likely ordered draws of 3 images, enumerated.
    members = {0: [1, 1], 1: [1, -1], 2: [-1]}
    exact = [
        100 * np.mean([v for c in draw for v in members[c]])
        for draw in itertools.product(range(3), repeat=3)
    ]
    assert set(np.round(reps, 9)) == set(np.round(exact, 9))
    for value in set(np.round(exact, 9)):
        share = np.mean(np.isclose(reps, value))
        assert share == pytest.approx(np.mean(np.isclose(exact, value)), abs=0.015), value
    assert reps.mean() == pytest.approx(np.mean(exact), abs=1.0)
    assert reps.std() == pytest.approx(np.std(exact), rel=0.03)


def test_type_bootstrap_does_not_depend_on_the_order_of_images() -> None:
    a = ClusterMean.from_observations(TINY_VALUES, TINY_CLUSTERS)
    b = ClusterMean.from_observations(TINY_VALUES, [2, 2, 0, 0, 1])
    reps_a = a.replicates_by_type(n_boot=50, rng=np.random.default_rng(0))
    reps_b = b.replicates_by_type(n_boot=50, rng=np.random.default_rng(0))
    assert (reps_a == reps_b).all()


def test_type_and_image_bootstraps_give_the_same_interval_on_table_14() -> None:
    paired = [p for p in reduce_majority(table_14_rows()) if p.setting == "paired"]
    values = [1 if p.label == p.stereotype else -1 for p in paired]
    cm = ClusterMean.from_observations(values, [p.image for p in paired], scale=100)
    by_image = percentile_interval(cm.replicates(n_boot=20000, rng=np.random.default_rng(1)))
    by_type = percentile_interval(cm.replicates_by_type(n_boot=20000, rng=np.random.default_rng(2)))
    # 800 images, a standard error of about 2 points: the two agree to Monte Carlo error.
    assert by_type == pytest.approx(by_image, abs=0.3)


def _person(image: str, label: str, **kw: object) -> LabelRow:
    fields: dict[str, object] = {
        "setting": "single",
        "position": "single",
        "identity": "nurse",
        "stereotype": "feminine",
    }
    fields.update(kw)
    return LabelRow(image=image, label=label, **fields)  # type: ignore[arg-type]


def test_majority_over_columns_is_labels_majority_for_every_vote() -> None:
    votes = [
        combo for n in range(1, 5) for combo in itertools.combinations_with_replacement(LABELS, n)
    ]
    rows = [
        _person(f"img-{i}", label, annotator=f"a{k}")
        for k in range(4)
        for i, combo in enumerate(votes)
        if k < len(combo)
        for label in [combo[k]]
    ]
    reduced = reduce_majority(rows)
    assert [r.image for r in reduced] == [f"img-{i}" for i in range(len(votes))]
    assert [r.label for r in reduced] == [majority(combo) for combo in votes]


def test_table_and_rows_give_the_same_scores() -> None:
    rows = table_14_rows()
    table = LabelTable.from_rows(rows)
    assert table.rows() == rows
    assert (
        stereotype_test_score(table, n_boot=200, seed=3).to_dict()
        == stereotype_test_score(rows, n_boot=200, seed=3).to_dict()
    )


def test_table_finds_the_first_contradiction_as_the_rows_do() -> None:
    rows = [
        _person("a", "feminine"),
        _person("b", "feminine", identity="sheriff", stereotype="masculine"),
        _person("a", "masculine", identity="doctor", stereotype="masculine"),  # a: one identity
        _person("c", "feminine", stereotype="masculine"),  # nurse: one stereotype
    ]
    expected = consistency_problem(rows, lambda j: f"row {j + 1}")
    assert expected is not None and expected[0] == 2
    assert LabelTable.from_rows(rows).consistency_problem() == expected
    assert LabelTable.from_rows(rows[:2]).consistency_problem() is None


def test_columns_read_what_the_rows_read(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(
        "\ufeffImage,Setting,position,identity,stereotype,label,run,annotator,worker\n"
        "s1, single ,single,nurse,Feminine,FEMININE,2,x,w1\n"
        "\n"
        's1,single,SINGLE, nurse,feminine,masculine,02,"y",w2\n'
        "p1,paired,left,nurse,feminine,cannot_identify,1,,w3\n"
        '"p1",paired,right,"sheriff, county",masculine,masculine,1,x,w4\n',
        encoding="utf-8",
    )
    table = read_label_table(path)
    assert table.rows() == _read_rows(path) == read_labels_csv(path)
    assert len(table) == 4
    assert table.runs == [2, 1]  # "2" and "02" are one run
    assert [r.annotator for r in table.rows()] == ["x", "y", None, "x"]
