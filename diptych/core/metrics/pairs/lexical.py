"""Words that set one group's texts apart from the others' (PAIRS, Appendix D and Table E.1).

For a group D with subcorpus C_D (every token of its texts) and C_other (every token of the other
groups' texts), the association score of a word w is the difference of two pointwise mutual
informations, which simplifies to (the paper's Equation 3)::

    s(w) = log2( freq(w, C_D) · N(C_other) / (freq(w, C_other) · N(C_D)) )

where N(C) counts the tokens of C. A word never seen in C_other scores +inf (written "inf" in
JSON). A group's associated words are those with s(w) > ``threshold`` (0.6) and
freq(w, C_D) ≥ ``min_count`` (3), ranked by freq(w, C_D); ties go to the higher score, then
alphabetically, so the list is deterministic. With each group the average and the standard
deviation of the number of words per text are reported (Table E.1), counted as written (runs of
letters), before any stop word is removed.

Text processing is either the paper's (numerals and punctuation dropped, the SMART stop list
checked on each word as written, before lemmatising, then spaCy lemmas in lower case and gensim
bigram phrases trained on the whole corpus: :mod:`diptych.core.metrics.pairs.preprocess`, which
needs the ``text`` extra) or ``raw``: lower case and split on runs of letters, nothing else. spaCy
and gensim are imported only when the paper's processing is asked for, so importing this module
stays cheap.
"""

from __future__ import annotations

import json
import math
import re
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from diptych.core.errors import InputFileError
from diptych.core.json_input import json_lines, parse_json
from diptych.core.metrics.uncertainty.bootstrap import json_safe

DEFAULT_THRESHOLD = 0.6
DEFAULT_MIN_COUNT = 3
Processing = Literal["default", "raw"]

#: A run of letters: any Unicode letter, no digit and no underscore.
_LETTERS = re.compile(r"[^\W\d_]+")


def raw_tokens(text: str) -> list[str]:
    """``raw`` processing: the text in lower case, split on runs of letters, nothing else."""
    return _LETTERS.findall(text.lower())


def word_count(text: str) -> int:
    """Words as written (runs of letters): Table E.1's measure of how much a model wrote."""
    return sum(1 for _ in _LETTERS.finditer(text))


def association_score(count: int, n_group: int, count_other: int, n_other: int) -> float:
    """s(w) of Equation 3: +inf when the other groups never use the word, -inf when the group
    never does."""
    if count_other == 0:
        return math.inf
    if count == 0:
        return -math.inf
    return math.log2(count * n_other / (count_other * n_group))


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AssociatedWord:
    """One word strongly associated with a group."""

    word: str
    #: freq(w, C_D): how often the group's texts use it (the ranking key).
    count: int
    #: freq(w, C_other): how often the other groups' texts use it.
    count_other: int
    #: s(w); +inf when ``count_other`` is 0.
    score: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "word": self.word,
            "count": self.count,
            "count_other": self.count_other,
            "score": json_safe(self.score),
        }


@dataclass(frozen=True)
class GroupWords:
    """A group's associated words and how much text it has."""

    group: str
    texts: int
    #: N(C_D): tokens of the group's texts after processing.
    tokens: int
    #: Words per text as written (Table E.1): mean and sample standard deviation.
    words_per_text: float | None
    words_per_text_sd: float | None
    words: tuple[AssociatedWord, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "texts": self.texts,
            "tokens": self.tokens,
            "words_per_text": {
                "mean": json_safe(self.words_per_text),
                "sd": json_safe(self.words_per_text_sd),
            },
            "words": [w.to_dict() for w in self.words],
        }


@dataclass(frozen=True)
class PMIResult:
    """The associated words of every group of one comparison (one stratum)."""

    threshold: float
    min_count: int
    groups: dict[str, GroupWords]
    #: The stratum's values (e.g. ``{"scenario": "jumpsuit"}``); empty when not stratified.
    stratum: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "stratum": dict(self.stratum),
            "groups": {g: words.to_dict() for g, words in self.groups.items()},
        }


@dataclass(frozen=True, slots=True)
class GroupText:
    """One text of a group, already processed: its tokens and its length as written."""

    group: str
    tokens: Sequence[str]
    words: int


def mean_sd(values: Sequence[int]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    mean = statistics.fmean(values)
    # Sample standard deviation, as Table E.1 reports over a model's images; none for one text.
    sd = statistics.stdev(values) if len(values) > 1 else None
    return mean, sd


def associated_words(
    counts: Mapping[str, Counter[str]],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    min_count: int = DEFAULT_MIN_COUNT,
) -> dict[str, list[AssociatedWord]]:
    """Each group's words with s(w) > ``threshold`` and freq(w, C_D) ≥ ``min_count``, most
    frequent first. ``counts`` maps each group to its token counts; C_other of a group is every
    other group's tokens pooled. Needs at least two groups (there is nothing to compare with
    fewer); raises ValueError otherwise."""
    if len(counts) < 2:
        found = ", ".join(repr(g) for g in counts) or "none"
        raise ValueError(
            f"PMI compares each group with the others, so it needs at least two groups; "
            f"found {found}"
        )
    total: Counter[str] = Counter()
    for tally in counts.values():
        total.update(tally)
    n_total = sum(total.values())
    out: dict[str, list[AssociatedWord]] = {}
    for group, tally in counts.items():
        n_group = sum(tally.values())
        n_other = n_total - n_group
        chosen = []
        for word, count in tally.items():
            if count < min_count:
                continue
            count_other = total[word] - count
            score = association_score(count, n_group, count_other, n_other)
            if score > threshold:
                chosen.append(AssociatedWord(word, count, count_other, score))
        chosen.sort(key=lambda w: (-w.count, -w.score, w.word))
        out[group] = chosen
    return out


def pmi_by_group(
    texts: Iterable[GroupText],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    min_count: int = DEFAULT_MIN_COUNT,
    stratum: Mapping[str, str] | None = None,
) -> PMIResult:
    """Associated words and text lengths of each group of ``texts`` (groups in order of first
    appearance). Raises ValueError with fewer than two groups."""
    counts: dict[str, Counter[str]] = {}
    lengths: dict[str, list[int]] = {}
    for text in texts:
        counts.setdefault(text.group, Counter()).update(text.tokens)
        lengths.setdefault(text.group, []).append(text.words)
    words = associated_words(counts, threshold=threshold, min_count=min_count)
    groups = {}
    for group, tally in counts.items():
        mean, sd = mean_sd(lengths[group])
        groups[group] = GroupWords(
            group=group,
            texts=len(lengths[group]),
            tokens=sum(tally.values()),
            words_per_text=mean,
            words_per_text_sd=sd,
            words=tuple(words[group]),
        )
    return PMIResult(threshold, min_count, groups, dict(stratum or {}))


def process_texts(texts: Sequence[str], processing: Processing = "default") -> list[list[str]]:
    """Tokens of each text: the paper's processing (bigram phrases trained on all of ``texts``
    together) or ``raw``."""
    if processing == "raw":
        return [raw_tokens(t) for t in texts]
    from diptych.core.metrics.pairs.preprocess import preprocess

    return preprocess(texts)


# --- the metric contract: a JSONL corpus ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CorpusRow:
    """One line of a corpus file."""

    line: int
    group: str
    text: str
    strata: dict[str, str]


@dataclass(frozen=True)
class PMICorpusResult:
    """``diptych metrics pmi``: one :class:`PMIResult` per stratum (one when not stratified)."""

    threshold: float
    min_count: int
    processing: Processing
    by: tuple[str, ...]
    strata: list[PMIResult]

    def to_dict(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "min_count": self.min_count,
            "processing": self.processing,
            "by": list(self.by),
            "strata": [s.to_dict() for s in self.strata],
        }


def _scalar(value: Any) -> str | None:
    """A JSON scalar as a label (``"3"`` for 3); None for what cannot be one."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return str(value)
    return None


def read_corpus_jsonl(path: str | Path, by: Sequence[str] = ()) -> list[CorpusRow]:
    """Read and check a corpus file: one JSON object per line with ``group`` and ``text`` and
    the stratum keys named in ``by``; other keys are ignored and blank lines skipped. Any
    problem raises :class:`InputFileError` with one line naming the file, the line and the fix.
    """
    path = Path(path)
    rows: list[CorpusRow] = []
    try:
        with path.open(encoding="utf-8-sig") as handle:
            for number, line in json_lines(handle, str(path)):
                if not line.strip():
                    continue
                rows.append(_corpus_row(path, number, line, by))
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such file; check the --corpus path") from None
    except IsADirectoryError:
        raise InputFileError(f"{path}: is a directory; give the corpus JSONL file") from None
    except UnicodeDecodeError:
        raise InputFileError(f"{path}: not UTF-8 text; save the corpus as UTF-8") from None
    if not rows:
        raise InputFileError(
            f"{path}: no texts; write one JSON object per line with 'group' and 'text'"
        )
    return rows


def _corpus_row(path: Path, number: int, line: str, by: Sequence[str]) -> CorpusRow:
    where = f"{path}: line {number}: "
    try:
        obj = parse_json(line, where)
    except json.JSONDecodeError as error:
        raise InputFileError(
            f"{where}not valid JSON ({error.msg}, column {error.colno}); write one JSON object "
            "per line"
        ) from None
    if not isinstance(obj, dict):
        raise InputFileError(
            f"{where}a JSON {type(obj).__name__}, not an object; write one object per line "
            "with 'group' and 'text'"
        )
    for key in ("group", "text"):
        if key not in obj:
            raise InputFileError(f"{where}no '{key}'; every line needs 'group' and 'text'")
    # A group is a string as written: 5 and "5" are not quietly one group, nor NaN a group.
    group = obj["group"]
    if not isinstance(group, str) or not group.strip():
        raise InputFileError(
            f"{where}'group' must be a non-empty string in quotes, got {json.dumps(group)}"
        )
    if not isinstance(obj["text"], str):
        raise InputFileError(
            f"{where}'text' must be a string, got a JSON {type(obj['text']).__name__}"
        )
    strata = {}
    for key in by:
        if key not in obj:
            raise InputFileError(f"{where}no '{key}', which --by names; give it on every line")
        value = _scalar(obj[key])
        if value is None:
            raise InputFileError(
                f"{where}'{key}' must be a string or a number to stratify by, got {obj[key]!r}"
            )
        strata[key] = value
    return CorpusRow(number, group, obj["text"], strata)


def pmi_corpus(
    rows: Sequence[CorpusRow],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    min_count: int = DEFAULT_MIN_COUNT,
    processing: Processing = "default",
    by: Sequence[str] = (),
    source: str = "corpus",
) -> PMICorpusResult:
    """The PMI analysis of a corpus, per stratum of ``by`` (strata in order of first
    appearance). Every text is processed together, so bigram phrases are learned from the
    whole corpus as the paper does. A stratum with a single group is an input error."""
    tokens = process_texts([r.text for r in rows], processing)
    strata: dict[tuple[str, ...], list[GroupText]] = {}
    first_line: dict[tuple[str, ...], int] = {}
    for row, toks in zip(rows, tokens, strict=True):
        key = tuple(row.strata[k] for k in by)
        strata.setdefault(key, []).append(GroupText(row.group, toks, word_count(row.text)))
        first_line.setdefault(key, row.line)
    results = []
    for key, texts in strata.items():
        stratum = dict(zip(by, key, strict=True))
        try:
            results.append(
                pmi_by_group(texts, threshold=threshold, min_count=min_count, stratum=stratum)
            )
        except ValueError as error:
            named = ", ".join(f"{k}={v}" for k, v in stratum.items())
            where = f"stratum {named} (first at line {first_line[key]})" if named else "the file"
            raise InputFileError(f"{source}: {where}: {error}") from None
    return PMICorpusResult(threshold, min_count, processing, tuple(by), results)
