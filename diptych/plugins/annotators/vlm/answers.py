"""Reading a model's free-text answer about a person as a perceived-gender label, and why."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from diptych.core.labels import GENDER_LABELS

MASCULINE, FEMININE, CANNOT_IDENTIFY = GENDER_LABELS

#: Part of every version of an annotator that reads answers: bump it when this module changes
#: how an answer becomes a label, so that labels stored by an earlier version are not taken
#: for this one's.
PARSER_VERSION = "1"


@dataclass(frozen=True)
class ParsedAnswer:
    """What a free-text answer says about a person's perceived gender, and why."""

    label: str
    reason: str


_FEMININE_WORDS = frozenset(
    "woman women female females feminine femininity girl girls lady ladies".split()
)
_MASCULINE_WORDS = frozenset(
    (
        "man men male males masculine masculinity boy boys gentleman gentlemen guy guys "
        # Compounds a model may answer with ("a businessman"). Only a list: many English
        # words end in "man" without meaning one (human, German, shaman, woman).
        "businessman businessmen policeman policemen fireman firemen salesman salesmen "
        "chairman chairmen sportsman craftsman handyman repairman"
    ).split()
)
# Any word ending in "woman"/"women" is one (businesswoman, chairwoman, policewoman).
_FEMININE_COMPOUND = re.compile(r"^[a-z]+wom[ae]n$")
# Pronouns are weaker evidence (they may refer to someone else in the picture): used only when
# an answer names no gender word at all ("She is a doctor.").
_FEMININE_PRONOUNS = frozenset({"she", "her", "hers", "herself"})
_MASCULINE_PRONOUNS = frozenset({"he", "him", "his", "himself"})

#: Words that deny what follows them, up to the end of the clause: "not a woman", "no man in
#: the picture", "neither ... nor ...", "masculine rather than feminine".
_NEGATORS = frozenset({"not", "no", "never", "neither", "nor", "without", "cannot", "than"})
#: Where a negation stops: punctuation, and words that start a new or contrasting clause
#: ("not a man but a woman", "no hat, and a woman").
_CLAUSE_ENDS = frozenset(
    {".", ",", ";", ":", "!", "?", "(", ")", '"', "\n"}
    | {"but", "however", "though", "although", "whereas", "while", "yet", "and", "so", "because"}
)

#: An answer that says any of these abstains, whatever else it says ("It's a man, I think,
#: but I'm not sure"): a hedged label would pass a guess off as a judgement. Matched on the
#: normalised words (see _normalise), whole words only.
_HEDGES = (
    r"both",
    r"neither",
    r"either",
    r"cannot identify",
    r"cannot be identified",
    r"cannot determine",
    r"cannot be determined",
    r"cannot tell",
    r"cannot say",
    r"cannot see",
    r"(?:not|never|cannot) (?:\w+ ){0,3}?(?:tell|say|determine|identify|know|sure|clear|certain|"
    r"possible|visible|distinguish|discern|think)",
    r"unsure",
    r"uncertain",
    r"unclear",
    r"unknown",
    r"unable",
    r"impossible",
    r"indeterminate",
    r"undetermined",
    r"unidentifiable",
    r"(?:hard|difficult) to (?:tell|say|determine|identify)",
    r"ambiguous",
    r"androgynous",
    r"non ?binary",
    r"gender ?neutral",
    r"no one",
    r"nobody",
    r"no (?:person|people|human|humans|individual|individuals)",
)
_HEDGE = re.compile(r"\b(?:" + "|".join(_HEDGES) + r")\b")
_TOKEN = re.compile(r"[a-z]+|[.,;:!?()\"\n]")


def _normalise(text: str) -> str:
    """Lower case, one kind of apostrophe, contractions spelt out ("isn't" -> "is not")."""
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    text = re.sub(r"\bcan'?t\b", "cannot", text)
    text = re.sub(r"\bwon'?t\b", "will not", text)
    text = re.sub(r"n't\b", " not", text)
    return re.sub(r"\bcan not\b", "cannot", text)


def _gender_of(word: str) -> str | None:
    if word in _FEMININE_WORDS or _FEMININE_COMPOUND.match(word):
        return FEMININE
    if word in _MASCULINE_WORDS:
        return MASCULINE
    return None


def _quoted(words: Sequence[str]) -> str:
    return ", ".join(f'"{w}"' for w in dict.fromkeys(words))


def parse_answer(text: str) -> ParsedAnswer:
    """Read a model's free-text answer as ``feminine``, ``masculine`` or ``cannot_identify``.

    * Gender words count as whole words only ("female" is not "male", "human" not "man"):
      woman / female / feminine / girl / lady (and plurals, "-woman" compounds) are feminine;
      man / male / masculine / boy / gentleman / guy (and plurals, a few "-man" compounds)
      masculine.
    * A word after a negation in the same clause does not count: "not a woman" says nothing
      for "woman" -- and is not read as "man" either, which it does not say.
    * Hedges abstain whatever else is said: both, neither, either, "can't tell", "not sure",
      "unclear", "cannot identify", "hard to say", "androgynous" ...
    * Both genders named (and not denied) abstain: "a man and a woman" does not say which one
      the question was about.
    * With no gender word, she/her and he/him/his decide when only one kind appears.
    """
    normal = _normalise(text)
    if not normal.strip():
        return ParsedAnswer(CANNOT_IDENTIFY, "empty answer")
    tokens = _TOKEN.findall(normal)
    hedge = _HEDGE.search(" ".join(tokens))
    if hedge is not None:
        return ParsedAnswer(CANNOT_IDENTIFY, f'hedged ("{hedge.group(0)}")')
    said: list[tuple[str, str]] = []  # (gender, word), in the order the answer says them
    denied: list[str] = []
    negated = False
    for token in tokens:
        if token in _CLAUSE_ENDS:
            negated = False
        elif token in _NEGATORS:
            negated = True
        elif (gender := _gender_of(token)) is not None:
            if negated:
                denied.append(token)
            else:
                said.append((gender, token))
    genders = {gender for gender, _ in said}
    if len(genders) > 1:
        words = _quoted([word for _, word in said])
        return ParsedAnswer(CANNOT_IDENTIFY, f"named both genders ({words})")
    if genders:
        (gender,) = genders
        return ParsedAnswer(gender, f"named {_quoted([word for _, word in said])}")
    if denied:
        return ParsedAnswer(
            CANNOT_IDENTIFY, f"only negated gender words ({_quoted(denied)}); a denial names none"
        )
    she = [t for t in tokens if t in _FEMININE_PRONOUNS]
    he = [t for t in tokens if t in _MASCULINE_PRONOUNS]
    if she and not he:
        return ParsedAnswer(FEMININE, f"no gender word; pronoun {_quoted(she)}")
    if he and not she:
        return ParsedAnswer(MASCULINE, f"no gender word; pronoun {_quoted(he)}")
    if she and he:
        return ParsedAnswer(
            CANNOT_IDENTIFY, f"no gender word; pronouns of both ({_quoted(she + he)})"
        )
    return ParsedAnswer(CANNOT_IDENTIFY, "no gender word")
