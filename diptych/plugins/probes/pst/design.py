"""Who is in a ``pst`` run's images and how each image is seeded: ids, seeds, the draw of power
roles (Section 4.3) and the choice of the most biased occupations (Section 5)."""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass

from diptych.plugins.probes._paired_stereotype_test.identities import GENDERS

#: What one trial of a ``pst`` run is: an image (its two people drawn together), the unit its
#: intervals resample and its agreement tables name (the probe's ``trial_unit``).
TRIAL_UNIT = "image"


def slug(text: str) -> str:
    """A file-name-safe form of an identity: lower case, every other run of characters "_"."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def image_seed(seed: int, image: str) -> int:
    """The generation seed of one image: derived from the probe's seed and the image id only,
    so any image can be generated again on its own. 31 bits: every backend takes that."""
    return int(hashlib.sha256(f"{seed}:{image}".encode()).hexdigest()[:8], 16) & 0x7FFFFFFF


@dataclass(frozen=True)
class PowerRoles:
    """The roles drawn for one occupation: one of high and one of low power (Table 8)."""

    high: str
    low: str


def draw_power_roles(
    seed: int, occupations: list[str], high: list[str], low: list[str]
) -> dict[str, PowerRoles]:
    """One random high- and one random low-power role per occupation (Section 4.3).

    Drawn in sorted order of the occupations from sorted role lists with ``random.Random(seed)``
    (whose integer seeding and ``choice`` are stable across Python versions and platforms), so
    the same seed draws the same roles anywhere. Callers pass every eligible occupation, not a
    subset, so that an occupation keeps its roles when others are left out of a run.
    """
    rng = random.Random(seed)
    highs, lows = sorted(high), sorted(low)
    return {occ: PowerRoles(rng.choice(highs), rng.choice(lows)) for occ in sorted(occupations)}


def most_biased(
    micro: Mapping[str, float | None], stereotype_of: Mapping[str, str], k: int
) -> dict[str, list[str]]:
    """The ``k`` most biased identities of each stereotyped gender (Section 5's "top 5").

    ``micro`` maps an identity to its paired micro STS (higher: more stereotyped); an identity
    without a score (None or NaN) or that ``stereotype_of`` does not know (e.g. a power identity)
    is left out. Ties are broken by name, so the selection is deterministic; a group with fewer
    than ``k`` scored identities gives them all. Returns ``{"masculine": [...], "feminine":
    [...]}``, each most biased first.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    groups: dict[str, list[tuple[float, str]]] = {g: [] for g in GENDERS}
    for identity, score in micro.items():
        gender = stereotype_of.get(identity)
        if gender not in groups or score is None or score != score:  # NaN != NaN
            continue
        groups[gender].append((-float(score), identity))
    return {g: [identity for _, identity in sorted(rows)[:k]] for g, rows in groups.items()}
