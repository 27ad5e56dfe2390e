"""The spread a plan reads off an earlier pst-text run counts every drawn label its figure
counts: a run stopped between a scene's two people (an audit's early look) has draws with one
person labelled, and that person still sits in the scene its trial planned, both lists crossed."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.engine import run_probe
from diptych.core.labels import SubjectLabel
from diptych.core.metrics.sts import stereotype_test_score
from diptych.core.metrics.uncertainty.precision import components_of
from diptych.core.plugins import get_probe
from diptych.core.runview import RunView
from diptych.core.store import open_store
from diptych.plugins.probes._paired_stereotype_test.scoring import sts_row
from diptych.plugins.probes.pst_text.analysis import planned_scenes
from diptych.testing import ScriptedLikelihood, ScriptedParams

MASC = {"carpenter": 0.05, "sheriff": 0.6, "janitor": 0.3}
FEM = {"nurse": 0.95, "editor": 0.4, "housekeeper": 0.7}
DRAWN = "STS paired (drawn labels)"


class _StoppedEarly(RunView):
    """The run as an early look left it: in every other paired draw only the
    masculine-stereotyped person is labelled."""

    def labels(self, *args: object, **kwargs: object) -> list[SubjectLabel]:
        found = super().labels(*args, **kwargs)  # type: ignore[arg-type]
        draws = sorted({lab.trial_meta["image"] for lab in found
                        if lab.trial_meta["setting"] == "paired"})  # fmt: skip
        halved = set(draws[::2])
        return [lab for lab in found
                if lab.trial_meta["image"] not in halved
                or lab.subject_meta["stereotype"] == "masculine"]  # fmt: skip


def test_a_half_labelled_scene_keeps_its_people_in_the_plans_spread(tmp_path: Path) -> None:
    params = {"masculine": list(MASC), "feminine": list(FEM), "setting": "paired",
              "samples_paired": 4}  # fmt: skip
    model = ScriptedLikelihood(ScriptedParams(p_feminine={**MASC, **FEM}))
    with open_store(tmp_path / "ws") as store:
        run = run_probe(store, "pst-text", [model], probe_params=params)
        view = _StoppedEarly(store, run)
        labels = view.labels()
        observed = get_probe("pst-text", params).observed_components(view)[DRAWN]
    # By hand: each label's Stereo (±100) in the scene its trial names (id1, id2).
    values, masc, fem, draws = [], [], [], set()
    for lab in labels:
        if lab.label not in ("masculine", "feminine"):
            continue
        values.append(100.0 if lab.label == lab.subject_meta["stereotype"] else -100.0)
        scene = (lab.trial_meta["id1"], lab.trial_meta["id2"])
        masc.append(next(i for i in scene if i in MASC))
        fem.append(next(i for i in scene if i in FEM))
        draws.add(lab.trial_meta["image"])
    # 9 scenes × 2 orders × 4 samples = 72 draws, half of them with one person labelled.
    assert len(draws) == 72 and len(values) == 72 + 36
    expected = components_of(values, {"masculine identity": masc, "feminine identity": fem})
    got = (observed.rows, observed.cols, observed.interaction, observed.within, observed.centre)
    want = (expected.rows, expected.cols, expected.interaction, expected.within, expected.centre)
    assert got == pytest.approx(want)
    assert observed.source.endswith(", 108 answers in 72 draws"), observed.source
    # The figure's own scorer, on the same scenes, counts the same people.
    figure = stereotype_test_score([sts_row(lab) for lab in labels], unit="draw",
                                   scenes=planned_scenes(labels))  # fmt: skip
    assert figure.over_identities is not None
    assert figure.over_identities["paired"].n == len(values)
    assert figure.over_identities["paired"].value == pytest.approx(observed.centre)
