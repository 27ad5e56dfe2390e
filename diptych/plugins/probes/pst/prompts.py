"""The prompts of a ``pst`` run: Table 9's, or a fairness intervention of Section 5.

All are in ``diptych/prompts/pst_images.yaml``, each checked when it is loaded: a template may use
only the placeholders below and must name every person of its picture.
"""

from __future__ import annotations

import string
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator

from diptych.core.data import load_data

_PAIRED_FIELDS = frozenset({"id1", "id2", "occ1", "occ2", "a_id1", "a_id2"})
_SINGLE_FIELDS = frozenset({"id1", "occ1", "a_id1"})


def template_fields(template: str) -> set[str]:
    """The ``{placeholders}`` a prompt template uses: bare names only (a format spec such as
    ``{occupation:>99999999}`` would make each prompt any size it asks for)."""
    fields = set()
    for _, name, spec, conversion in string.Formatter().parse(template):
        if name is None:
            continue
        if spec or conversion or not name.isidentifier():
            raise ValueError(
                f"template {template!r}: a placeholder is a bare name such as {{occupation}}, "
                "with no format spec, conversion, index or attribute"
            )
        fields.add(name)
    return fields


def _check_template(template: str, allowed: frozenset[str], needs: list[set[str]]) -> str:
    fields = template_fields(template)
    unknown = sorted(fields - allowed)
    if unknown:
        raise ValueError(
            f"template {template!r} uses {unknown}; it may use {', '.join(sorted(allowed))}"
        )
    for person in needs:
        if not fields & person:
            # A prompt that leaves a person out asks for a different picture than the one scored.
            raise ValueError(f"template {template!r} never names {' / '.join(sorted(person))}")
    return template


def check_paired(template: str) -> str:
    """``template`` if it is a paired prompt: known placeholders, both people named."""
    return _check_template(
        template, _PAIRED_FIELDS, [{"id1", "occ1", "a_id1"}, {"id2", "occ2", "a_id2"}]
    )


def check_single(template: str) -> str:
    """``template`` if it is a single-person prompt: known placeholders, the person named."""
    return _check_template(template, _SINGLE_FIELDS, [{"id1", "occ1", "a_id1"}])


class Intervention(BaseModel):
    """A fairness-intervened pair of prompts (Section 5)."""

    model_config = ConfigDict(extra="forbid")
    source: str
    kind: Literal["ethical", "irrelevant"]
    #: The ENTIGEN phrasing it adapts, as ENTIGEN's prompt file writes it ([X]: the profession).
    entigen: str | None = None
    paired: str
    single: str

    _paired = field_validator("paired")(check_paired)
    _single = field_validator("single")(check_single)


class ImagePrompts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source: str
    single: str
    paired: str
    interventions: dict[str, Intervention]

    _paired = field_validator("paired")(check_paired)
    _single = field_validator("single")(check_single)


def image_prompts() -> ImagePrompts:
    return load_data("pst_images.yaml", ImagePrompts)


def with_article(identity: str) -> str:
    """``identity`` with its indefinite article: "an editor", "a carpenter".

    By first letter, which is right for every identity of Tables 7 and 8 (none starts with a
    silent "h" or a "you" sound).
    """
    return ("an " if identity[:1].lower() in "aeiou" else "a ") + identity


def fill(template: str, id1: str, id2: str | None = None) -> str:
    """A prompt from a template of ``pst_images.yaml`` and the identities it names."""
    values = {"id1": id1, "occ1": id1, "a_id1": with_article(id1)}
    if id2 is not None:
        values |= {"id2": id2, "occ2": id2, "a_id2": with_article(id2)}
    return template.format(**values)
