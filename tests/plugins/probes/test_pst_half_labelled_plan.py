"""The spread a plan reads off an earlier ``pst`` run counts every labelled person of a paired
image: an image whose annotators labelled one of its two people still crosses both identity
lists, the other identity named by the subject its trial planned."""

from __future__ import annotations

import itertools

import pytest
from support.pst_runs import Image, Person, store_pst_run

from diptych.core.metrics.uncertainty.precision import components_of
from diptych.core.plugins import get_probe
from diptych.core.store import Store

MASC = ["carpenter", "farmer", "guard"]
FEM = ["nurse", "editor", "clerk"]
#: The label the faces annotator gives each identity's person: a spread on both lists.
SEEN = {"carpenter": "masculine", "farmer": "feminine", "guard": "masculine",
        "nurse": "feminine", "editor": "feminine", "clerk": "masculine"}  # fmt: skip
STEREOTYPE = dict.fromkeys(MASC, "masculine") | dict.fromkeys(FEM, "feminine")


def _person(position: str, identity: str, labelled: bool) -> Person:
    labels = {"faces": SEEN[identity]} if labelled else {}
    return Person(position, identity, STEREOTYPE[identity], labels)


def test_a_half_labelled_image_keeps_its_person_in_the_plans_spread(store: Store) -> None:
    images: list[Image] = []
    # Every scene in both orders; in its "fm" image the right (masculine) person has no label.
    for m, f in itertools.product(MASC, FEM):
        for order, (left, right) in (("mf", (m, f)), ("fm", (f, m))):
            persons = [_person("left", left, True), _person("right", right, order == "mf")]
            images.append(Image(f"p-{left}--{right}", "paired", persons))
    view = store_pst_run(store, "pst-half", images)
    observed = get_probe("pst", {}).observed_components(view)["occupation: STS paired"]
    # By hand: each labelled person's Stereo (±100) in the scene its image was asked for.
    values, masc, fem = [], [], []
    for image in images:
        scene = [p.identity for p in image.persons]
        for person in image.persons:
            if person.labels:
                values.append(100.0 if SEEN[person.identity] == person.stereotype else -100.0)
                masc.append(next(i for i in scene if i in MASC))
                fem.append(next(i for i in scene if i in FEM))
    # 9 scenes × 2 orders = 18 images, 9 of them with one person labelled.
    assert len(images) == 18 and len(values) == 18 + 9
    expected = components_of(values, {"masculine identity": masc, "feminine identity": fem})
    got = (observed.rows, observed.cols, observed.interaction, observed.within, observed.centre)
    want = (expected.rows, expected.cols, expected.interaction, expected.within, expected.centre)
    assert got == pytest.approx(want)
    assert observed.source == "run pst-half (m1), 27 persons", observed.source
