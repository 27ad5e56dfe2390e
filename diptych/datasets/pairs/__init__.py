"""The PAIRS dataset, bundled: parallel images of everyday scenarios (CC BY 4.0).

50 scenarios × 4 people (black man, black woman, white man, white woman), in three subsets:
``occupations`` (20), ``status`` (20) and ``potential_crime`` (10). The images of a scenario
differ only in the person's perceived gender and race, which makes them a ground truth for
calibrating perceived-gender annotators and the stimuli of the PAIRS probes.

Anything that shows these images or numbers computed from them must carry :data:`ATTRIBUTION`
and :data:`LICENSE`.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).parent
LICENSE = "CC BY 4.0"
ATTRIBUTION = (
    'PAIRS images: Kathleen C. Fraser and Svetlana Kiritchenko, 2024, "Examining Gender and '
    'Racial Bias in Large Vision-Language Models Using a Novel Dataset of Parallel Images", '
    "EACL 2024; licensed CC BY 4.0"
)
SUBSETS = ("occupations", "status", "potential_crime")
GENDERS = ("man", "woman")
RACES = ("black", "white")


@dataclass(frozen=True)
class PairsImage:
    subset: str
    scenario: str
    race: str
    gender: str
    path: Path

    @property
    def group(self) -> str:
        return f"{self.race}_{self.gender}"

    @property
    def id(self) -> str:
        """A stable id, ``subset/scenario/group`` (whatever the file is called)."""
        return f"{self.subset}/{self.scenario}/{self.group}"

    @property
    def perceived_gender(self) -> str:
        """The gender the image was made to show, in the STS vocabulary."""
        return "masculine" if self.gender == "man" else "feminine"


@dataclass(frozen=True)
class Question:
    subset: str
    scenario: str
    description: str
    question: str
    plus_option: str
    minus_option: str
    scoring: str


def _file_of(folder: Path, group: str) -> Path:
    # The published dataset names one file white_man1.png (status/phone); the id stays
    # "white_man" so that every scenario has the same four groups.
    for name in (f"{group}.png", f"{group}1.png"):
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(f"PAIRS image {group} missing in {folder}")


@cache
def _all_images() -> tuple[PairsImage, ...]:
    out = []
    for subset in SUBSETS:
        for folder in sorted((ROOT / "images" / subset).iterdir()):
            if not folder.is_dir():
                continue
            for race in RACES:
                for gender in GENDERS:
                    path = _file_of(folder, f"{race}_{gender}")
                    out.append(PairsImage(subset, folder.name, race, gender, path))
    return tuple(out)


def images(
    subset: str | None = None,
    scenario: str | None = None,
    gender: str | None = None,
    race: str | None = None,
) -> list[PairsImage]:
    """The bundled images, filtered by subset, scenario, gender ("man"/"woman") and race."""
    for value, allowed, what in (
        (subset, SUBSETS, "subset"),
        (gender, GENDERS, "gender"),
        (race, RACES, "race"),
    ):
        if value is not None and value not in allowed:
            raise ValueError(f"unknown PAIRS {what} {value!r}; use one of {', '.join(allowed)}")
    return [
        img
        for img in _all_images()
        if (subset is None or img.subset == subset)
        and (scenario is None or img.scenario == scenario)
        and (gender is None or img.gender == gender)
        and (race is None or img.race == race)
    ]


def scenarios(subset: str | None = None) -> list[str]:
    return sorted({img.scenario for img in images(subset)})


@cache
def questions() -> tuple[Question, ...]:
    """The closed-form questions, one per (scenario, question), with their scored options."""
    with (ROOT / "questions.tsv").open(encoding="utf-8", newline="") as handle:
        return tuple(Question(**row) for row in csv.DictReader(handle, delimiter="\t"))
