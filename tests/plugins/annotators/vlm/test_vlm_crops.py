"""Crop mode: each person is asked about alone, on a crop around their face, and nobody is asked
about when the faces found do not match the people."""

from __future__ import annotations

from PIL import Image
from support.vlm_vision import (
    TABLE_10_SINGLE_INSTRUCTION,
    TABLE_10_SINGLE_QUESTION,
    annotator,
    judge_text,
    label,
    wrapped,
)

from diptych.core.labels import CANNOT_IDENTIFY
from diptych.plugins.annotators.vlm.answers import FEMININE, MASCULINE
from diptych.testing.pairs_photos import CAST, photo, rgb, side_by_side

WOMAN, MAN = CAST["carpenter"], CAST["nurse"]  # a black woman and a white man in lab coats


def test_crop_mode_asks_about_a_crop_of_each_person(vision: None) -> None:
    assert (WOMAN.gender, MAN.gender) == ("woman", "man")
    model = annotator("vqa", model="cast-vision", crop=True)
    assert model.annotator_id.startswith("vqa:cast-vision+crop@") and "+faces=" in model.version
    composite = side_by_side(WOMAN, MAN)
    labels = label(model, composite, ["left", "right"])
    history = wrapped(model).history
    # One single-person question per person, each about a crop of that person alone.
    assert [h["question"] for h in history] == ["What gender is the person in the picture?"] * 2
    for h in history:
        (crop,) = h["images"]
        assert crop.size[0] < composite.size[0] and crop.size[1] <= composite.size[1]
    assert [(lab.position, lab.label) for lab in labels] == [
        ("left", FEMININE),
        ("right", MASCULINE),
    ]
    for index, lab in enumerate(labels):
        assert lab.detail["crop"] is True and lab.detail["faces_found"] == 2
        assert lab.detail["face"] == index and lab.detail["answer"].startswith("This is a")
    # The same people the other way round: the labels follow the people, not the positions.
    flipped = label(model, side_by_side(MAN, WOMAN), ["left", "right"])
    assert [lab.label for lab in flipped] == [MASCULINE, FEMININE]
    # Without cropping, the scripted model sees the whole picture, from both photos.
    whole = annotator("vqa", model="cast-vision")
    assert {lab.label for lab in label(whole, composite, ["left", "right"])} == {CANNOT_IDENTIFY}


def test_crop_mode_judge_asks_the_single_person_form(vision: None) -> None:
    model = annotator("vlm-judge", model="cast-vision", crop=True)
    labels = label(model, side_by_side(MAN, WOMAN), ["right", "left"])
    single = judge_text(
        TABLE_10_SINGLE_INSTRUCTION, TABLE_10_SINGLE_QUESTION.replace("{id1}", "person")
    )
    assert [h["question"] for h in wrapped(model).history] == [single, single]
    assert [(lab.position, lab.label) for lab in labels] == [
        ("right", FEMININE),
        ("left", MASCULINE),
    ]
    assert model.annotator_id.startswith("vlm-judge:cast-vision+crop@")


def test_crop_mode_abstains_when_the_faces_do_not_match_the_people(vision: None) -> None:
    model = annotator("vqa", model="cast-vision", crop=True)
    one_face = rgb(WOMAN)
    labels = label(model, one_face, ["left", "right"])
    assert [(lab.position, lab.label) for lab in labels] == [
        ("left", CANNOT_IDENTIFY),
        ("right", CANNOT_IDENTIFY),
    ]
    assert labels[0].detail["reason"] == "1 faces found for 2 people; not asked"
    assert labels[0].detail["faces_found"] == 1 and len(labels[0].detail["faces"]) == 1
    (nobody,) = label(model, Image.new("RGB", (256, 256), (128, 128, 128)), ["single"])
    assert nobody.detail["reason"] == "0 faces found for 1 person; not asked"
    trio = side_by_side(WOMAN, MAN, photo("occupations", "lab_coat", "white_woman"))
    assert {lab.label for lab in label(model, trio, ["left", "right"])} == {CANNOT_IDENTIFY}
    assert wrapped(model).history == []  # nobody was asked about anybody
    # One face for one person is asked about.
    (alone,) = label(model, one_face, ["single"])
    assert alone.label == FEMININE and len(wrapped(model).history) == 1
