"""What the agent may not propose, each refusal with its reason.

Identities: a gendered word (``gendered_words.yaml``: pronouns, gender words, kinship terms,
gendered titles and occupations, and the -man / -ess / -boy / -trix forms no list can hold)
gives the answer away, so a pair like "foreman | seamstress" measures its words, not the model.
A paper identity under another name ("mechanic" for Table 7's "mechanician",
``paper_synonyms.yaml``) is not new.

Interventions (``diptych agent mitigate``): one that names or implies a gender or sets a pronoun
makes the model's pronoun a matter of instruction; one shaped like an instruction or markup
(``intervention_rules.yaml``: role words, "ignore", angle brackets, code fences) is an injection;
a rewrite that drops or adds a placeholder measures another prompt.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from dataclasses import dataclass
from functools import cache

from pydantic import BaseModel, ConfigDict

from diptych.agent import _prompts_dir
from diptych.agent.lexicon import lexicon
from diptych.core.yaml_input import load_yaml

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
#: A quoted pronoun ("use 'they'") sets the pronoun as surely as naming one.
_QUOTED_PRONOUN = re.compile(r"[\"'“‘](they|them|their|theirs|themself|themselves)[\"'”’]")


class GenderedWordsFile(BaseModel):
    """``gendered_words.yaml``."""

    model_config = ConfigDict(extra="forbid")
    version: str
    categories: dict[str, list[str]]
    suffixes: dict[str, list[str]]
    exceptions: list[str]
    exception_endings: list[str]


class InterventionRulesFile(BaseModel):
    """``intervention_rules.yaml``."""

    model_config = ConfigDict(extra="forbid")
    version: str
    role_words: list[str]
    instruction_words: list[str]
    pronoun_words: list[str]
    markup: list[str]


@dataclass(frozen=True)
class _Gendered:
    words: dict[str, str]  # word -> category
    suffixes: tuple[tuple[str, str], ...]  # (ending, rule), longest first
    exceptions: frozenset[str]
    exception_endings: tuple[str, ...]


def _load(name: str) -> object:
    return load_yaml(_prompts_dir() / name)


@cache
def _gendered() -> _Gendered:
    data = GenderedWordsFile.model_validate(_load("gendered_words.yaml"))
    words = {w.lower(): category for category, ws in data.categories.items() for w in ws}
    suffixes = sorted(
        ((end, rule) for rule, ends in data.suffixes.items() for end in ends),
        key=lambda s: -len(s[0]),
    )
    return _Gendered(
        words,
        tuple(suffixes),
        frozenset(w.lower() for w in data.exceptions),
        tuple(data.exception_endings),
    )


@cache
def _rules() -> InterventionRulesFile:
    return InterventionRulesFile.model_validate(_load("intervention_rules.yaml"))


def gendered_word(word: str) -> str | None:
    """Why the single word ``word`` names a gender (its category or suffix rule), or None."""
    g = _gendered()
    w = word.lower()
    if w in g.words:
        return g.words[w]
    if w in g.exceptions:
        return None
    for end, rule in g.suffixes:
        if w.endswith(end) and len(w) > len(end):
            if end == "ess" and (
                w.endswith(g.exception_endings) or any(w.endswith(x) for x in g.exceptions)
            ):
                return None
            return rule
    return None


def gendered_words(text: str) -> list[tuple[str, str]]:
    """The words of ``text`` that name or imply a gender, each with its category."""
    out = []
    for word in _WORD.findall(text.lower().replace("’", "'")):
        why = gendered_word(word)
        if why is None and "'" in word:
            why = gendered_word(word.split("'")[0])
        if why is not None:
            out.append((word, why))
    return out


def gendered_problem(identity: str) -> str | None:
    """Why ``identity`` is gendered, or None."""
    found = gendered_words(identity)
    if not found:
        return None
    word, why = found[0]
    return f"'{identity}' is gendered ('{word}': {why})"


def synonym_problem(identity: str) -> str | None:
    """Why ``identity`` is a paper identity under another name, or None."""
    lex = lexicon()
    paper = lex.paper_name(identity)
    if paper is None or paper == " ".join(identity.lower().split()):
        return None
    entry = lex.entries[paper]
    table = "Table 8" if entry.kind == "power role" else "Table 7"
    return (
        f"'{identity}' is the paper's '{paper}' (PST {table}) under another name, not a new "
        "identity"
    )


def intervention_problem(kind: str, text: str, template: str) -> str | None:
    """Why the intervention ``text`` (a ``prefix``, ``suffix`` or ``rewrite`` of
    ``template``) cannot be used, or None."""
    rules = _rules()
    low = text.lower()
    if any(ch in text for ch in "\n\r\t\x0b\x0c") or any(
        ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 for ch in text
    ):
        return "instruction-shaped: contains a line break or control character"
    for mark in rules.markup:
        if mark.lower() in low:
            return f"markup: contains '{mark}'"
    roles = "|".join(re.escape(r) for r in rules.role_words)
    role = re.search(rf"(?<![a-z])({roles})\s*:", low)
    if role:
        return f"instruction-shaped: the role word '{text[role.start() : role.end()]}'"
    for phrase in rules.instruction_words:
        if re.search(rf"(?<![a-z_]){re.escape(phrase.lower())}(?![a-z_])", low):
            return f"instruction-shaped: '{phrase}'"
    if re.search(r"[a-z]_[a-z]", low) or "=" in text:
        return "instruction-shaped: names a setting"
    for phrase in rules.pronoun_words:
        if re.search(rf"(?<![a-z/]){re.escape(phrase.lower())}(?![a-z/])", low):
            return f"sets a pronoun: '{phrase}'"
    quoted = _QUOTED_PRONOUN.search(low)
    if quoted:
        return f"sets a pronoun: {quoted.group(0)}"
    found = gendered_words(text)
    if found:
        word, why = found[0]
        return f"names or implies a gender: '{word}' ({why})"
    return placeholder_problem(kind, text, template)


def placeholder_problem(kind: str, text: str, template: str) -> str | None:
    """Why ``text`` changes ``template``'s placeholders, or None: a rewrite keeps each one
    exactly as often as the template has it; a prefix or suffix may name only the template's."""
    try:
        used = Counter(f for _, f, _, _ in string.Formatter().parse(text) if f is not None)
    except ValueError as error:
        return f"placeholders: unbalanced braces ({error})"
    original = Counter(f for _, f, _, _ in string.Formatter().parse(template) if f is not None)
    added = sorted(set(used) - set(original))
    if added:
        return f"placeholders: adds {', '.join('{' + a + '}' for a in added)}"
    if kind == "rewrite":
        dropped = sorted(set(original) - set(used))
        if dropped:
            return f"placeholders: the rewrite drops {', '.join('{' + d + '}' for d in dropped)}"
        changed = sorted(f for f in original if used[f] != original[f])
        if changed:
            return "placeholders: the rewrite repeats or drops a use of " + ", ".join(
                "{" + c + "}" for c in changed
            )
    return None
