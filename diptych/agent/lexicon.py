"""The candidate identities the agent proposes from, shipped as data with their sources.

``identity_lexicon.yaml`` holds the occupations of the SocialCounterfactuals study (Table 18)
and of PAIRS (Table A.1, with the BLS share of women in each); the PST paper's own identities
(``pst_identities.yaml``, Tables 7 and 8) join them at load time with the WinoBias BLS shares
(``winobias_bls_pct_female.tsv``). Paper identities are the partners a new identity is measured
against and are never offered as proposals; ``paper_synonyms.yaml`` names them under their other
names, so that "mechanic" is known to be Table 7's "mechanician".
"""

from __future__ import annotations

import csv
import random
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from diptych.agent import _prompts_dir
from diptych.core.yaml_input import load_yaml

Side = Literal["masculine", "feminine"]
SIDES: tuple[Side, Side] = ("masculine", "feminine")


class LexiconEntry(BaseModel):
    """One identity of ``identity_lexicon.yaml``."""

    model_config = ConfigDict(extra="forbid")
    identity: str
    kind: Literal["occupation", "power role", "other"] = "occupation"
    aliases: list[str] = Field(default_factory=list)
    #: Percent of workers who are women, where a source gives it.
    pct_female: float | None = Field(default=None, ge=0, le=100)
    #: The side a source puts the identity on (PAIRS's pair, the PST's table).
    stereotype: Side | None = None
    sources: list[str] = Field(min_length=1)
    evidence: str | None = None
    #: True for the PST paper's identities (Tables 7 and 8).
    paper: bool = False


class SideLabel(BaseModel):
    """How a side taken from one source is labelled: by the statistics its share of women comes
    from (``share``, with their year), or by the source itself where it states a side."""

    model_config = ConfigDict(extra="forbid")
    share: str | None = None
    side: str | None = None


class LexiconFile(BaseModel):
    """``identity_lexicon.yaml``."""

    model_config = ConfigDict(extra="forbid")
    version: str
    sources: dict[str, str]
    side_labels: dict[str, SideLabel]
    entries: list[LexiconEntry]
    left_out: dict[str, str]

    @model_validator(mode="after")
    def _labelled(self) -> LexiconFile:
        unknown = set(self.side_labels) - set(self.sources)
        if unknown:
            raise ValueError(f"side_labels: not a source: {sorted(unknown)}")
        for e in self.entries:
            if e.pct_female is not None and not any(
                self.side_labels.get(s, SideLabel()).share for s in e.sources
            ):
                raise ValueError(f"'{e.identity}': no source of its share of women is labelled")
        return self


class SynonymFile(BaseModel):
    """``paper_synonyms.yaml``."""

    model_config = ConfigDict(extra="forbid")
    version: str
    synonyms: dict[str, list[str]]


def normalise(word: str) -> str:
    """Lower case, single spaces: the form every lookup uses."""
    return " ".join(word.lower().split())


@dataclass(frozen=True)
class Lexicon:
    """Every entry by its name, every alias resolved, and the paper's synonyms."""

    version: str
    sources: dict[str, str]
    entries: dict[str, LexiconEntry]
    aliases: dict[str, str]
    #: Another name of a paper identity -> the paper's name.
    paper_synonyms: dict[str, str]
    #: How a side each source gives is labelled (``side_labels`` of the file).
    side_labels: dict[str, SideLabel]

    def share_label(self, entry: LexiconEntry) -> str:
        """The label of ``entry``'s share of women: its statistics and their year."""
        for source in entry.sources:
            label = self.side_labels.get(source)
            if label is not None and label.share:
                return label.share
        return "a published share"

    def side_label(self, entry: LexiconEntry) -> str:
        """The label of the side a source states for ``entry``."""
        for source in entry.sources:
            label = self.side_labels.get(source)
            if label is not None and label.side:
                return label.side
        return entry.sources[0]

    def entry(self, word: str) -> LexiconEntry | None:
        """The entry ``word`` names (its own name or an alias), or None."""
        key = normalise(word)
        return self.entries.get(self.aliases.get(key, key))

    def paper_name(self, word: str) -> str | None:
        """The PST paper's name for ``word`` when it is a paper identity under any name
        (itself, a listed synonym, or a plural), else None."""
        key = normalise(word)
        for form in _singulars(key):
            entry = self.entries.get(form)
            if entry is not None and entry.paper:
                return entry.identity
            if form in self.paper_synonyms:
                return self.paper_synonyms[form]
        return None

    def sides(self, entry: LexiconEntry) -> tuple[Side, ...]:
        """The sides ``entry`` may be proposed on: the one its share of women supports (the
        BLS rule :func:`diptych.agent.proposals.evidence_for` applies), else the side a source
        states, else both."""
        if entry.pct_female is not None and entry.pct_female != 50:
            return ("masculine",) if entry.pct_female < 50 else ("feminine",)
        if entry.stereotype is not None:
            return (entry.stereotype,)
        return SIDES

    def candidates(
        self, side: Side, kinds: Iterable[str], exclude: Iterable[str] = ()
    ) -> list[str]:
        """Names that may be proposed on ``side``: not the paper's, of an allowed kind, on
        that side, and not in ``exclude`` (what was tried), in the file's order."""
        allowed = set(kinds)
        skip = {normalise(w) for w in exclude}
        return [
            name
            for name, e in self.entries.items()
            if not e.paper and e.kind in allowed and side in self.sides(e) and name not in skip
        ]

    def draw(
        self, n: int, kinds: Iterable[str], exclude: Iterable[str], seed: int
    ) -> list[tuple[str, str]]:
        """``n`` (masculine, feminine) pairs drawn at random without an LLM, no identity
        twice and none of ``exclude``; fewer when the lexicon runs out."""
        rng = random.Random(seed)
        kinds = list(kinds)
        used = {normalise(w) for w in exclude}
        out: list[tuple[str, str]] = []
        for _ in range(n):
            masc = self.candidates("masculine", kinds, used)
            if not masc:
                break
            m = rng.choice(masc)
            fem = self.candidates("feminine", kinds, used | {m})
            if not fem:
                break
            f = rng.choice(fem)
            used |= {m, f}
            out.append((m, f))
        return out


def _singulars(word: str) -> list[str]:
    """``word`` and the singular forms its last word may have ("nurses", "hairdressers")."""
    head, _, last = word.rpartition(" ")
    prefix = f"{head} " if head else ""
    forms = [word]
    if last.endswith("ies") and len(last) > 4:
        forms.append(prefix + last[:-3] + "y")
    if last.endswith("es") and len(last) > 3:
        forms.append(prefix + last[:-2])
    if last.endswith("s") and not last.endswith("ss") and len(last) > 2:
        forms.append(prefix + last[:-1])
    return forms


def _load_yaml(name: str) -> object:
    return load_yaml(_prompts_dir() / name)


def _paper_entries() -> list[LexiconEntry]:
    """The PST paper's identities, with the WinoBias BLS share of women where it has one."""
    data = _load_yaml("pst_identities.yaml")
    assert isinstance(data, dict)
    with (_prompts_dir() / "winobias_bls_pct_female.tsv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    # The PST renamed two WinoBias rows (SOURCES.md): its names are the table's `table_name`
    # "mechanician" and "sewist" for the table's `sewer`.
    bls: dict[str, float] = {}
    for row in rows:
        bls[normalise(row["occupation"])] = float(row["pct_female"])
        bls[normalise(row["table_name"])] = float(row["pct_female"])
    bls["sewist"] = bls["sewer"]
    out: dict[str, LexiconEntry] = {}
    groups: list[tuple[list[str], Side, str, str]] = [
        (data["occupations"]["masculine"], "masculine", "occupation", "Table 7"),
        (data["occupations"]["feminine"], "feminine", "occupation", "Table 7"),
        (data["power_roles"]["high"], "masculine", "power role", "Table 8"),
        (data["power_roles"]["low"], "feminine", "power role", "Table 8"),
    ]
    for names, side, kind, table in groups:
        for raw in names:
            name = normalise(raw)
            if name in out:  # manager, supervisor, ceo, assistant: Table 7 and Table 8
                continue
            pct = bls.get(name)
            out[name] = LexiconEntry(
                identity=name,
                kind=kind,  # type: ignore[arg-type]
                pct_female=pct,
                stereotype=side,
                sources=["pst", "winobias_bls"] if pct is not None else ["pst"],
                evidence=f"PST {table}, {side}"
                + (f"; WinoBias BLS {pct:g}% women" if pct is not None else ""),
                paper=True,
            )
    return list(out.values())


@cache
def lexicon() -> Lexicon:
    """The shipped lexicon (loaded once)."""
    shipped = LexiconFile.model_validate(_load_yaml("identity_lexicon.yaml"))
    synonyms = SynonymFile.model_validate(_load_yaml("paper_synonyms.yaml"))
    entries: dict[str, LexiconEntry] = {}
    aliases: dict[str, str] = {}
    for entry in [*_paper_entries(), *shipped.entries]:
        name = normalise(entry.identity)
        if name in entries or name in aliases:
            raise ValueError(f"identity_lexicon.yaml: '{name}' is listed twice")
        entries[name] = entry
        for alias in entry.aliases:
            aliases[normalise(alias)] = name
    paper = {
        normalise(other): normalise(name)
        for name, others in synonyms.synonyms.items()
        for other in others
    }
    unknown = {p for p in paper.values() if p not in entries or not entries[p].paper}
    if unknown:
        raise ValueError(f"paper_synonyms.yaml: not paper identities: {sorted(unknown)}")
    return Lexicon(shipped.version, shipped.sources, entries, aliases, paper, shipped.side_labels)
