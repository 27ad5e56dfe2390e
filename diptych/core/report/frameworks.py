"""The frameworks a bias report answers to: the report's appendix that maps what was measured
onto clauses of regulations, standards and guides (the shipped ``frameworks.yaml``, and an
organisation's own files of the same shape) — for each clause what this report evidences, what
it does not, and the sections where the evidence is.

The report is evidence for an examination, never a verdict on it: no text of the appendix may
claim that a system satisfies a framework. :func:`claim_words` finds such words
(:data:`CLAIM_WORDS`), and a framework file that holds one is refused with the item and the word,
so that an organisation's file cannot put a verdict into the report either.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from diptych.core.data import load_data
from diptych.core.errors import InputFileError
from diptych.core.report.wording import MEASURES_AN_ANNOTATOR
from diptych.core.yaml_input import load_yaml

if TYPE_CHECKING:
    from diptych.core.report.audit import Audit

FRAMEWORKS_FILE = "frameworks.yaml"

#: Words that claim a system satisfies a framework: never in a report's appendix.
CLAIM_WORDS = re.compile(
    r"\b(?:complian(?:t|ce)|complies|comply|meets?\s+the\s+requirements?|certif\w*|conform\w*)",
    re.IGNORECASE,
)

#: The kinds of evidence an audit can hold (frameworks.yaml's header says what each is).
Evidence = Literal[
    "measured", "counterfactual", "tested", "annotated", "compared", "published", "ranked"
]
#: The report's sections an item can point to.
SectionKey = Literal[
    "findings", "results", "mitigations", "standings", "review", "limitations", "methods",
    "provenance",
]  # fmt: skip

#: Each section's title and its anchor in each format.
SECTIONS: dict[str, tuple[str, dict[str, str]]] = {
    "findings": ("Findings", {"html": "summary", "md": "findings"}),
    "results": ("Results", {"html": "results", "md": "results"}),
    "mitigations": ("Mitigations compared", {"html": "mitigations", "md": "mitigations-compared"}),
    "standings": ("Standing among models", {"html": "standings", "md": "standing-among-models"}),
    "review": ("Human review", {"html": "review", "md": "human-review-and-agreement"}),
    "limitations": ("Limitations", {"html": "limitations", "md": "limitations"}),
    "methods": ("Methods", {"html": "methods", "md": "appendix-a-methods"}),
    "provenance": ("Provenance", {"html": "provenance", "md": "provenance"}),
}

#: Probes whose prompts differ only in the identity they name (paired scenes, parallel images,
#: counterfactual sets).
COUNTERFACTUAL_PROBES = frozenset({"pst", "pst-text", "pairs", "counterfactual"})


#: Where the findings stand in the language auditors are asked for, said beside the actions;
#: the appendix maps each clause.
CONTEXT: list[dict[str, str]] = [
    {
        "name": "NIST AI 600-1",
        "citation": (
            "NIST AI 600-1, Artificial Intelligence Risk Management Framework: Generative "
            "Artificial Intelligence Profile (July 2024), risk 2.6 “Harmful Bias and "
            "Homogenization”"
        ),
        "text": (
            "The figures above measure one form of this risk: whether the model's outputs "
            "reproduce a social stereotype (gender by occupation or power, race by status or "
            "crime) for inputs that give no reason to."
        ),
    },
    {
        "name": "EU AI Act, Article 10",
        "citation": (
            "Regulation (EU) 2024/1689 (AI Act), Article 10(2)(f)–(g): examination of possible "
            "biases and measures to detect, prevent and mitigate them"
        ),
        "text": (
            "This report is evidence of such an examination for the probes and models it names; "
            "it does not judge the system's legal standing."
        ),
    },
]


#: The same frameworks' place for a report whose every figure is an annotator's accuracy (a
#: calibration): it measures how far labels can be trusted, not a model's bias.
ACCURACY_CONTEXT: list[dict[str, str]] = [
    {
        "name": CONTEXT[0]["name"],
        "citation": CONTEXT[0]["citation"],
        "text": (
            "The accuracies above do not measure this risk: they measure how often an automatic "
            "annotator's labels agree with people's, which bounds the error of any bias figure "
            "built on that annotator's labels."
        ),
    },
    {
        "name": CONTEXT[1]["name"],
        "citation": CONTEXT[1]["citation"],
        "text": (
            "This report examines no model's biases: it is evidence of how accurately the "
            "annotators it names label people, which an examination that uses their labels "
            "rests on; it does not judge the system's legal standing."
        ),
    },
]


class Source(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str
    clause: str
    url: str = Field(pattern=r"^https?://\S+$")
    retrieved: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")


class Item(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    source: Source
    subject: str
    evidenced_when: list[Evidence] = Field(min_length=1)
    evidences: str
    does_not: str
    sections: list[SectionKey] = Field(min_length=1)


class Framework(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    items: list[Item] = Field(min_length=1)


class FrameworksFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: str
    frameworks: list[Framework]


def claim_words(text: str) -> list[str]:
    """The words of ``text`` that would claim a framework is satisfied."""
    return [m.group(0) for m in CLAIM_WORDS.finditer(text)]


def _texts(item: Item) -> Iterable[tuple[str, str]]:
    yield "subject", item.subject
    yield "evidences", item.evidences
    yield "does_not", item.does_not
    yield "source.title", item.source.title
    yield "source.clause", item.source.clause


def check_wording(data: FrameworksFile, where: str) -> None:
    """Refuse a framework file any of whose texts claims a framework is satisfied."""
    for framework in data.frameworks:
        for text in (framework.name,):
            if claim_words(text):
                raise InputFileError(_refusal(where, framework.id, "name", claim_words(text)))
        for item in framework.items:
            for field_name, text in _texts(item):
                found = claim_words(text)
                if found:
                    raise InputFileError(_refusal(where, item.id, field_name, found))


def _refusal(where: str, item: str, field_name: str, found: list[str]) -> str:
    return (
        f"{where}: item '{item}' {field_name} says '{found[0]}'; a report states what it "
        "measured, never that a framework is satisfied: say what the report evidences instead"
    )


def shipped_frameworks() -> FrameworksFile:
    data = load_data(FRAMEWORKS_FILE, FrameworksFile)
    check_wording(data, FRAMEWORKS_FILE)
    return data


def read_frameworks_file(path: Path) -> FrameworksFile:
    """An organisation's framework file, validated and its wording checked; every failure is
    one :class:`InputFileError` naming the file."""
    raw = load_yaml(Path(path))
    try:
        data = FrameworksFile.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        at = ".".join(str(p) for p in first["loc"])
        raise InputFileError(
            f"{path}: '{at}': {first['msg']} (a framework file has the shape of diptych's "
            "frameworks.yaml)"
        ) from None
    check_wording(data, str(path))
    return data


def frameworks(extra: Sequence[Path] = ()) -> list[Framework]:
    """The shipped frameworks and then each extra file's, in order; an id given twice is
    refused (an organisation extends the mapping, it does not silently replace an item)."""
    out = list(shipped_frameworks().frameworks)
    for path in extra:
        out += read_frameworks_file(path).frameworks
    seen: set[str] = set()
    for framework in out:
        for item_id in [framework.id] + [i.id for i in framework.items]:
            if item_id in seen:
                raise InputFileError(
                    f"framework or item id '{item_id}' is given twice; give your own items "
                    "ids of their own"
                )
            seen.add(item_id)
    return out


def evidence_of(audit: Audit) -> set[str]:
    """The kinds of evidence ``audit`` holds."""
    found: set[str] = set()
    for part in audit.runs:
        # An annotator's accuracies are no figure across identity groups of a model's output.
        calibrates = part.view.run.probe in MEASURES_AN_ANNOTATOR
        numbers = [] if calibrates else list(part.result.numbers.values())
        if numbers:
            found.add("measured")
        if any(isinstance(n, dict) and n.get("ci_low") is not None for n in numbers):
            found.add("tested")
        if part.view.run.probe in COUNTERFACTUAL_PROBES and numbers:
            found.add("counterfactual")
        if part.review is not None and part.review.human_labels:
            found.add("annotated")
    if audit.comparisons:
        found.add("compared")
    if audit.standings is not None:
        found.add("ranked")
    from diptych.core.report.verdict import published_context

    if published_context(audit):
        found.add("published")
    return found


@dataclass(frozen=True)
class MappedItem:
    """One clause as the appendix gives it."""

    framework: str
    id: str
    clause: str
    title: str
    url: str
    retrieved: str
    subject: str
    evidenced: bool
    evidences: str
    does_not: str
    #: (section key, title) of each section the evidence is in.
    sections: list[tuple[str, str]]

    def anchor(self, key: str, fmt: str) -> str:
        return SECTIONS[key][1][fmt]

    def to_dict(self) -> dict[str, object]:
        return {
            "framework": self.framework, "id": self.id, "clause": self.clause,
            "title": self.title, "url": self.url, "retrieved": self.retrieved,
            "subject": self.subject, "evidenced": self.evidenced, "evidences": self.evidences,
            "does_not": self.does_not, "sections": [key for key, _ in self.sections],
        }  # fmt: skip


_EVIDENCE_WORDS = {
    "measured": "figures measured across identity groups",
    "counterfactual": "a probe of counterfactual prompts",
    "tested": "figures with intervals and tests",
    "annotated": "people's labels of a sample",
    "compared": "a mitigation measured against a baseline",
    "published": "a published figure to set beside ours",
    "ranked": "several models side by side",
}


def by_framework(items: Sequence[MappedItem]) -> list[tuple[str, list[MappedItem]]]:
    """The items under their frameworks' names, in the order given."""
    out: dict[str, list[MappedItem]] = {}
    for item in items:
        out.setdefault(item.framework, []).append(item)
    return list(out.items())


def appendix(audit: Audit, listed: Sequence[Framework]) -> list[MappedItem]:
    """Each item of ``listed`` mapped onto what ``audit`` holds; a section the report does
    not have (the standings of a one-model report) is not pointed to."""
    held = evidence_of(audit)
    absent = set() if audit.standings is not None else {"standings"}
    out = []
    for framework in listed:
        for item in framework.items:
            evidenced = bool(held & set(item.evidenced_when))
            evidences = item.evidences
            if not evidenced:
                lacking = " or ".join(_EVIDENCE_WORDS[k] for k in item.evidenced_when)
                evidences = f"Nothing in this report: it does not hold {lacking}."
            out.append(
                MappedItem(
                    framework=framework.name,
                    id=item.id,
                    clause=item.source.clause,
                    title=item.source.title,
                    url=item.source.url,
                    retrieved=item.source.retrieved,
                    subject=item.subject,
                    evidenced=evidenced,
                    evidences=evidences,
                    does_not=item.does_not,
                    sections=[(k, SECTIONS[k][0]) for k in item.sections if k not in absent],
                )
            )
    return out
