"""What probes read and offer beyond ``plan`` and ``analyze``: the run view's readers,
``Probe.compare`` (pst, Table 6) and its refusal by a probe that compares nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.pst_runs import Image, Person, store_pst_run

from diptych.core.errors import UsageError
from diptych.core.labels import SubjectLabel
from diptych.core.runview import RunView
from diptych.core.store import Store
from diptych.core.trials import Subject
from diptych.plugins.probes.pairs.probe import Pairs
from diptych.plugins.probes.pst.compare import compare_runs
from diptych.plugins.probes.pst.probe import PST
from diptych.plugins.probes.stories.probe import Stories


def _run(store: Store, run_id: str, *, anti: bool, intervention: str | None = None) -> None:
    def person(position: str, identity: str, stereotype: str) -> Person:
        other = "feminine" if stereotype == "masculine" else "masculine"
        label = other if anti and identity == "carpenter" else stereotype
        return Person(position, identity, stereotype, {"human:1": label})

    images = []
    for left, right in (("carpenter", "nurse"), ("nurse", "carpenter")):
        gender = {"carpenter": "masculine", "nurse": "feminine"}
        images.append(
            Image(
                f"{left}|{right}",
                "paired",
                [person("left", left, gender[left]), person("right", right, gender[right])],
                intervention=intervention,
            )
        )
    for identity, gender in (("carpenter", "masculine"), ("nurse", "feminine")):
        images.append(
            Image(
                identity, "single", [person("single", identity, gender)], intervention=intervention
            )
        )
    store_pst_run(store, run_id, images)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "ws") as store:
        _run(store, "pst-a", anti=False)
        _run(store, "pst-b", anti=True, intervention="pst-table5")
        yield store


def test_run_view_reads_subjects_labels_flags_calibrations_and_blobs(store: Store) -> None:
    view = RunView(store, store.get_run("pst-a"))
    first = view.trials[0]
    assert view.subjects(first) == [
        Subject("left", {"identity": "carpenter", "stereotype": "masculine",
                         "occupation": "carpenter", "role": None, "power": None}),
        Subject("right", {"identity": "nurse", "stereotype": "feminine",
                          "occupation": "nurse", "role": None, "power": None}),
    ]  # fmt: skip
    labels = view.labels()
    assert all(isinstance(lab, SubjectLabel) for lab in labels) and len(labels) == 6
    assert {lab.kind for lab in labels} == {"human"}
    store.replace_flags("pst-a", [(0, "left", "annotator_abstained", {"annotators": ["x"]})])
    assert view.flags("annotator_abstained") == [
        {"trial_idx": 0, "position": "left", "reason": "annotator_abstained",
         "detail": {"annotators": ["x"]}}
    ]  # fmt: skip
    assert view.flags("person_count") == []
    assert view.latest_calibration("faces") is None
    saved = store.save_calibration("faces", "1", {"error_counts": {}})
    calibration = view.latest_calibration("faces")
    assert calibration is not None and calibration.id == saved.id
    sha = store.put_blob(b"an image")
    assert view.blob(sha) == b"an image"


def test_pst_compare_gives_compare_runs_in_its_data(store: Store) -> None:
    a, b = (RunView(store, store.get_run(r)) for r in ("pst-a", "pst-b"))
    result = PST().compare(a, b, n_boot=200, n_perm=200, seed=1)
    expected = compare_runs(a, b, n_boot=200, n_perm=200, seed=1)
    assert result.data["comparisons"] == expected
    (entry,) = result.data["comparisons"]
    assert (entry["model_a"], entry["aspect"], entry["intervention_b"]) == (
        "m1",
        "occupation",
        "pst-table5",
    )
    # The carpenter turns from +100 to −100 in both settings: the overall paired STS from 100
    # to 0 (2 of 4 persons flip), single likewise.
    overall, micro = result.tables
    assert [row[:4] for row in overall.rows] == [
        ["single", 100.0, 0.0, -100.0],
        ["paired", 100.0, 0.0, -100.0],
    ]
    carpenter = [row[:5] for row in micro.rows if row[0] == "carpenter"]
    assert carpenter == [
        ["carpenter", "single", 100.0, -100.0, -200.0],
        ["carpenter", "paired", 100.0, -100.0, -200.0],
    ]


def test_a_probe_that_compares_nothing_says_so(store: Store) -> None:
    view = RunView(store, store.get_run("pst-a"))
    with pytest.raises(UsageError, match="probe stories cannot compare runs"):
        Stories().compare(view, view)
    # pairs compares pairs runs only.
    with pytest.raises(UsageError, match="is a 'pst' run; diptych compare takes two pairs runs"):
        Pairs().compare(view, view)
