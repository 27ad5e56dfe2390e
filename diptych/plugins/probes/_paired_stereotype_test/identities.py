"""The identities of the Paired Stereotype Test, shared by the ``pst`` and ``pst-text`` probes.

Both draw their people from ``diptych/prompts/pst_identities.yaml``: the 20 male- and 20
female-stereotyped occupations of the PST paper's Table 7 and the power roles of its Table 8.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from diptych.core.data import load_data

GENDERS = ("masculine", "feminine")


class Occupations(BaseModel):
    model_config = ConfigDict(extra="forbid")
    masculine: list[str] = Field(min_length=1)
    feminine: list[str] = Field(min_length=1)


class PowerRoleTable(BaseModel):
    """Table 8's roles of high and low organizational power, and the occupations Section 4.2
    leaves out of the power aspect."""

    model_config = ConfigDict(extra="forbid")
    high: list[str]
    low: list[str]
    excluded_occupations: list[str]


class Identities(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source: str
    occupations: Occupations
    power_roles: PowerRoleTable


def identities() -> Identities:
    return load_data("pst_identities.yaml", Identities)


def occupation_subset(stereotype: Literal["masculine", "feminine"]) -> Any:
    """The parameter that picks some of one side's occupations of Table 7 (default: all 20),
    with the list a front end offers to pick from (the TUI's New-run form)."""
    side = {"masculine": "male", "feminine": "female"}[stereotype]
    return Field(
        None,
        description=f"subset of the {side}-stereotyped occupations (Table 7); default all 20",
        json_schema_extra={
            "choices": list[JsonValue](getattr(identities().occupations, stereotype))
        },
    )


def chosen_identities(given: list[str] | None, full: list[str], kind: str) -> list[str]:
    """``given`` checked against ``full`` (every identity of the kind), or all of ``full``."""
    if given is None:
        return list(full)
    if not given:
        # An empty list would drop one side of every pair without a word.
        raise ValueError(f"{kind} identities: the list is empty; name at least one or leave it out")
    repeated = sorted({g for g in given if given.count(g) > 1})
    if repeated:
        # A repeated identity would be counted twice in every score.
        raise ValueError(f"{kind} identities repeated: {repeated}; name each once")
    unknown = [g for g in given if g not in full]
    if unknown:
        raise ValueError(f"unknown {kind} identities {unknown}; known: {', '.join(full)}")
    return list(given)


def stereotyped_groups(
    masculine: list[str] | None, feminine: list[str] | None
) -> dict[str, list[str]]:
    """The occupations of each stereotyped gender a run uses (Table 7 order by default)."""
    occ = identities().occupations
    return {
        "masculine": chosen_identities(masculine, occ.masculine, "masculine"),
        "feminine": chosen_identities(feminine, occ.feminine, "feminine"),
    }
