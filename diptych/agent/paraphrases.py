"""Paraphrases of the PST prompts (``pst_paraphrases.yaml``), split into the ones the search
uses and the ones the held-out test keeps for itself.

A finding should hold for prompts like these, not for one wording, so each identity is measured
in several paraphrases and the interval resamples them as a unit (with the partners it meets);
the held-out test re-measures in paraphrases the search never saw.
"""

from __future__ import annotations

import string
from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from diptych.core.data import load_data

PARAPHRASES_FILE = "pst_paraphrases.yaml"
Use = Literal["search", "heldout"]

#: The placeholders each list's paraphrases must use: those of the prompt they paraphrase.
PLACEHOLDERS: dict[str, frozenset[str]] = {
    "likelihood_paired": frozenset({"id1", "id2", "target", "position"}),
    "likelihood_single": frozenset({"id"}),
    "story_paired": frozenset({"id1", "id2"}),
    "story_single": frozenset({"id"}),
    "image_paired": frozenset({"id1", "id2"}),
}
#: Fewest paraphrases a list holds, and fewest of each use: an interval over templates needs
#: two of them on each side of the split to vary at all.
MIN_PARAPHRASES = 6
MIN_PER_USE = 2


class Paraphrase(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    use: Use
    text: str
    explanation: str


class ParaphraseList(BaseModel):
    model_config = ConfigDict(extra="forbid")
    #: The prompt paraphrased, as its own file writes it.
    of: str
    paraphrases: list[Paraphrase] = Field(min_length=MIN_PARAPHRASES)


class ParaphraseFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: str
    source: str
    likelihood_paired: ParaphraseList
    likelihood_single: ParaphraseList
    story_paired: ParaphraseList
    story_single: ParaphraseList
    image_paired: ParaphraseList

    @model_validator(mode="after")
    def _check(self) -> ParaphraseFile:
        ids: set[str] = set()
        for name, wanted in PLACEHOLDERS.items():
            got: ParaphraseList = getattr(self, name)
            for use in ("search", "heldout"):
                if sum(p.use == use for p in got.paraphrases) < MIN_PER_USE:
                    raise ValueError(f"{name}: fewer than {MIN_PER_USE} '{use}' paraphrases")
            if got.paraphrases[0].text != got.of or got.paraphrases[0].use != "search":
                raise ValueError(f"{name}: the first paraphrase must be the prompt itself, search")
            for p in got.paraphrases:
                if p.id in ids:
                    raise ValueError(f"paraphrase id {p.id!r} is used twice")
                ids.add(p.id)
                used = {f for _, f, _, _ in string.Formatter().parse(p.text) if f is not None}
                if used != wanted:
                    raise ValueError(
                        f"{name} {p.id}: uses {sorted(used)}; it must use {sorted(wanted)}"
                    )
                if name == "likelihood_paired" and not _asks_about_target(p.text):
                    raise ValueError(
                        f"{name} {p.id}: the last sentence must name {{target}} and no other "
                        "person, since the word after it is the one read"
                    )
        return self


def _asks_about_target(text: str) -> bool:
    last = text.rpartition(". ")[2]
    return "{target}" in last and "{id1}" not in last and "{id2}" not in last


@cache
def _file() -> ParaphraseFile:
    return load_data(PARAPHRASES_FILE, ParaphraseFile)


#: Which list an identity search reads, by probe and mode.
_LIST_OF: dict[tuple[str, str], str] = {
    ("pst-text", "likelihood"): "likelihood_paired",
    ("pst-text", "story"): "story_paired",
    ("pst", "images"): "image_paired",
}


def paraphrases(name: str, use: Use | None = None) -> list[Paraphrase]:
    """The paraphrases of list ``name`` (e.g. ``likelihood_paired``), those of ``use`` only
    when given, in the file's order."""
    got: ParaphraseList = getattr(_file(), name)
    return [p for p in got.paraphrases if use is None or p.use == use]


def paired_paraphrases(probe: str, mode: str, use: Use) -> list[Paraphrase]:
    """The paired-prompt paraphrases of ``use`` for an identity search of ``probe`` in ``mode``
    (``likelihood`` or ``story`` for pst-text, ``images`` for pst)."""
    key = (probe, "images" if probe == "pst" else mode)
    if key not in _LIST_OF:
        raise KeyError(f"no paraphrases for probe {probe!r} in mode {mode!r}")
    return paraphrases(_LIST_OF[key], use)
