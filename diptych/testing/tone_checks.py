"""Pictures of known skin tone, and the whole-image rule peers use, for checking a tone annotator.

* :func:`retone` repaints a face to a chosen colour, keeping its texture: inside a feathered
  ellipse drawn from the detector's face box alone (no landmark, no skin rule, nothing a tone
  annotator samples by), every pixel's CIELAB is shifted by target − the ellipse core's median
  (a* and b* by the difference, L* around the target with the face's own L* detail, scaled down
  only where a near-white or near-black target leaves no room), so the core's median becomes the
  target while shading, pores and highlights stay. A check that re-toned faces through the
  annotator's own sampling regions would only measure itself.
* :func:`illuminate` changes the light over the whole picture: a white-balance shift (a
  diagonal von Kries scaling of XYZ) and an exposure change (a factor on XYZ, 2^EV).
* :func:`whole_image_tone` is the rule DALL-Eval (Cho, Zala, Bansal, ICCV 2023,
  ``biases/detect_skintone.py``) and HEIM (Lee et al., NeurIPS 2023, HELM's
  ``skin_tone_metrics.py``) use: every pixel of the whole image passing an RGB + YCrCb skin rule,
  averaged, and the Monk swatch nearest in RGB by L1 distance; one tone per image.

Colour conversions are scikit-image's (``rgb2lab``, ``lab2rgb``, ``rgb2xyz``, ``xyz2rgb``); the
YCrCb of the peers' rule is OpenCV's full-range one (``COLOR_BGR2YCrCb``), whose thresholds the
rule was written for.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: White-balance shifts as XYZ gains: a warm light (redder, less blue) and a cool one.
WARM = (1.06, 1.0, 0.78)
COOL = (0.95, 1.0, 1.25)
NEUTRAL = (1.0, 1.0, 1.0)


def face_ellipse(
    shape: tuple[int, int], box: tuple[float, float, float, float], feather: float = 0.25
) -> NDArray[np.float64]:
    """Weights in [0, 1] over an image of ``shape`` (rows, cols): 1 in the core of an ellipse
    around the face box ``(x0, y0, x1, y1)``, falling to 0 over its outer ``feather``.

    The ellipse is 1.1 box widths across and 1.5 box heights tall, its centre 0.1 box heights
    above the box's: a frontal-face detector's box runs from the brows to the chin, and the
    forehead above it is face too."""
    import numpy as np

    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2 - 0.1 * h
    rows, cols = np.mgrid[0 : shape[0], 0 : shape[1]]
    r = np.hypot((cols - cx) / (0.55 * w), (rows - cy) / (0.75 * h))
    return np.clip((1.0 - r) / feather, 0.0, 1.0)


def retone(
    pixels: NDArray[np.uint8], box: tuple[float, float, float, float], target_rgb: Any
) -> NDArray[np.uint8]:
    """``pixels`` (RGB uint8) with the face in ``box`` repainted so that the median colour of
    the ellipse's core is ``target_rgb`` (sRGB 0-255), its texture kept (module docstring)."""
    import numpy as np
    from skimage.color import lab2rgb, rgb2lab

    weight = face_ellipse(pixels.shape[:2], box)[..., None]
    lab = rgb2lab(pixels.astype(float) / 255.0)
    core = lab[weight[..., 0] >= 1.0]
    # Eyes, brows, nostrils and the mouth are the darkest quarter of a face's core: the
    # median of the rest is the face's own colour, found without knowing where they are.
    core = core[core[:, 0] >= np.percentile(core[:, 0], 25)]
    reference = np.median(core, axis=0)
    target = rgb2lab(np.asarray(target_rgb, float).reshape(1, 1, 3) / 255.0)[0, 0]
    # L* detail around the median is kept, scaled down only as far as the target's room
    # below 100 and above 0 needs (a near-white or near-black face would otherwise clip).
    above = np.percentile(core[:, 0], 98) - reference[0]
    below = reference[0] - np.percentile(core[:, 0], 2)
    k = min(1.0, (97.0 - target[0]) / max(above, 1e-6), (target[0] - 1.0) / max(below, 1e-6))
    shifted = lab.copy()
    shifted[..., 0] = target[0] + k * (lab[..., 0] - reference[0])
    shifted[..., 1:] = lab[..., 1:] + (target[1:] - reference[1:])
    with warnings.catch_warnings():
        # A repainted pixel outside the sRGB gamut is clipped to it, as a camera's would be.
        warnings.simplefilter("ignore", UserWarning)
        return _to_uint8(lab2rgb(lab + weight * (shifted - lab)))


def illuminate(
    pixels: NDArray[np.uint8], gains: tuple[float, float, float] = NEUTRAL, ev: float = 0.0
) -> NDArray[np.uint8]:
    """``pixels`` under another light: XYZ scaled by ``gains`` (a white-balance shift) and by
    2^``ev`` (exposure), clipped to the sRGB range as a camera would."""
    import numpy as np
    from skimage.color import rgb2xyz, xyz2rgb

    xyz = rgb2xyz(pixels.astype(float) / 255.0) * np.asarray(gains) * (2.0**ev)
    return _to_uint8(xyz2rgb(xyz))


def _to_uint8(rgb: NDArray[np.float64]) -> NDArray[np.uint8]:
    import numpy as np

    return np.asarray(np.rint(np.clip(rgb, 0.0, 1.0) * 255.0), np.uint8)


def skin_rule(pixels: NDArray[np.uint8]) -> NDArray[np.bool_]:
    """The pixels DALL-Eval's and HEIM's RGB + YCrCb rule calls skin (Kolkur et al. 2017)."""
    import numpy as np

    rgb = pixels.astype(float)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    # OpenCV's 8-bit YCrCb (full range, delta 128), rounded as it saturates to uint8.
    y = np.clip(np.rint(0.299 * r + 0.587 * g + 0.114 * b), 0, 255)
    cr = np.clip(np.rint((r - y) * 0.713 + 128), 0, 255)
    cb = np.clip(np.rint((b - y) * 0.564 + 128), 0, 255)
    return (
        (r > 95) & (g > 40) & (b > 20) & (r > g) & (r > b) & (np.abs(r - g) > 15)
        & (cr > 135) & (cb > 85) & (y > 80)
        & (cr <= 1.5862 * cb + 20) & (cr >= 0.3448 * cb + 76.2069)
        & (cr >= -4.5652 * cb + 234.5652) & (cr <= -1.15 * cb + 301.75)
        & (cr <= -2.2857 * cb + 432.85)
    )  # fmt: skip


def whole_image_tone(pixels: NDArray[np.uint8]) -> int | None:
    """The Monk step (1-10) the peers' rule gives the whole image, or None when no pixel passes
    the skin rule (their "unknown")."""
    import numpy as np

    from diptych.plugins.annotators.skin_tone.reading import monk_rgb

    skin = pixels[skin_rule(pixels)]
    if len(skin) == 0:
        return None
    mean = skin.astype(float).mean(axis=0)
    return int(np.abs(monk_rgb().astype(float) - mean).sum(axis=1).argmin()) + 1
