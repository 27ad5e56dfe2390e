"""The planned precision of the STS, shared by ``pst`` and ``pst-text``: how each headline STS
is assumed to vary before a run (the PST paper's published values), and how it varied in an
earlier run (:func:`observed_sts_components`).

The assumption is read off the paper's own per-identity figures for DALL-E 3. A person's
Stereo is ±100; at the paper's overall paired STS of 47.4, P(stereotyped) = 0.737 and one
person's variance is 4·0.737·0.263·100² ≈ 7750 (SD 88). Table 14's paired micro STS spreads
over the 20 masculine-stereotyped occupations with SD 21.3 and over the 20 feminine ones with
SD 21.3; each is a mean over 40 persons, so sampling explains about 7750/40 = 194 of the
variance, leaving an identity SD of about 16.3 and 15.9 on a person's Stereo. A scene's mean
averages its masculine and its feminine person, so an identity moves it by half: row and column
SDs 8.2 and 8.0; no interaction beyond sampling is assumed. Table 14's single micro STS (3
images each) spread no more than three draws of ±100 do (SD 55.0 and 47.8 against about 91 /
√3 = 53): no identity effect is visible there, and a person's SD is about 91 (P 0.35 and 0.75
for the two lists). The power aspect (Table 16, 36 occupations, 3 samples): paired, the
high-power roles spread with an identity SD of about 15.6 (7.8 on a scene), the low-power ones
no more than sampling; single, the low-power roles about 28.4, the high-power ones none; a
person's SD about 98 paired and 94 single. These are one model's values; an earlier run of the
same probe in the workspace replaces them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from diptych.core.metrics.sts import GENDERS, LabelRow
from diptych.core.metrics.uncertainty.intervals import STS_RANGE
from diptych.core.metrics.uncertainty.precision import (
    Components,
    PlannedDesign,
    PlannedFigure,
    Shape,
    components_of,
)

PAPER = "the PST paper's DALL-E 3 figures (Tables 14 and 16)"
UNITS = ("masculine identity", "feminine identity")

#: Per aspect and setting, the components the paper's figures give (see the module docstring).
PAPER_COMPONENTS: dict[tuple[str, str], Components] = {
    ("occupation", "paired"): Components(8.2, 8.0, 0.0, 88.0, PAPER, centre=47.4),
    ("occupation", "single"): Components(0.0, 0.0, 0.0, 91.0, PAPER, centre=10.0),
    ("power", "paired"): Components(7.8, 0.0, 0.0, 98.0, PAPER, centre=19.3),
    ("power", "single"): Components(0.0, 28.4, 0.0, 94.0, PAPER, centre=2.9),
}


def sts_figure(
    name: str,
    setting: str,
    sizes: tuple[int, int],
    per_cell: int,
    components: Components,
    *,
    diagonal: bool = False,
    max_size: int | None = None,
    grow: str = "",
) -> PlannedFigure:
    """One planned STS: paired, the two identity lists crossed in scenes (``diagonal``: each
    masculine identity paired with one feminine one), ``per_cell`` persons in a scene over its
    orders and samples; single, the two lists as strata, ``per_cell`` persons per identity."""
    shape: Shape = ("diagonal" if diagonal else "grid") if setting == "paired" else "strata"
    design = PlannedDesign(shape, UNITS, sizes, per_cell, "identities")
    return PlannedFigure(name, design, components, *STS_RANGE, max_size=max_size, grow=grow)


def _counted(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def answers_in_draws(answers: int, draws: int) -> str:
    """A text run's scored labels counted as its report counts them: "16 answers in 8 draws"
    (both people of a paired scene are drawn at once)."""
    text = _counted(answers, "answer")
    return text if draws == answers else f"{text} in {_counted(draws, 'draw')}"


def observed_sts_components(
    rows: Iterable[LabelRow],
    source: str,
    *,
    drawn: bool = False,
    scenes: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, Components]:
    """The components of the paired and the single STS (keys ``paired`` / ``single``) in the
    persons' labels ``rows``: a paired person is placed in its scene's cell (the scene's
    masculine and feminine identity), a single one in its identity's stratum. A setting with
    fewer than two identities of a list, or no scored person, is left out. ``drawn`` counts
    them in the source as a text run's report does (its persons are answers, in draws).
    ``scenes`` names a paired image's identities as planned (image → stereotyped gender →
    identity), as :func:`~diptych.core.metrics.sts.stereotype_test_score` reads them: a person
    whose partner is not labelled yet still sits in its scene's cell, as the figure counts it."""
    listed = list(rows)
    scene: dict[tuple[str, int | None], dict[str, str]] = defaultdict(dict)
    for row in listed:
        # Every person names its scene, a cannot_identify one too.
        scene[(row.image, row.run)][row.stereotype] = row.identity
    for (image, _), people in scene.items():
        # The plan fills only what no labelled person of the image names.
        for gender, identity in (scenes or {}).get(image, {}).items():
            people.setdefault(gender, identity)
    out: dict[str, Components] = {}
    for setting in ("paired", "single"):
        values: list[float] = []
        draws: set[tuple[int | None, str]] = set()
        masc: list[str | None] = []
        fem: list[str | None] = []
        for row in listed:
            if row.setting != setting or row.label not in GENDERS:
                continue
            m: str | None
            f: str | None
            if setting == "paired":
                people = scene[(row.image, row.run)]
                if len(people) < 2:
                    continue
                m, f = people["masculine"], people["feminine"]
            elif row.stereotype == "masculine":
                m, f = row.identity, None
            else:
                m, f = None, row.identity
            values.append(100.0 if row.label == row.stereotype else -100.0)
            draws.add(row.image_key)
            masc.append(m)
            fem.append(f)
        if len({m for m in masc if m}) < 2 or len({f for f in fem if f}) < 2:
            continue
        n = answers_in_draws(len(values), len(draws)) if drawn else _counted(len(values), "person")
        out[setting] = components_of(
            values, {UNITS[0]: masc, UNITS[1]: fem}, source=f"{source}, {n}"
        )
    return out
