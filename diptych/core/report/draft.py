"""A narrative drafted by a Chat model, kept only where the results bear it out.

The model writes a summary and a discussion from the report's headline sentences. Each sentence
it writes is checked against the results: every number in it must equal a number of the results
at the precision the sentence prints it (``0.4`` matches 0.41 and 0.38, not 0.46; ``45%``
also matches 0.45), and a sentence that calls a difference significant (or not) must name a
figure of a test whose p-value says so at the 5% level. Each number must also stand under the
name of the figure it belongs to (its name or a synonym in :data:`SYNONYMS`): the right number
under the wrong name is dropped too. A sentence that fails is dropped and
listed, with why, for the auditor; what is kept is marked as drafted by a model.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from diptych.core.capabilities import Chat, Message, Sampling
from diptych.core.errors import UsageError
from diptych.core.report.headlines import ALPHA, headlines

if TYPE_CHECKING:
    from diptych.core.capabilities import Model
    from diptych.core.report.audit import Audit

#: Numbers a sentence may use that are conventions, not results: the interval's and the
#: test's levels.
CONVENTIONS = (95.0, 5.0, 0.05)
_NUMBER = re.compile(r"(?<![\w.])([-−]?\d+(?:,\d{3})*(?:\.\d+)?)(%?)")
_SIGNIFICANT = re.compile(r"\bsignifican(?:t|tly|ce)\b", re.IGNORECASE)
_NEGATED = re.compile(
    r"\b(?:not|no|n't|insignificant|non-?significant|neither|nor|without)\b", re.IGNORECASE
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"“(\[A-Z0-9−-])")

SYSTEM = (
    "You draft the summary and discussion of a bias audit report. Use only the figures "
    "given, copied exactly as printed, each beside the name of the figure it belongs to. "
    "Call a difference significant only where its p-value "
    "is below 0.05 as given. Write plain prose, at most eight sentences, no lists, no headings."
)


@dataclass(frozen=True)
class Dropped:
    sentence: str
    reason: str


@dataclass
class DraftedNarrative:
    """What the model wrote, split into the sentences kept and those dropped (with why)."""

    model: str
    kept: list[str] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "drafted_by_model": self.model,
            "kept": self.kept,
            "dropped": [asdict(d) for d in self.dropped],
        }


@dataclass(frozen=True)
class SignificanceTest:
    """A headline figure that carries a p-value: its numbers and whether p < ALPHA."""

    name: str
    numbers: tuple[float, ...]
    significant: bool


#: The words a sentence may name a figure by, by a word of the figure's name.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "sts": ("sts", "stereotype test score", "stereotype score", "stereotype"),
    "association": ("association",),
    "difference": ("difference", "differ", "gap"),
    "gap": ("gap", "difference between paired and single", "paired − single"),
    "skew": ("maxskew", "minskew", "max skew", "min skew", "skew"),
    "ndkl": ("ndkl", "kl divergence", "kullback"),
    "bias@k": ("bias@k", "bias at k"),
    "refusal": ("refusal", "refuse", "declin"),
    "neither": ("neither",),
    "share": ("share", "proportion", "percent", "rate"),
    "rate": ("rate", "share", "proportion", "percent"),
    "p(he)": ("p(he)", "p(she)", "probability mass", "pronoun probabilit"),
    "p(she)": ("p(she)", "p(he)", "probability of she", "pronoun probabilit"),
    "pearson": ("pearson", "correlat"),
    "κ": ("kappa", "κ", "agreement"),
    "agreement": ("agreement", "kappa", "κ", "alpha"),
    "%f": ("%f", "share of women", "women", "female", "percent"),
}
#: Words that name what a count counts.
COUNT_TERMS = (
    "n =", "n=", "scenes", "scene", "prompts", "identit", "images", "pairs", "people",
    "persons", "trials", "scenario", "observations", "samples", "runs", "occupations",
)  # fmt: skip
_COUNT_KEYS = ("n", "n_pairs", "clusters", "units", "df", "n_single", "n_paired")


def figure_terms(name: str) -> tuple[str, ...]:
    """The words a sentence may name the figure ``name`` by: its kind's synonyms, else the
    longer words of its name."""
    lower = name.lower()
    found = [t for key, terms in SYNONYMS.items() if key in lower for t in terms]
    if not found:
        found = [w for w in re.findall(r"[a-z][a-z@%()-]{3,}", lower)]
    return tuple(dict.fromkeys(found))


@dataclass(frozen=True)
class NamedNumber:
    """A number of the results and the words that name what it is."""

    value: float
    figure: str
    terms: tuple[str, ...]


@dataclass
class Facts:
    numbers: list[float]
    tests: list[SignificanceTest]
    named: list[NamedNumber] = field(default_factory=list)


def _numeric(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _walk(value: Any, out: list[float]) -> None:
    number = _numeric(value)
    if number is not None:
        out.append(number)
    elif isinstance(value, dict):
        for v in value.values():
            _walk(v, out)
    elif isinstance(value, list | tuple):
        for v in value:
            _walk(v, out)


def facts_of(audit: Audit) -> Facts:
    """Every number the report prints (headline figures, tables, counts, comparisons) and the
    tests among the headline figures."""
    numbers: list[float] = list(CONVENTIONS)
    tests: list[SignificanceTest] = []
    results = [part.result for part in audit.runs] + [c.result for c in audit.comparisons]
    named: list[NamedNumber] = []

    def add(values: list[float], figure: str, terms: tuple[str, ...]) -> None:
        named.extend(NamedNumber(v, figure, terms) for v in values)

    for part in audit.runs:
        for status, n in part.counts.items():
            add([float(n)], f"{status} trials", (status, *COUNT_TERMS))
        _walk(part.counts, numbers)
        numbers.append(float(sum(part.counts.values())))
        add([float(sum(part.counts.values()))], "trials", COUNT_TERMS)
    for result in results:
        _walk(result.numbers, numbers)
        for figure, number in result.numbers.items():
            terms = figure_terms(figure)
            if not isinstance(number, dict):
                continue
            for key, value in number.items():
                found: list[float] = []
                _walk(value, found)
                if key in _COUNT_KEYS:
                    add(found, figure, (*terms, *COUNT_TERMS))
                elif key in ("p", "p_value", "permutation_p"):
                    add(found, f"{figure}, p", (*terms, "p =", "p<", "p-value", "p value", "p "))
                else:
                    add(found, figure, terms)
        for table in result.tables:
            _walk(table.rows, numbers)
            for row in table.rows:
                for column, cell in zip(table.columns, row, strict=False):
                    found = []
                    _walk(cell, found)
                    if isinstance(cell, str):
                        found += [
                            float(t.replace(",", "")) for t in re.findall(r"-?\d+(?:\.\d+)?", cell)
                        ]
                    label = f"{table.title}: {column}"
                    terms = figure_terms(f"{table.title} {column}")
                    if (
                        column.startswith("n")
                        or "count" in column
                        or column in ("images", "persons", "prompts paired")
                    ):
                        terms = (*terms, *COUNT_TERMS)
                    add(found, label, terms)
        for name, number in result.numbers.items():
            p = _numeric(number.get("p"))
            if p is not None:
                own: list[float] = []
                _walk(number, own)
                tests.append(SignificanceTest(name, tuple(own), p < ALPHA))
    return Facts(numbers, tests, named)


def _matches(token: str, percent: bool, candidates: list[float] | tuple[float, ...]) -> bool:
    text = token.replace("−", "-").replace(",", "")
    decimals = len(text.split(".")[1]) if "." in text else 0
    value = abs(float(text))
    for f in candidates:
        if f"{abs(f):.{decimals}f}" == f"{value:.{decimals}f}":
            return True
        if percent and f"{abs(f) * 100:.{decimals}f}" == f"{value:.{decimals}f}":
            return True
    return False


def check_sentence(sentence: str, facts: Facts) -> str | None:
    """Why the sentence cannot stand, or None when the results bear it out."""
    tokens = _NUMBER.findall(sentence)
    lower = sentence.lower()
    for token, percent in tokens:
        if not _matches(token, bool(percent), facts.numbers):
            return f"the number {token}{percent} is not in the results"
        if not facts.named or _matches(token, bool(percent), CONVENTIONS):
            continue
        owners = [n for n in facts.named if _matches(token, bool(percent), (n.value,))]
        if owners and not any(_names(lower, n.terms) for n in owners):
            figures = list(dict.fromkeys(n.figure for n in owners))[:2]
            return (
                f"the number {token}{percent} is {' or '.join(figures)}, which the sentence "
                "does not name"
            )
    if _SIGNIFICANT.search(sentence):
        claims = not _NEGATED.search(sentence)
        named = [
            t
            for t in facts.tests
            if any(
                _matches(tok, bool(pc), t.numbers)
                for tok, pc in tokens
                if _numeric(float(tok.replace("−", "-").replace(",", ""))) not in CONVENTIONS
            )
        ]
        if not named:
            return "it speaks of significance without a figure of a test"
        wrong = [t.name for t in named if t.significant != claims]
        if wrong:
            said = "significant" if claims else "not significant"
            return f"it calls {', '.join(wrong)} {said}, which its test does not bear out"
    return None


def _names(sentence: str, terms: tuple[str, ...]) -> bool:
    """Whether the (lower-case) sentence names one of ``terms``."""
    return any(
        re.search(r"(?<![a-z])" + re.escape(t.strip()), sentence) for t in terms if t.strip()
    )


def sentences(text: str) -> list[str]:
    flat = " ".join(line.strip() for line in text.splitlines() if line.strip())
    return [s.strip() for s in _SENTENCE_END.split(flat) if s.strip()]


def verify(text: str, facts: Facts, model: str) -> DraftedNarrative:
    """Keep the sentences the results bear out; list the others with why."""
    draft = DraftedNarrative(model=model)
    for sentence in sentences(text):
        reason = check_sentence(sentence, facts)
        if reason is None:
            draft.kept.append(sentence)
        else:
            draft.dropped.append(Dropped(sentence, reason))
    return draft


def draft_messages(audit: Audit) -> list[Message]:
    figures = "\n".join(f"- {h.sentence}" for h in headlines(audit))
    compared = "\n".join(
        f"- {c.result.title}: "
        + "; ".join(
            f"{name} = {number.get('value')}" + (f", p = {number['p']}" if "p" in number else "")
            for name, number in c.result.numbers.items()
        )
        for c in audit.comparisons
    )
    user = f"Results of the audit:\n{figures}\n"
    if compared:
        user += f"Mitigations compared:\n{compared}\n"
    user += "Write the summary and the discussion."
    return [Message(role="system", content=SYSTEM), Message(role="user", content=user)]


async def draft_narrative(model: Model, audit: Audit) -> DraftedNarrative:
    """Ask ``model`` (a Chat model) for the narrative and keep what the results bear out."""
    if not isinstance(model, Chat):
        raise UsageError(
            f"model '{model.name}' cannot draft a narrative: it is not a chat model "
            "('diptych plugins' lists which are)"
        )
    model.load()
    text = await model.complete(draft_messages(audit), Sampling(temperature=0.0, max_tokens=400))
    return verify(text, facts_of(audit), getattr(model, "model_id", model.name))
