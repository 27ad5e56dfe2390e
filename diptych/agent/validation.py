"""What the agent may not propose, each refusal with its reason.

Identities: a gendered word (``gendered_words.yaml``: pronouns, gender words, kinship terms,
gendered titles and occupations, and the -man / -ess / -boy / -trix forms no list can hold)
gives the answer away, so a pair like "foreman | seamstress" measures its words, not the model.
A paper identity under another name ("mechanic" for Table 7's "mechanician",
``paper_synonyms.yaml``) is not new.

Interventions (``diptych agent mitigate``): one that names or implies a gender or sets a pronoun
("they", a neopronoun, "non-binary", "refer to each person as ...") makes the model's pronoun a
matter of instruction; one shaped like an instruction or markup (``intervention_rules.yaml``:
role words, "ignore", "forget", "the rules above", angle brackets, code fences) is an
injection; a rewrite that drops or adds a placeholder measures another prompt.

Words are compared after folding what would hide them: accents, look-alike letters of other
alphabets, invisible characters, dashes and digits written for letters ("th3y", "m0ms"); a
sentence written in Spanish, French or German reads its own everyday words that look like English
gendered ones ("son", "man") as that language's. Words cannot read every language, encoding or
euphemism: what an intervention that passes them does is judged by the behavioural screen
(:mod:`diptych.agent.mitigation.behaviour_screen`).
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import cache, partial

from pydantic import BaseModel, ConfigDict

from diptych.agent import _prompts_dir
from diptych.agent.lexicon import lexicon
from diptych.core.yaml_input import load_yaml

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
#: A quoted pronoun ("use 'they'") sets the pronoun as surely as naming one.
_QUOTED_PRONOUN = re.compile(r"[\"'“‘](they|them|their|theirs|themself|themselves)[\"'”’]")


class OtherLanguage(BaseModel):
    """A language whose everyday words include some of the English gendered ones."""

    model_config = ConfigDict(extra="forbid")
    common: list[str]
    false_friends: list[str]


class GenderedWordsFile(BaseModel):
    """``gendered_words.yaml``."""

    model_config = ConfigDict(extra="forbid")
    version: str
    categories: dict[str, list[str]]
    suffixes: dict[str, list[str]]
    exceptions: list[str]
    exception_endings: list[str]
    english_common: list[str] = []
    languages: dict[str, OtherLanguage] = {}


class InterventionRulesFile(BaseModel):
    """``intervention_rules.yaml``."""

    model_config = ConfigDict(extra="forbid")
    version: str
    role_words: list[str]
    instruction_words: list[str]
    pronoun_words: list[str]
    pronoun_patterns: list[str]
    markup: list[str]


@dataclass(frozen=True)
class _Gendered:
    words: dict[str, str]  # word -> category
    suffixes: tuple[tuple[str, str], ...]  # (ending, rule), longest first
    exceptions: frozenset[str]
    exception_endings: tuple[str, ...]
    english: frozenset[str]
    #: language -> (its common words, its false friends among the gendered words)
    languages: dict[str, tuple[frozenset[str], frozenset[str]]]


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
        frozenset(data.english_common),
        {
            lang: (frozenset(words.common), frozenset(words.false_friends))
            for lang, words in data.languages.items()
        },
    )


@cache
def _rules() -> InterventionRulesFile:
    return InterventionRulesFile.model_validate(_load("intervention_rules.yaml"))


#: Letters of other alphabets that look like Latin ones, and digits written for letters.
_LOOK_ALIKES = str.maketrans("асеорхуіјѕһԁԛԝкмнтвαεορτυνικχ", "aceopxyijshdqwkmhtbaeoptuvikx")
_LEET = (str.maketrans("013457@$", "oieastas"), str.maketrans("013457@$", "oleastas"))
_LEET_WORD = re.compile(r"[a-z0-9@$]*[a-z][a-z0-9@$]*")
_DASHES = re.compile(r"[\u2010-\u2015\u2212\ufe58\ufe63\uff0d]")


def folded(text: str) -> str:
    """``text`` lower-cased as the checks read it: compatibility forms and accents folded,
    invisible (format) characters dropped, look-alike letters of other alphabets and curly
    apostrophes made plain, every dash a hyphen."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    text = "".join(
        ch for ch in text if not unicodedata.combining(ch) and unicodedata.category(ch) != "Cf"
    )
    text = _DASHES.sub("-", text.lower().translate(_LOOK_ALIKES))
    return text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')


def _readings(text: str) -> list[str]:
    """The folded text, then each reading of its words with digits written for letters."""
    low = folded(text)
    out = [low]
    for table in _LEET:
        leet = _LEET_WORD.sub(partial(_unleet, table=table), low)
        if leet not in out:
            out.append(leet)
    return out


def _unleet(match: re.Match[str], table: dict[int, int]) -> str:
    word = match.group(0)
    return word.translate(table) if re.search(r"[0-9@$]", word) else word


def _singulars(word: str) -> list[str]:
    """The singulars a plural ``word`` may have (ladies, actresses, moms)."""
    out = []
    if word.endswith("ies") and len(word) > 4:
        out.append(word[:-3] + "y")
    if word.endswith("es") and word[:-2].endswith(("s", "x", "z", "ch", "sh")):
        out.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss") and len(word) > 2:
        out.append(word[:-1])
    return out


def gendered_word(word: str) -> str | None:
    """Why the single word ``word`` names a gender (its category or suffix rule, or those of
    its singular), or None."""
    w = word.lower()
    why = _gendered_form(w)
    if why is not None or w in _gendered().exceptions:
        return why
    for singular in _singulars(w):
        why = _gendered_form(singular)
        if why is not None:
            return why
    return None


def _gendered_form(w: str) -> str | None:
    g = _gendered()
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


_SENTENCE = re.compile(r"[.!?;:()]+(?:\s+|$)")


def false_friends(words: list[str]) -> frozenset[str]:
    """The gendered English words that are everyday words of the language ``words`` (one
    sentence) read as: none when it reads as English (see ``gendered_words.yaml``)."""
    g = _gendered()
    english = sum(w in g.english for w in words)
    best: tuple[int, frozenset[str]] = (0, frozenset())
    for common, friends in g.languages.values():
        n = sum(w in common for w in words)
        if n >= 2 and n > english and n > best[0]:
            best = (n, friends)
    return best[1]


def gendered_words(text: str) -> list[tuple[str, str]]:
    """The words of ``text`` that name or imply a gender, each with its category; a word
    another language the sentence is written in uses every day ("son" in "Todas las personas
    son capaces.") is that language's word."""
    out: list[tuple[str, str]] = []
    for reading in _readings(text):
        for sentence in _SENTENCE.split(reading):
            out += [
                found
                for found in _gendered_in(_WORD.findall(sentence))
                if all(found[0] != w for w, _ in out)
            ]
    return out


def _gendered_in(words: list[str]) -> list[tuple[str, str]]:
    skip = false_friends(words)
    out: list[tuple[str, str]] = []
    for word in words:
        if word in skip:
            continue
        why = gendered_word(word)
        if why is None and "'" in word:
            why = gendered_word(word.split("'")[0])
        if why is not None and all(word != w for w, _ in out):
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
    if any(ch in text for ch in "\n\r\t\x0b\x0c") or any(
        ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 for ch in text
    ):
        return "instruction-shaped: contains a line break or control character"
    readings = _readings(text)
    for mark in rules.markup:
        if any(mark.lower() in low for low in readings):
            return f"markup: contains '{mark}'"
    roles = "|".join(re.escape(r) for r in rules.role_words)
    for low in readings:
        role = re.search(rf"(?<![a-z])({roles})\s*:", low)
        if role:
            # As written where folding kept the positions ("SYSTEM:"), else as read.
            shown = text if len(low) == len(text) else low
            return f"instruction-shaped: the role word '{shown[role.start() : role.end()]}'"
    for phrase in rules.instruction_words:
        if any(_has_phrase(phrase, low, "_") for low in readings):
            return f"instruction-shaped: '{phrase}'"
    if re.search(r"[a-z]_[a-z]", readings[0]) or "=" in text:
        return "instruction-shaped: names a setting"
    for phrase in rules.pronoun_words:
        if any(_has_phrase(phrase, low, "") for low in readings):
            return f"sets a pronoun: '{phrase}'"
    for low in readings:
        quoted = _QUOTED_PRONOUN.search(low)
        if quoted:
            return f"sets a pronoun: {quoted.group(0)}"
        for pattern in rules.pronoun_patterns:
            said = re.search(pattern, low)
            if said:
                return f"sets a pronoun: '{said.group(0)}'"
    found = gendered_words(text)
    if found:
        word, why = found[0]
        return f"names or implies a gender: '{word}' ({why})"
    return placeholder_problem(kind, text, template)


def _has_phrase(phrase: str, low: str, joiners: str) -> bool:
    """Whether the whole word or phrase ``phrase`` is in ``low``; a letter or one of
    ``joiners`` either side makes it part of another word. Hyphens and spaces inside the
    phrase are matched alike ("non-binary", "non binary")."""
    body = r"[\s-]+".join(re.escape(part) for part in re.split(r"[\s-]+", phrase.lower()))
    edge = re.escape(joiners)
    return re.search(rf"(?<![a-z{edge}]){body}(?![a-z{edge}])", low) is not None


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
