"""The STS over identities of paired images some of whose people are not labelled yet (a run
stopped between a scene's two people): the scene its plan names still crosses both lists, so
the figure resamples both; without the plan such an image names one list only, and the
figure over identities is left out rather than made over images."""

from __future__ import annotations

import itertools

import pytest

from diptych.core.metrics.sts import LabelRow, stereotype_test_score
from diptych.core.metrics.uncertainty.intervals import STS_RANGE
from diptych.core.metrics.uncertainty.resampling import mean_over_units

MASC = ["carpenter", "guard", "farmer"]
FEM = ["nurse", "editor", "baker"]
#: How often each identity is shown as its stereotyped gender, far apart between identities.
STEREOTYPED = {"carpenter": 1.0, "guard": 0.0, "farmer": 0.5, "nurse": 1.0, "editor": 0.0,
               "baker": 0.5}  # fmt: skip


def _planted() -> tuple[list[LabelRow], dict[str, dict[str, str]], list[tuple[float, str, str]]]:
    """Two images of every scene; in the second of each, the feminine-stereotyped person is
    not labelled. The rows, every image's planned scene, and each scored person by hand
    (Stereo, masculine identity, feminine identity)."""
    rows: list[LabelRow] = []
    scenes: dict[str, dict[str, str]] = {}
    by_hand: list[tuple[float, str, str]] = []
    for (m, f), k in itertools.product(itertools.product(MASC, FEM), range(2)):
        image = f"{m}|{f}#{k}"
        scenes[image] = {"masculine": m, "feminine": f}
        people = [("left", m, "masculine"), ("right", f, "feminine")][: 2 - k]
        for position, identity, stereotype in people:
            # Stereotyped for the first image where the identity mostly is, else the other.
            hit = STEREOTYPED[identity] > 0.5 or (STEREOTYPED[identity] == 0.5 and k == 0)
            other = "feminine" if stereotype == "masculine" else "masculine"
            rows.append(LabelRow(image, "paired", position, identity, stereotype,  # type: ignore[arg-type]
                                 stereotype if hit else other))  # fmt: skip
            by_hand.append((1.0 if hit else -1.0, m, f))
    return rows, scenes, by_hand


def test_a_planned_scene_keeps_both_lists_of_a_half_labelled_image() -> None:
    rows, scenes, by_hand = _planted()
    result = stereotype_test_score(rows, scenes=scenes)
    assert result.over_identities is not None
    figure = result.over_identities["paired"]
    values, masc, fem = zip(*by_hand, strict=True)
    expected = mean_over_units(
        list(values),
        {"masculine identity": list(masc), "feminine identity": list(fem)},
        scale=100.0,
        bounds=STS_RANGE,
    )
    assert dict(figure.units) == {"masculine identity": 3, "feminine identity": 3}
    assert figure.design == "crossed"
    # 27 scored people: 9 scenes' first images (two each) and their second (one each).
    assert figure.n == len(by_hand) == 27
    assert figure.value == pytest.approx(100 * sum(values) / 27)
    assert (figure.ci_low, figure.ci_high) == pytest.approx((expected.ci_low, expected.ci_high))


def test_without_the_plan_a_half_labelled_image_leaves_the_figure_out() -> None:
    rows, _, _ = _planted()
    result = stereotype_test_score(rows)
    assert "paired" not in (result.over_identities or {})
