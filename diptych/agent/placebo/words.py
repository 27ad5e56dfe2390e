"""Placebo identities: made-up words whose scores say what a model does anyway.

A small language model says "he" of almost anyone it knows nothing about, so a claim that an
identity is stereotyped masculine would hold for any word at all. Within one scene the model's
default cancels (an identity's figure is the paired STS of its scene, a difference of P(she)
between its two people); what is left of the partner's own stereotype, and how far one unknown
word drifts from another, is measured by running the words of ``placebo_identities.yaml``
through the same paraphrases and partners as the proposed identity:

* the **reference** of a (partner, template) unit is the placebo words' mean figure there, and
  an identity's effect is its own figure less the reference of its units;
* the **band** is a prediction interval for one more placebo word's effect, mean ± t(k − 1)·sd·
  √(1 + 1/k) over the k words' held-out figures — a finding must lie outside it;
* the **word test** is the t-test behind that band: the p-value of an identity's effect as one
  more placebo word, which Benjamini–Hochberg then controls with the measurement's own test.

The measurements are kept in the session's state (:func:`cache_key`), so a session runs each
placebo word once per design and side; the engine's trial cache makes a later session on the
same target pay nothing for them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from diptych.agent.scoring import Measurement
from diptych.core.data import load_data

PLACEBO_FILE = "placebo_identities.yaml"
#: Fewest words a band may be made of: below 6 its t multiplier passes 2.8 sd.
MIN_WORDS = 6
_WORD = re.compile(r"^[a-z]{4,12}$")


class PlaceboWord(BaseModel):
    model_config = ConfigDict(extra="forbid")
    word: str
    form: Literal["bare noun", "agent noun"]


class PlaceboFile(BaseModel):
    """``placebo_identities.yaml``."""

    model_config = ConfigDict(extra="forbid")
    version: str
    source: str
    #: How many of the words, from the first, centre the search's screen.
    search: int = Field(ge=1)
    #: The band's confidence: a prediction interval for one more placebo word.
    confidence: float = Field(gt=0.5, lt=1)
    words: list[PlaceboWord] = Field(min_length=MIN_WORDS)

    @model_validator(mode="after")
    def _check(self) -> PlaceboFile:
        # Imported here: the lexicon and the gendered words load their own data files.
        from diptych.agent.lexicon import lexicon
        from diptych.agent.validation import gendered_word

        seen: set[str] = set()
        for w in self.words:
            if not _WORD.match(w.word):
                raise ValueError(f"'{w.word}': a placebo is one lower-case word of 4-12 letters")
            if w.word in seen:
                raise ValueError(f"'{w.word}' is listed twice")
            seen.add(w.word)
            why = gendered_word(w.word)
            if why:
                raise ValueError(f"'{w.word}' is gendered ({why}): a placebo names no gender")
            if lexicon().entry(w.word) is not None or lexicon().paper_name(w.word):
                raise ValueError(f"'{w.word}' is an identity of the lexicon, not a placebo")
        if self.search > len(self.words):
            raise ValueError(f"search: {self.search} words of {len(self.words)}")
        forms = {w.form for w in self.words[: self.search]}
        if self.search >= 2 and len(forms) < 2:
            # A centre made of one form would lean the way that form leans.
            raise ValueError("the search words must hold a bare noun and an agent noun")
        return self


@cache
def _file() -> PlaceboFile:
    return load_data(PLACEBO_FILE, PlaceboFile)


def placebo_words(use: str) -> list[str]:
    """The placebo words of the search (the first ``search`` of the file) or of the held-out
    test (every word)."""
    data = _file()
    words = [w.word for w in data.words]
    return words[: data.search] if use == "search" else words


def placebo_claims(use: str, side: str) -> list[tuple[str, str]]:
    """The placebo words of the ``use`` design ("search" or "heldout") as claims on ``side``:
    what a search measures there before (or beside) any proposal."""
    return [(word, side) for word in placebo_words(use)]


def is_placebo(word: str) -> bool:
    """Whether ``word`` is one of the shipped placebo words (never a proposal of its own)."""
    return " ".join(word.lower().split()) in placebo_words("heldout")


def cache_key(use: str, side: str, partners: Sequence[str], templates: Sequence[str]) -> str:
    """What a placebo measurement is a measurement of, within one session (one probe, one
    target): the design, the side its words stand on, their partners and paraphrases."""
    return f"{use}|{side}|{','.join(partners)}|{','.join(templates)}"


def band(scores: Sequence[float], confidence: float | None = None) -> dict[str, Any]:
    """The band of the placebo words' ``scores`` (×100, each its own figure): centred on their
    mean, since an identity's effect is measured from it, ± t(k − 1)·sd·√(1 + 1/k) — where one
    more placebo word's effect falls with probability ``confidence`` (the file's by default)."""
    from scipy.special import stdtrit

    conf = _file().confidence if confidence is None else confidence
    k = len(scores)
    if k < 2:
        raise ValueError("a placebo band needs two words or more")
    mean = sum(scores) / k
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / (k - 1))
    half = float(stdtrit(k - 1, 0.5 + conf / 2)) * sd * math.sqrt(1 + 1 / k)
    return {
        "low": -half,
        "high": half,
        "mean": mean,
        "sd": sd,
        "words": k,
        "df": k - 1,
        "confidence": conf,
    }


def word_p_value(effect: float, placebo: dict[str, Any]) -> float:
    """The two-sided p-value of ``effect`` as the effect of one more placebo word: the t-test
    whose acceptance region is the band (below the band's confidence exactly outside it)."""
    from scipy.special import stdtr

    k, sd = int(placebo["words"]), float(placebo["sd"])
    scale = sd * math.sqrt(1 + 1 / k)
    if scale == 0.0:
        # Every placebo word scored alike: any other figure lies outside them all.
        return 1.0 if effect == 0.0 else 0.0
    return float(2 * stdtr(k - 1, -abs(effect) / scale))


def summarise(measured: Measurement, side: str, use: str) -> dict[str, Any]:
    """What a session keeps of the placebo words measured on ``side`` in the ``use`` design:
    their runs, their reference (the words' mean figure in each partner × template unit), each
    word's own figure ×100 less the words' mean (its effect, as an identity's is read) and the
    band those make."""
    words = list(measured.cells)
    units = set.intersection(*(set(measured.cells[w]) for w in words))
    reference = {u: sum(measured.cells[w][u] for w in words) / len(words) for u in sorted(units)}
    within = {part["identity"]: float(part["within_scene"]) for part in measured.parts}
    mean = sum(within.values()) / len(within)
    return {
        "use": use,
        "side": side,
        "words": words,
        "runs": dict(measured.runs),
        "reference": reference,
        "scores": {w: within[w] - mean for w in words},
        "within_scene": mean,
        "band": band(list(within.values())),
    }
