"""PAIRS responses written by hand for the association score's tests: a tiny case, a table of
answer pairs by race, and the responses file they make."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from scipy import stats

from diptych.core.metrics.pairs.association import Response


def r(scenario: str, gender: str, race: str, run: int, value: int, question: str = "") -> Response:
    return Response(scenario, gender, race, str(run), value, question)


# Three pairs (man, woman) = (1, 0), (1, −1), (0, 0): differences 1, 2, 0. Their mean is 1, their
# standard deviation sqrt(((1−1)² + (2−1)² + (0−1)²) / 2) = 1, so t = 1 / (1 / sqrt 3) = sqrt 3
# with df = 2. For df = 2 the t distribution has the closed form P(|T| > t) = 1 − t/sqrt(2 + t²),
# so p = 1 − sqrt(3)/sqrt(5).
TINY = [
    r("s1", "man", "black", 1, 1),
    r("s1", "woman", "black", 1, 0),
    r("s2", "man", "black", 1, 1),
    r("s2", "woman", "black", 1, -1),
    r("s3", "man", "black", 1, 0),
    r("s3", "woman", "black", 1, 0),
]


def share_interval(p: float, se: float, df: int) -> tuple[Any, Any]:
    """asin √p ± t(df) · se / (2 √(p(1 − p))), mapped back by sin²: a share's interval."""
    half = stats.t.ppf(0.975, df) * se / (2 * math.sqrt(p * (1 - p)))
    centre = math.asin(math.sqrt(p))
    low = math.sin(max(centre - half, 0.0)) ** 2
    high = math.sin(min(centre + half, math.pi / 2)) ** 2
    return pytest.approx(low), pytest.approx(high)


# Written by hand: 2 scenarios × 2 questions × 2 genders × 2 runs, compared by race. Each pair
# (White answer, Black answer) is listed with its key; rows are then built from the pairs.
HAND_PAIRS = {
    # (scenario, question, gender, run): (white, black)
    ("bus", "wealthy_vs_poor", "man", 1): (1, -1),
    ("bus", "wealthy_vs_poor", "man", 2): (1, 1),
    ("bus", "wealthy_vs_poor", "woman", 1): (0, -1),
    ("bus", "wealthy_vs_poor", "woman", 2): (1, 0),
    ("bus", "boss_vs_employee", "man", 1): (-1, -1),
    ("bus", "boss_vs_employee", "man", 2): (1, -1),
    ("bus", "boss_vs_employee", "woman", 1): (0, 0),
    ("bus", "boss_vs_employee", "woman", 2): (-1, 1),
    ("tent", "wealthy_vs_poor", "man", 1): (1, 0),
    ("tent", "wealthy_vs_poor", "man", 2): (1, -1),
    ("tent", "wealthy_vs_poor", "woman", 1): (1, 1),
    ("tent", "wealthy_vs_poor", "woman", 2): (0, -1),
    ("tent", "boss_vs_employee", "man", 1): (1, 1),
    ("tent", "boss_vs_employee", "man", 2): (-1, -1),
    ("tent", "boss_vs_employee", "woman", 1): (1, 0),
    ("tent", "boss_vs_employee", "woman", 2): (0, -1),
}


def hand_rows() -> list[Response]:
    rows = []
    for (scenario, question, gender, run), (white, black) in HAND_PAIRS.items():
        rows.append(r(scenario, gender, "white", run, white, question))
        rows.append(r(scenario, gender, "black", run, black, question))
    return rows


def write(tmp_path: Path, text: str, name: str = "responses.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def hand_csv(tmp_path: Path) -> Path:
    lines = ["Scenario,Question,Gender,Race,Run,Value,model"]
    for row in hand_rows():
        value = "+1" if row.value == 1 else ("\u22121" if row.value == -1 else "0")
        lines.append(
            f"{row.scenario},{row.question},{row.gender.upper()},{row.race},{row.run},{value},x"
        )
    return write(tmp_path, "\n".join(lines) + "\n")
