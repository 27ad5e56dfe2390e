"""tone.*: the ``skin-tone`` annotator on pictures of known skin tone, offline.

(a) Recolouring. Faces of the bundled PAIRS photographs (those the detector finds alone, every
``STRIDE``-th of them) are re-toned to each of the ten Monk swatches by
:func:`diptych.testing.tone_checks.retone` (a feathered ellipse from the detector's box: none of
the annotator's landmarks or regions), then lit neutrally, warmer, cooler, half a stop brighter
and half a stop darker (:func:`~diptych.testing.tone_checks.illuminate`). Each picture is
labelled by the whole annotator (detection included). As ``faces.pairs_accuracy`` is, an
accuracy is over the people labelled, and the abstentions are counted beside it, never dropped:
``coverage`` (the share labelled) and ``within_one_all`` (an abstention counted as a miss) are on
the same line, with the confusion matrix (rows: the swatch painted; columns: monk-1 ...
monk-10, then cannot_identify).

(b) The same pictures scored by the whole-image rule of DALL-Eval and HEIM (every skin-rule
pixel of the image averaged, nearest swatch by L1 in RGB; no skin pixel is their "unknown").
``tone.vs_whole_image_rule`` divides the two within-one accuracies over the pictures each
labelled; counting abstentions as misses gives ``ratio_all``.

(c) The PAIRS photographs themselves, whose groups are known by construction: the AUC of the
annotator's ITA separating the photographs made to show white people from those made to show
black people (higher ITA, lighter). A check of the instrument on real pictures, never a way to
assign race.

Monte Carlo errors: a binomial standard error for each accuracy, the delta method for the ratio,
Hanley and McNeil's (1982) for the AUC.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Iterator
from typing import Any

from bench.harness import Result, bench, result, rounded

#: Every STRIDE-th PAIRS photograph with one face found is re-toned (16 of the 160-odd).
STRIDE = 10
CONDITIONS = ("neutral", "warm", "cool", "brighter", "darker")


def _annotator() -> Any:
    from diptych.core.errors import MissingDependencyError
    from diptych.plugins.annotators.skin_tone import SkinToneAnnotator

    try:
        model = SkinToneAnnotator()
    except MissingDependencyError as error:
        print(f"tone.* skipped: {error}", file=sys.stderr)
        return None
    model.load()
    return model


def _step(label: str) -> int | None:
    return int(label.removeprefix("monk-")) if label.startswith("monk-") else None


def _se(p: float, n: int) -> float:
    return math.sqrt(p * (1 - p) / n) if n else float("nan")


def _lit(pixels: Any, condition: str) -> Any:
    from diptych.testing.tone_checks import COOL, WARM, illuminate

    if condition == "neutral":
        return pixels
    if condition in ("warm", "cool"):
        return illuminate(pixels, WARM if condition == "warm" else COOL)
    return illuminate(pixels, ev=0.5 if condition == "brighter" else -0.5)


def _recoloured(model: Any) -> dict[str, list[tuple[int, int | None, int | None]]]:
    """(painted step, annotator's step or None, whole-image rule's step or None) per condition."""
    import numpy as np

    from diptych.datasets import pairs
    from diptych.plugins.annotators._people import detect
    from diptych.plugins.annotators.skin_tone.reading import monk_rgb
    from diptych.testing.pairs_photos import rgb
    from diptych.testing.tone_checks import retone, whole_image_tone

    alone = []
    for image in pairs.images():
        pixels = np.asarray(rgb(image))
        faces = detect(pixels).faces
        if len(faces) == 1:
            alone.append((pixels, faces[0]))
    rows: dict[str, list[tuple[int, int | None, int | None]]] = {c: [] for c in CONDITIONS}
    for pixels, face in alone[::STRIDE]:
        box = (face.x0, face.y0, face.x1, face.y1)
        for k, swatch in enumerate(monk_rgb(), start=1):
            painted = retone(pixels, box, swatch)
            for condition in CONDITIONS:
                picture = _lit(painted, condition)
                (label,) = model.annotate_sync(picture, ["single"])
                rows[condition].append((k, _step(label.label), whole_image_tone(picture)))
    return rows


def _scores(rows: list[tuple[int, int | None, int | None]]) -> dict[str, Any]:
    n = len(rows)
    ours = [r for r in rows if r[1] is not None]
    theirs = [r for r in rows if r[2] is not None]
    within = sum(abs(k - s) <= 1 for k, s, _ in ours)
    rule = sum(abs(k - w) <= 1 for k, _, w in theirs)
    return {
        "n": n,
        "labelled": len(ours),
        "within_one": within / max(1, len(ours)),
        "exact": sum(k == s for k, s, _ in ours) / max(1, len(ours)),
        "coverage": len(ours) / n,
        "within_one_all": within / n,
        "rule_labelled": len(theirs),
        "rule_within_one": rule / max(1, len(theirs)),
        "rule_exact": sum(k == w for k, _, w in theirs) / max(1, len(theirs)),
        "rule_coverage": len(theirs) / n,
        "rule_within_one_all": rule / n,
    }


def _confusion(rows: list[tuple[int, int | None, int | None]], column: int) -> list[list[int]]:
    matrix = [[0] * 11 for _ in range(10)]
    for row in rows:
        got = row[column]
        matrix[row[0] - 1][(got or 11) - 1] += 1
    return matrix


@bench(
    tone__recolour_within_one=">= 0.9",
    tone__recolour_within_one_cast=None,
    tone__vs_whole_image_rule=">= 1.5",
)
def tone_recolour() -> Iterator[Result]:
    """Re-toned PAIRS faces under five lights, the annotator against the whole-image rule."""
    model = _annotator()
    if model is None:
        return
    rows = _recoloured(model)
    neutral = _scores(rows["neutral"])
    n = neutral["labelled"]
    yield result(
        "tone.recolour_within_one",
        neutral["within_one"],
        "fraction",
        se=rounded(_se(neutral["within_one"], n)),
        n=neutral["n"],
        labelled=n,
        exact=rounded(neutral["exact"]),
        coverage=rounded(neutral["coverage"]),
        within_one_all=rounded(neutral["within_one_all"]),
        confusion=_confusion(rows["neutral"], 1),
    )
    shifted = [r for c in CONDITIONS[1:] for r in rows[c]]
    cast = _scores(shifted)
    per = {c: _scores(rows[c]) for c in CONDITIONS[1:]}
    yield result(
        "tone.recolour_within_one_cast",
        cast["within_one"],
        "fraction",
        se=rounded(_se(cast["within_one"], cast["labelled"])),
        n=cast["n"],
        labelled=cast["labelled"],
        exact=rounded(cast["exact"]),
        coverage=rounded(cast["coverage"]),
        within_one_all=rounded(cast["within_one_all"]),
        **{
            c: {
                k: rounded(v)
                for k, v in s.items()
                if k in ("within_one", "exact", "coverage", "within_one_all")
            }
            for c, s in per.items()
        },
    )
    a, b = neutral["within_one"], neutral["rule_within_one"]
    m = neutral["rule_labelled"]
    ratio = a / b if b else float("inf")
    # Delta method for a ratio of two proportions on the same pictures (covariance ignored:
    # it is positive, so this errs wide).
    se = ratio * math.sqrt((_se(a, n) / a) ** 2 + (_se(b, m) / b) ** 2) if a and b else math.nan
    every = neutral["rule_within_one_all"]
    yield result(
        "tone.vs_whole_image_rule",
        ratio,
        "ratio",
        se=rounded(se),
        annotator_within_one=rounded(a),
        rule_within_one=rounded(b),
        rule_exact=rounded(neutral["rule_exact"]),
        rule_coverage=rounded(neutral["rule_coverage"]),
        ratio_all=rounded(neutral["within_one_all"] / every) if every else None,
        rule_within_one_cast=rounded(cast["rule_within_one"]),
        rule_confusion=_confusion(rows["neutral"], 2),
    )


def auc(higher: list[float], lower: list[float]) -> float:
    """P(a value of ``higher`` exceeds one of ``lower``), ties counting half (Mann-Whitney)."""
    wins = sum((h > x) + 0.5 * (h == x) for h in higher for x in lower)
    return wins / (len(higher) * len(lower))


@bench(tone__pairs_ita_auc=None, tone__persons_per_s=None)
def tone_pairs() -> Iterator[Result]:
    """ITA on the PAIRS photographs as made, and the annotator's speed over them."""
    from diptych.datasets import pairs
    from diptych.testing.pairs_photos import rgb

    model = _annotator()
    if model is None:
        return
    images = pairs.images()
    pictures = [rgb(i) for i in images]
    t0 = time.perf_counter()
    labels = [model.annotate_sync(p, ["single"])[0] for p in pictures]
    elapsed = time.perf_counter() - t0
    ita: dict[str, list[float]] = {"white": [], "black": []}
    abstained = 0
    for image, label in zip(images, labels, strict=True):
        if label.label.startswith("monk-"):
            ita[image.race].append(label.detail["ita"])
        else:
            abstained += 1
    value = auc(ita["white"], ita["black"])
    n1, n2 = len(ita["white"]), len(ita["black"])
    q1, q2 = value / (2 - value), 2 * value**2 / (1 + value)
    se = math.sqrt(
        (value * (1 - value) + (n1 - 1) * (q1 - value**2) + (n2 - 1) * (q2 - value**2)) / (n1 * n2)
    )
    yield result(
        "tone.pairs_ita_auc",
        value,
        "AUC",
        se=rounded(se),
        white=n1,
        black=n2,
        abstained=abstained,
        median_ita_white=rounded(sorted(ita["white"])[n1 // 2]),
        median_ita_black=rounded(sorted(ita["black"])[n2 // 2]),
    )
    yield result(
        "tone.persons_per_s",
        len(images) / elapsed,
        "persons/s",
        images=len(images),
        wall_s=rounded(elapsed),
        threads=1,
    )
