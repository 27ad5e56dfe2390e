"""The ``skin-tone`` annotator: faces painted a known colour read as that Monk swatch, the
sampled regions stay clear of eyes, brows, nostrils and lips, and it abstains with its reason."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator

import numpy as np
import pytest
from skimage.color import deltaE_ciede2000, rgb2lab

from diptych.core import plugins
from diptych.core.annotation import annotate_run, annotator_id
from diptych.core.engine import run_probe
from diptych.core.labels import TONE
from diptych.core.store import Store
from diptych.plugins.annotators import skin_tone
from diptych.plugins.annotators._people import detect
from diptych.plugins.annotators.skin_tone import SkinToneAnnotator
from diptych.plugins.annotators.skin_tone.reading import (
    MONK_HEX,
    FaceFrame,
    image_light,
    monk_lab,
    monk_rgb,
    read_tone,
    region_masks,
)
from diptych.testing.pairs_photos import LAB_COAT, PairsPainter, photo, rgb, side_by_side
from diptych.testing.tone_checks import face_ellipse, retone, skin_rule, whole_image_tone

# A face drawn on a 200×200 canvas: eye corners and the nose base as dlib's 5 points give them.
EYES = ((120.0, 80.0), (110.0, 80.0), (80.0, 80.0), (90.0, 80.0))
NOSE = (100.0, 110.0)
POINTS = (*EYES, NOSE)  # eye centres 115 and 85 (d = 30); nose 30 below the eye line (h = 30)
BACKDROP = (110, 110, 110)  # a grey wall under a green band: colour in the picture, no cast


def canvas(face_rgb: tuple[int, int, int]) -> np.ndarray:
    pixels = np.zeros((200, 200, 3), np.uint8)
    pixels[:] = BACKDROP
    pixels[:12] = (40, 120, 60)
    rows, cols = np.mgrid[0:200, 0:200]
    face = ((cols - 100) / 45.0) ** 2 + ((rows - 100) / 65.0) ** 2 <= 1
    pixels[face] = face_rgb
    return pixels


def test_the_swatches_are_the_published_ones() -> None:
    assert MONK_HEX[0] == "#f6ede4" and MONK_HEX[-1] == "#292420"
    assert monk_rgb()[5].tolist() == [0xA0, 0x7E, 0x56]
    # Lighter to darker: L* falls along the scale, but for monk-3, a yellower monk-2 (b* 14 vs 7).
    lightness = monk_lab()[:, 0]
    assert list(np.argsort(-lightness)) == [0, 2, 1, *range(3, 10)]
    assert lightness[0] == pytest.approx(94.21, abs=0.01) and monk_lab()[2, 2] > 14


def test_the_face_frame_from_five_points() -> None:
    frame = FaceFrame.from_landmarks(POINTS)
    assert frame is not None
    assert (frame.d, frame.h) == (30.0, 30.0)
    assert frame.origin == (100.0, 80.0) and frame.across == (1.0, 0.0)
    assert frame.down == (-0.0, 1.0) or frame.down == (0.0, 1.0)
    # The left cheek's corners: 0.72 d left of the midline, 0.45 h below the eye line.
    assert frame.point(-0.72, 0.45) == pytest.approx((100 - 21.6, 80 + 13.5))
    # Eyes on top of the nose (a profile, a failed fit) make no frame.
    assert FaceFrame.from_landmarks((*EYES, (100.0, 82.0))) is None


@pytest.mark.parametrize("step", range(1, 11))
def test_a_face_of_a_swatch_reads_as_that_swatch(step: int) -> None:
    colour = tuple(int(v) for v in monk_rgb()[step - 1])
    pixels = canvas(colour)  # type: ignore[arg-type]
    reading = read_tone(pixels, POINTS, image_light(pixels))
    assert reading.label == f"monk-{step}"
    lab = rgb2lab(np.array([[colour]], float) / 255.0)[0, 0]
    assert reading.detail["lab"] == pytest.approx(lab.tolist(), abs=0.006)
    assert reading.detail["delta_e"][f"monk-{step}"] == pytest.approx(0.0, abs=0.01)
    ita = math.degrees(math.atan2(lab[0] - 50, lab[2]))
    assert reading.detail["ita"] == pytest.approx(ita, abs=0.006)
    # One colour, no spread: the nearest swatch is certain.
    assert reading.confidence == 1.0 and reading.detail["uncertainty"] == 0.0
    others = sorted(deltaE_ciede2000(lab, monk_lab()[k]) for k in range(10) if k != step - 1)
    assert reading.detail["margin"] == pytest.approx(others[0], abs=0.01)


def test_eyes_brows_nostrils_lips_and_beard_are_not_sampled() -> None:
    colour = tuple(int(v) for v in monk_rgb()[6])
    plain = canvas(colour)  # type: ignore[arg-type]
    painted = plain.copy()
    rows, cols = np.mgrid[0:200, 0:200]
    for (x0, y0), (x1, y1) in ((EYES[0], EYES[1]), (EYES[2], EYES[3])):
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        painted[((cols - cx) / 8) ** 2 + ((rows - cy) / 4) ** 2 <= 1] = (250, 250, 250)  # eyes
        painted[(np.abs(cols - cx) <= 10) & (rows >= 67) & (rows <= 72)] = (20, 15, 10)  # brows
    painted[((cols - 100) / 9) ** 2 + ((rows - 110) / 4) ** 2 <= 1] = (10, 5, 5)  # nostrils
    painted[((cols - 100) / 14) ** 2 + ((rows - 122) / 5) ** 2 <= 1] = (170, 30, 60)  # lips
    painted[(rows >= 125) & (np.abs(cols - 100) <= 40)] = (30, 25, 20)  # beard
    masks = region_masks(FaceFrame.from_landmarks(POINTS), plain.shape[:2])  # type: ignore[arg-type]
    anywhere = np.any(list(masks.values()), axis=0)
    assert not (anywhere & np.any(painted != plain, axis=2)).any()
    first, second = (read_tone(p, POINTS, image_light(p)) for p in (plain, painted))
    assert (first.label, first.detail["lab"]) == (second.label, second.detail["lab"])
    assert set(first.detail["regions"]) == {"cheek_left", "cheek_right", "forehead"}


def test_the_confidence_is_the_normal_chance_the_margin_holds() -> None:
    # Two tones on the two cheeks and the forehead: the regions disagree.
    pixels = canvas((160, 126, 86))
    frame = FaceFrame.from_landmarks(POINTS)
    assert frame is not None
    masks = region_masks(frame, pixels.shape[:2])
    pixels[masks["cheek_right"]] = (130, 92, 67)
    reading = read_tone(pixels, POINTS, image_light(pixels))
    d = reading.detail
    expected = 0.5 * (1 + math.erf(d["margin"] / (2 * d["uncertainty"]) / math.sqrt(2)))
    assert reading.confidence == pytest.approx(expected, abs=1e-3)
    assert 0.5 <= reading.confidence < 1.0  # type: ignore[operator]


def test_abstentions_say_why() -> None:
    grey = np.repeat(canvas((128, 100, 80)).mean(axis=2, keepdims=True), 3, 2).astype(np.uint8)
    assert "grey image" in read_tone(grey, POINTS, image_light(grey)).detail["reason"]
    cast = canvas((160, 126, 86))
    cast[:, :, 2] //= 4
    cast[:, :, 0] = np.maximum(cast[:, :, 0], 200)
    reading = read_tone(cast, POINTS, image_light(cast))
    assert reading.label == "cannot_identify" and "colour cast" in reading.detail["reason"]
    blown = canvas((255, 255, 255))
    reading = read_tone(blown, POINTS, image_light(blown))
    assert "exposure clipped" in reading.detail["reason"] and reading.detail["clipped"] == 1.0
    # A face a tenth the size: the regions hold too few pixels.
    tiny = tuple((x / 10 + 90, y / 10 + 90) for x, y in POINTS)
    pixels = canvas((160, 126, 86))
    reading = read_tone(pixels, tiny, image_light(pixels))
    assert reading.label == "cannot_identify" and "too few skin pixels" in reading.detail["reason"]
    assert reading.confidence is None


# --- the check pictures and the peers' rule ---------------------------------------------------


def test_retone_moves_the_face_only_and_hits_the_target() -> None:
    pixels = np.asarray(rgb(photo(*LAB_COAT, "white_man")))
    (face,) = detect(pixels).faces
    box = (face.x0, face.y0, face.x1, face.y1)
    target = monk_rgb()[7]
    out = retone(pixels, box, target)
    weight = face_ellipse(pixels.shape[:2], box)
    assert (out[weight == 0] == pixels[weight == 0]).all()
    core = rgb2lab(out[weight >= 1].astype(float)[None] / 255.0)[0]
    kept = core[core[:, 0] >= np.percentile(core[:, 0], 25)]
    goal = rgb2lab(target[None, None].astype(float) / 255.0)[0, 0]
    # uint8 rounding moves a colour by under 0.5 ΔE; the median by as little.
    assert deltaE_ciede2000(np.median(kept, axis=0), goal) < 1.0


def test_the_peers_skin_rule_and_nearest_swatch() -> None:
    # (200, 120, 90): Y 140, Cr 171, Cb 100 in OpenCV's YCrCb; every inequality holds.
    assert skin_rule(np.array([[[200, 120, 90]]], np.uint8))[0, 0]
    for not_skin in ((90, 120, 200), (246, 237, 228), (120, 110, 100)):
        assert not skin_rule(np.array([[not_skin]], np.uint8))[0, 0], not_skin
    # L1 to monk-6 (160, 126, 86) is 40 + 6 + 4 = 50, to monk-7 121, to monk-5 144.
    assert whole_image_tone(np.full((4, 4, 3), (200, 120, 90), np.uint8)) == 6
    assert whole_image_tone(np.full((4, 4, 3), (90, 120, 200), np.uint8)) is None


# --- the annotator ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def annotator() -> SkinToneAnnotator:
    model = SkinToneAnnotator()
    model.load()
    return model


def test_two_people_are_read_left_to_right(annotator: SkinToneAnnotator) -> None:
    woman, man = photo(*LAB_COAT, "black_woman"), photo(*LAB_COAT, "white_man")
    light, dark = (np.asarray(rgb(p)) for p in (woman, man))
    faces = [detect(p).faces[0] for p in (light, dark)]
    light = retone(light, (faces[0].x0, faces[0].y0, faces[0].x1, faces[0].y1), monk_rgb()[1])
    dark = retone(dark, (faces[1].x0, faces[1].y0, faces[1].x1, faces[1].y1), monk_rgb()[8])
    picture = np.concatenate([light, dark], axis=1)
    labels = asyncio.run(annotator.annotate(picture, ["right", "left"]))
    assert [lab.position for lab in labels] == ["right", "left"]
    assert all(lab.dimension == TONE for lab in labels)
    right, left = (int(lab.label.removeprefix("monk-")) for lab in labels)
    assert abs(left - 2) <= 1 and abs(right - 9) <= 1
    for lab in labels:
        assert set(SkinToneAnnotator.tone_detail_keys) <= set(lab.detail)
        assert lab.detail["faces_found"] == 2
    assert labels[1].detail["box"][2] <= 256 <= labels[0].detail["box"][0]


def test_a_missing_face_abstains_for_everyone(annotator: SkinToneAnnotator) -> None:
    picture = side_by_side(photo(*LAB_COAT, "black_woman"))
    labels = asyncio.run(annotator.annotate(picture, ["left", "right"]))
    assert [lab.label for lab in labels] == ["cannot_identify"] * 2
    assert labels[0].detail["reason"] == "1 faces found for 2 people"


@pytest.fixture
def tone_plugin() -> Iterator[None]:
    """``skin-tone`` through its entry point when the package metadata has one, else by hand."""
    if "skin-tone" in plugins.load_plugins().annotators:
        yield
        return
    name = plugins.register_plugin(skin_tone, "skin-tone-under-test")
    yield
    plugins.unregister_plugin(name)


def test_annotation_stage_stores_tone_labels_beside_gender(
    scripted: None, tone_plugin: None, store: Store
) -> None:
    params = {"aspects": ["occupation"], "masculine": ["carpenter"], "feminine": ["nurse"]}
    run = run_probe(store, "pst", [PairsPainter()], probe_params=params)
    annotator = plugins.get_model("skin-tone")
    summary = annotate_run(store, run.id, annotator)
    assert (summary.images, summary.labels, summary.failed, summary.errors) == (8, 10, 0, [])
    name = annotator_id(annotator)
    assert store.labels(run.id, name) == []  # no gender label: gender readers see nothing
    tones = store.labels(run.id, name, dimension=TONE)
    assert len(tones) == 10 and all(t.dimension == TONE for t in tones)
    assert all(t.label.startswith("monk-") or t.label == "cannot_identify" for t in tones)
    assert annotate_run(store, run.id, plugins.get_model("skin-tone")).asked == 0
