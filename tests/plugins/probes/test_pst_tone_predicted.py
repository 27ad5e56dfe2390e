"""Prediction-powered tone figures of a stored ``pst`` run: the ``skin-tone`` annotator reads
every masculine-stereotyped person one step too dark; people's tone labels of a designed sample
take the step out, and a reviewer's chosen labels never do."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from support.figure_names import undeclared
from support.pst_runs import Image, Person, store_pst_run

from diptych.core.labels import TONE, Label, Sampling
from diptych.core.probe import ProbeResult
from diptych.core.store import Store
from diptych.plugins.probes.pst.analysis import analyze_pst
from diptych.plugins.probes.pst.params import PSTParams
from diptych.plugins.probes.pst.probe import PST

# People's reading of each identity's tone; the annotator adds a step to the masculine-
# stereotyped ones (a beard's shadow read as skin).
TONE_OF = {"carpenter": 6, "sheriff": 4, "nurse": 3, "editor": 5}
STEREOTYPE = {"carpenter": "masculine", "sheriff": "masculine", "nurse": "feminine",
              "editor": "feminine"}  # fmt: skip
GAP = "occupation: tone gap paired"


def _person(position: str, identity: str) -> Person:
    read = TONE_OF[identity] + (STEREOTYPE[identity] == "masculine")
    gender = {"human:a": STEREOTYPE[identity]}
    return Person(
        position, identity, STEREOTYPE[identity], gender, tones={"skin-tone": f"monk-{read}"}
    )


def _images() -> list[Image]:
    images = []
    for m in ("carpenter", "sheriff"):
        for f in ("nurse", "editor"):
            for left, right in ((m, f), (f, m)):
                persons = [_person("left", left), _person("right", right)]
                images.append(Image(f"{left}-{right}", "paired", persons))
    for identity in TONE_OF:
        for k in range(3):
            images.append(Image(f"{identity}-{k}", "single", [_person("single", identity)]))
    return images


def _analysed(root: Path, sampling: Callable[[int], Sampling | None]) -> ProbeResult:
    """The run with people's tone label of every person, each person ``i`` (in the order of
    the run's subjects) drawn by ``sampling(i)``."""
    probe = SimpleNamespace(
        name="pst", p=SimpleNamespace(seed=0, min_cell=4, tone_reference="uniform")
    )
    with Store(root) as store:
        view = store_pst_run(store, "pst-tone", _images())
        rows = store.subjects_missing_label("pst-tone", "nobody")
        step = {(t.idx, s.position): TONE_OF[s.meta["identity"]] for t in view.trials
                for s in view.subjects(t)}  # fmt: skip
        store.save_annotations(
            (row["subject_id"], "human:r",
             Label(row["position"], f"monk-{step[(row['trial_idx'], row['position'])]}",
                   sampling=sampling(i), dimension=TONE))
            for i, row in enumerate(rows)
        )  # fmt: skip
        return analyze_pst(probe, view)


def test_a_census_of_peoples_tones_gives_their_gap_and_shares(tmp_path: Path) -> None:
    result = _analysed(tmp_path, lambda i: Sampling("census"))
    # The annotator's gap would be (5 + 1) − 4 = 2 steps; people's, over every person of
    # the paired images, mean(6, 4) − mean(3, 5) = 1 step. A census is everyone labelled:
    # the corrected figure is people's exactly.
    gap = result.numbers[f"{GAP}, prediction-powered"]
    assert gap["value"] == pytest.approx(1.0, abs=1e-12)
    assert gap["n_labelled"] == 16 and gap["unit"] == "Monk steps"
    assert gap["annotator"] == "skin-tone"
    # Single images: persons 6, 4, 3, 5 three times each; Monk 1–3 holds the nurse's 3 of 12.
    light = result.numbers["occupation: tone share Monk 1–3, single, prediction-powered"]
    assert light["value"] == pytest.approx(3 / 12, abs=1e-12)
    table = next(t for t in result.tables if t.title.startswith("Prediction-powered skin tone"))
    assert [r[1] for r in table.rows][:2] == ["tone gap paired", "tone share Monk 1–3"]
    assert "Tone labels a reviewer chose are not used" in (table.note or "")


def test_a_uniform_draw_moves_the_annotators_gap_towards_peoples(tmp_path: Path) -> None:
    # Half of the persons drawn with probability 1/2 (every other one).
    result = _analysed(tmp_path, lambda i: Sampling("uniform", 0.5, "d1") if i % 2 == 0 else None)
    gap = result.numbers[f"{GAP}, prediction-powered"]
    assert gap["n_labelled"] == 8 and gap["by_design"] == {"uniform": 8}
    assert abs(gap["value"] - 1.0) < abs(gap["value"] - 2.0)
    assert gap["ci_low"] <= 1.0 <= gap["ci_high"]


def test_a_reviewers_chosen_tone_labels_give_no_corrected_figure(tmp_path: Path) -> None:
    result = _analysed(tmp_path, lambda i: None)
    assert not [n for n in result.numbers if n.endswith("prediction-powered") and "tone" in n]
    # They are people's labels all the same: the label policy's gap is theirs.
    assert result.numbers[GAP]["value"] == pytest.approx(1.0)


def test_every_corrected_tone_number_is_declared_for_gates(tmp_path: Path) -> None:
    result = _analysed(tmp_path, lambda i: Sampling("census"))
    params = PSTParams(aspects=["occupation"], masculine=["carpenter", "sheriff"],
                       feminine=["nurse", "editor"])  # fmt: skip
    declared = PST(params).figure_names()
    assert declared is not None
    corrected = [n for n in result.numbers if "tone" in n and "prediction-powered" in n]
    assert len(corrected) == 1 + 3 * 2
    assert undeclared(declared, corrected) == []
