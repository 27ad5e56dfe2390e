"""Labels written beside a figure's points never cover each other (the PST paper's Figure 4
names each occupation beside its point; two occupations often share one)."""

from __future__ import annotations

import io
from itertools import combinations

from matplotlib.text import Text
from PIL import Image as PILImage

from diptych.core.metrics.sts.score import MicroSTS
from diptych.plugins._figures import new_figure, place_labels, png
from diptych.plugins.probes.pst.figures import figure_4


def test_labels_at_one_point_and_nearby_are_all_readable() -> None:
    fig = new_figure(6.4, 6.0)
    ax = fig.add_subplot()
    ax.set_xlim(-2, 102)
    ax.set_ylim(-2, 102)
    # Three occupations at one point, one a hair away, one alone.
    points = [
        ("nurse", 90.0, 100.0),
        ("receptionist", 90.0, 100.0),
        ("secretary", 90.0, 100.0),
        ("hairdresser", 91.0, 99.0),
        ("carpenter", 2.0, 0.0),
    ]
    notes = place_labels(ax, points)
    assert [n.get_text() for n in notes] == [p[0] for p in points]
    png(fig)  # the drawing as written, then the boxes as drawn
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    boxes = [Text.get_window_extent(n, renderer) for n in notes]
    for a, b in combinations(range(len(boxes)), 2):
        assert not boxes[a].overlaps(boxes[b]), (points[a][0], points[b][0])
    # The label alone stays where it was put: beside its own point, not moved.
    assert notes[-1].xyann == (3, 2) and notes[0].xyann == (3, 2)
    assert {n.xyann[1] for n in notes[1:4]} != {2}


def test_figure_4_draws_with_occupations_sharing_a_point() -> None:
    def micro(identity: str, stereotype: str, pct: float) -> MicroSTS:
        sts = pct - 50.0 if stereotype == "feminine" else 50.0 - pct
        return MicroSTS(identity, stereotype, None, sts * 2, None, None, pct, 0, 4)  # type: ignore[arg-type]

    sts = type("S", (), {})()
    sts.micro = {
        m.identity: m
        for m in (
            micro("nurse", "feminine", 100.0),
            micro("receptionist", "feminine", 100.0),
            micro("carpenter", "masculine", 0.0),
        )
    }
    figure = figure_4(sts, {"nurse": 90.0, "receptionist": 90.0, "carpenter": 2.0}, "", "x")
    assert figure is not None
    with PILImage.open(io.BytesIO(figure.png)) as image:
        assert image.format == "PNG" and image.width > 300
    assert "nurse (feminine): statistics 90" in figure.alt
    assert "receptionist (feminine): statistics 90" in figure.alt
