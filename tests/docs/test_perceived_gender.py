"""Gender read from an image is a perceived gender — a classifier's or a reviewer's reading, not
the person's — and every surface that names a label read so says "perceived gender": the
manual's pages, the report's verdict and glossary, and the review screen's measurement keys."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from diptych.core.report.glossary import GLOSSARY
from diptych.core.report.verdict import _lean_sts

DOCS = Path(__file__).resolve().parents[2] / "docs"
#: The pages that describe labels read from images: annotators, review, calibration, the pst
#: probe and its benchmarks.
PAGES = [
    "annotators.md", "benchmarks.md", "calibration.md", "concepts.md", "gates.md", "index.md",
    "review-flags.md", "tui.md", "probes/pst.md",
]  # fmt: skip
#: Ways of naming a gender an annotator or a reviewer gives, each of which must say it is
#: perceived (the stereotyped gender of an identity, a prompt's told gender and the gender
#: words a parser reads are other things, and not matched here).
READ_GENDER = re.compile(
    r"(?<!perceived )(?<!perceived-)\b("
    r"gender labels?|gender classifier|gender can(?:not)? be told|gives? a gender|"
    r"gave a gender|given a gender|different genders|`t gender`|back to gender|"
    r"while gender is|a gender × (?:skin )?tone|P\(chosen gender\)|\*\*Gender\.\*\*|"
    r"every gender `faces` gives|the genders `faces` gives|tells no\s+gender"
    r")"
)


@pytest.mark.parametrize("page", PAGES)
def test_the_manual_says_a_gender_read_from_an_image_is_perceived(page: str) -> None:
    text = " ".join((DOCS / page).read_text(encoding="utf-8").split())
    found = [m.group(0) for m in READ_GENDER.finditer(text)]
    assert found == [], (page, found)


def _part(probe: str) -> Any:
    return SimpleNamespace(view=SimpleNamespace(run=SimpleNamespace(probe=probe)))


def test_the_verdict_says_perceived_gender_for_images_and_pronoun_for_text() -> None:
    assert _lean_sts(_part("pst"), True) == (
        "shows people as the stereotyped perceived gender more often than as the other"
    )
    assert _lean_sts(_part("pst"), False) == (
        "shows people as the stereotyped perceived gender less often than as the other "
        "(against the stereotype)"
    )
    assert _lean_sts(_part("pst-text"), True) == (
        "assigns the stereotyped pronoun more often than the other pronoun"
    )


def test_the_glossary_reads_the_sts_from_perceived_gender() -> None:
    sts = GLOSSARY["STS"]
    assert "perceived gender matches" in sts
    assert "always the stereotyped gender perceived" in sts
