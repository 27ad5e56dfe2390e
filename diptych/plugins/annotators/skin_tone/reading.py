"""Perceived skin tone of one face: where skin is sampled, how its colour is read, and when the
picture does not allow it. The ``skin-tone`` annotator
(:mod:`~diptych.plugins.annotators.skin_tone`) runs this on each face it finds.

1. **Regions.** From the 5 landmarks of dlib's bundled landmark model (the outer and inner
   corner of each eye, the base of the nose) a face frame is built: the eye line, the distance
   ``d`` between the eye centres across, the distance ``h`` from the eye line down to the nose
   base. Skin is sampled in three quadrilaterals of that frame: each cheek (0.32 to 0.72 ``d``
   beside the face's midline, 0.45 to 0.95 ``h`` below the eye line: under the lower lid, above
   the nostrils and the mouth, beside the nose) and the forehead (within 0.40 ``d`` of the
   midline, 0.80 to 1.10 ``h`` above the eye line: above the brows, below most hairlines). Eyes,
   brows, nostrils and lips lie outside them by construction; a beard below the nose base does
   too. (dlib's 68-point model would outline these parts; it is not bundled, the 5-point one is.)
2. **Pixels.** Clipped pixels (every channel at 250 or more, or every channel at 5 or less) are
   left out and counted; of the rest, those outside the 10th to 90th percentile of L* (a stray
   hair, a brow edge, a specular highlight, a shadow) are trimmed.
3. **Colour.** sRGB → CIELAB (D65) by scikit-image; the tone's colour is the per-channel median
   of L*, a*, b* over the kept pixels. ITA° = atan2(L* − 50, b*) · 180/π (Chardon et al. 1991).
   The label is the Monk swatch nearest by CIEDE2000 (scikit-image ``deltaE_ciede2000``).
4. **Confidence.** How sure the nearest swatch is, given how far the colour could move: the
   standard error of the median colour (1.2533 σ/√n per channel, σ by the median absolute
   deviation) combined with the spread between the three regions' own medians (light falling
   on one side of a face). With ``s`` that uncertainty in ΔE00 and ``m`` the margin between the
   two nearest swatches, the confidence is Φ(m / 2s): 0.5 when the colour sits halfway, near 1
   when the margin is many times the uncertainty.
5. **Abstentions** (``cannot_identify`` with its ``reason``): fewer than ``min_skin_pixels``
   skin pixels kept; more than ``max_clipped`` of the regions' pixels clipped (over- or
   under-exposed); a grey image (99% of its pixels within chroma 3 of grey: no colour to read);
   a strong colour cast (the image's mean colour, the grey-world estimate of its light, farther
   than ``max_cast`` in C*ab from grey).

The Monk Skin Tone swatches are the sRGB values published with the scale by Google
(https://skintone.google/get-started; Monk, "The Monk Skin Tone Scale", 2019/2023), the same
values HEIM and DALL-Eval use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from diptych.core.digits import figure_text, level_text, percent_text

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: The Monk Skin Tone scale's swatches, monk-1 (lightest) to monk-10, as published (sRGB).
MONK_HEX = (
    "#f6ede4", "#f3e7db", "#f7ead0", "#eadaba", "#d7bd96",
    "#a07e56", "#825c43", "#604134", "#3a312a", "#292420",
)  # fmt: skip
MONK_SOURCE = "https://skintone.google/get-started (Monk Skin Tone scale, Google 2022)"

# Defaults of the annotator's parameters (module docstring).
MIN_SKIN_PIXELS = 40
MAX_CLIPPED = 0.25
MAX_CAST = 20.0
GREY_CHROMA = 3.0
#: A pixel is clipped when all its channels are at HIGH_CLIP or more (blown out to white) or all
#: at LOW_CLIP or less (crushed to black); one saturated channel alone is a bright, vivid skin.
HIGH_CLIP, LOW_CLIP = 250, 5
#: The L* percentiles kept of a region's pixels.
TRIM = (10.0, 90.0)

# The regions in the face frame: (x from, x to) in d beside the midline (negative: towards
# the image's left), (y from, y to) in h below the eye line (negative: above).
REGIONS: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
    "cheek_left": ((-0.72, -0.32), (0.45, 0.95)),
    "cheek_right": ((0.32, 0.72), (0.45, 0.95)),
    "forehead": ((-0.40, 0.40), (-1.10, -0.80)),
}


def monk_rgb() -> NDArray[np.uint8]:
    """The ten swatches as a (10, 3) uint8 array."""
    import numpy as np

    return np.array([[int(h[i : i + 2], 16) for i in (1, 3, 5)] for h in MONK_HEX], np.uint8)


def monk_lab() -> NDArray[np.float64]:
    """The ten swatches in CIELAB (D65), a (10, 3) array."""
    from skimage.color import rgb2lab

    return rgb2lab(monk_rgb()[None, :, :].astype(float) / 255.0)[0]


@dataclass(frozen=True)
class FaceFrame:
    """Eye midpoint, unit vectors across (image left to right) and down the face, ``d``, ``h``."""

    origin: tuple[float, float]
    across: tuple[float, float]
    down: tuple[float, float]
    d: float
    h: float

    @classmethod
    def from_landmarks(cls, points: Any) -> FaceFrame | None:
        """The frame of dlib's 5 points (two per eye, then the nose base); None when they do
        not make a face seen from the front (a profile, a failed fit)."""
        if len(points) != 5:
            return None
        eyes = sorted(
            [
                ((points[0][0] + points[1][0]) / 2, (points[0][1] + points[1][1]) / 2),
                ((points[2][0] + points[3][0]) / 2, (points[2][1] + points[3][1]) / 2),
            ]
        )
        (lx, ly), (rx, ry) = eyes
        d = math.hypot(rx - lx, ry - ly)
        if d <= 0:
            return None
        across = ((rx - lx) / d, (ry - ly) / d)
        down = (-across[1], across[0])  # image y grows downwards
        origin = ((lx + rx) / 2, (ly + ry) / 2)
        nose = points[4]
        h = (nose[0] - origin[0]) * down[0] + (nose[1] - origin[1]) * down[1]
        # The nose base lies 0.6-0.9 d below the eye line in a frontal face.
        if not 0.4 * d <= h <= 1.3 * d:
            return None
        return cls(origin, across, down, d, h)

    def point(self, x: float, y: float) -> tuple[float, float]:
        """Image coordinates of (x d across, y h down) from the eye midpoint."""
        ox, oy = self.origin
        return (
            ox + x * self.d * self.across[0] + y * self.h * self.down[0],
            oy + x * self.d * self.across[1] + y * self.h * self.down[1],
        )


def region_masks(frame: FaceFrame, shape: tuple[int, int]) -> dict[str, NDArray[np.bool_]]:
    """Each region of :data:`REGIONS` as a boolean mask of an image of ``shape`` (rows, cols)."""
    import numpy as np
    from skimage.draw import polygon

    masks = {}
    for name, ((x0, x1), (y0, y1)) in REGIONS.items():
        corners = [frame.point(x, y) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
        rows, cols = polygon([c[1] for c in corners], [c[0] for c in corners], shape)
        mask = np.zeros(shape, bool)
        mask[rows, cols] = True
        masks[name] = mask
    return masks


@dataclass
class ToneReading:
    """One face's tone: the label (``monk-k`` or ``cannot_identify``), its confidence and what
    was measured (the label's ``detail``)."""

    label: str
    confidence: float | None
    detail: dict[str, Any] = field(default_factory=dict)


def image_light(pixels: NDArray[np.uint8]) -> dict[str, float]:
    """The whole image's grey-world colour cast (C*ab of its mean colour) and the 99th
    percentile of its pixels' chroma (a grey image has none)."""
    import numpy as np
    from skimage.color import rgb2lab

    flat = pixels.reshape(-1, 3)
    # 4096 pixels, evenly strided, tell grey from colour as well as all of them would.
    step = max(1, flat.shape[0] // 4096)
    lab = rgb2lab(flat[::step][None, :, :].astype(float) / 255.0)[0]
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    mean = rgb2lab(flat.mean(axis=0)[None, None, :] / 255.0)[0, 0]
    return {
        "cast": float(math.hypot(mean[1], mean[2])),
        "chroma_p99": float(np.percentile(chroma, 99)),
    }


def read_tone(
    pixels: NDArray[np.uint8],
    landmarks: Any,
    light: dict[str, float],
    *,
    min_skin_pixels: int = MIN_SKIN_PIXELS,
    max_clipped: float = MAX_CLIPPED,
    max_cast: float = MAX_CAST,
) -> ToneReading:
    """The tone of the face whose 5 ``landmarks`` are given, in the RGB image ``pixels``
    (module docstring); ``light`` is :func:`image_light` of the whole image."""
    import numpy as np
    from skimage.color import deltaE_ciede2000, rgb2lab

    detail: dict[str, Any] = {
        "cast": round(light["cast"], 2),
        "chroma_p99": round(light["chroma_p99"], 2),
    }

    def abstain(reason: str) -> ToneReading:
        return ToneReading("cannot_identify", None, {**detail, "reason": reason})

    if light["chroma_p99"] < GREY_CHROMA:
        return abstain("grey image: no colour to read a skin tone from")
    if light["cast"] > max_cast:
        return abstain(
            f"strong colour cast: the image's mean colour is {figure_text(light['cast'])} from "
            f"grey (C*ab; more than max_cast {max_cast})"
        )
    frame = FaceFrame.from_landmarks(landmarks)
    if frame is None:
        return abstain("face not seen from the front: no cheeks and forehead to sample")
    masks = region_masks(frame, pixels.shape[:2])
    kept: dict[str, Any] = {}
    total = clipped = 0
    for name, mask in masks.items():
        region = pixels[mask].astype(int)
        bad = (region.min(axis=1) >= HIGH_CLIP) | (region.max(axis=1) <= LOW_CLIP)
        total += len(region)
        clipped += int(bad.sum())
        good = region[~bad]
        if len(good) == 0:
            continue
        lab = rgb2lab(good[None, :, :].astype(float) / 255.0)[0]
        lo, hi = np.percentile(lab[:, 0], TRIM)
        kept[name] = lab[(lab[:, 0] >= lo) & (lab[:, 0] <= hi)]
    detail["regions"] = {name: int(len(v)) for name, v in kept.items()}
    detail["clipped"] = round(clipped / total, 3) if total else 0.0
    if total and clipped / total > max_clipped:
        return abstain(
            f"exposure clipped: {percent_text(clipped / total)} of the skin regions' pixels are "
            f"blown out or black (more than max_clipped {level_text(max_clipped)})"
        )
    skin = np.concatenate(list(kept.values())) if kept else np.zeros((0, 3))
    detail["skin_pixels"] = int(len(skin))
    if len(skin) < min_skin_pixels:
        return abstain(
            f"too few skin pixels: {len(skin)} (min_skin_pixels {min_skin_pixels}); the face "
            "is too small or hidden"
        )
    colour = np.median(skin, axis=0)
    swatches = monk_lab()
    distances = deltaE_ciede2000(np.broadcast_to(colour, swatches.shape), swatches)
    order = np.argsort(distances)
    nearest, second = int(order[0]), int(order[1])
    margin = float(distances[second] - distances[nearest])
    # The median's standard error (1.2533 σ / √n for a normal-ish spread), σ by the MAD.
    sigma = 1.4826 * np.median(np.abs(skin - colour), axis=0)
    standard_error = 1.2533 * sigma / math.sqrt(len(skin))
    medians = np.array([np.median(v, axis=0) for v in kept.values() if len(v)])
    between = medians.std(axis=0) if len(medians) > 1 else np.zeros(3)
    # ΔE00 is roughly Euclidean in L*a*b* near skin colours: the norm stands for its scale.
    uncertainty = float(np.linalg.norm(np.hypot(standard_error, between)))
    confidence = 0.5 * (1 + math.erf(margin / (2 * max(uncertainty, 1e-6)) / math.sqrt(2)))
    ita = math.degrees(math.atan2(colour[0] - 50.0, colour[2]))
    detail.update(
        {
            "lab": [round(float(v), 2) for v in colour],
            "ita": round(ita, 2),
            "delta_e": {f"monk-{k + 1}": round(float(v), 2) for k, v in enumerate(distances)},
            "margin": round(margin, 2),
            "uncertainty": round(uncertainty, 2),
        }
    )
    return ToneReading(f"monk-{nearest + 1}", round(confidence, 4), detail)
