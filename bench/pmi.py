"""pmi.*: the word association analysis of ``diptych metrics pmi`` and the ``stories`` probe
(PAIRS, Appendix D), in process, on corpora generated here with a fixed seed.

``pmi.preprocess_tokens_per_s`` needs the ``text`` extra (spaCy, its English pipeline and
gensim); without it it prints a note on stderr and yields nothing.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.harness import Result, bench, result, rounded

N_RAW_TOKENS = 1_000_000
N_PREPROCESS_TEXTS = 1_200  # about 200,000 words of story-like English

_STORY_TEMPLATES = (
    "{name} grew up in a {adj} neighborhood near the {place}.",
    "The {person} in the image is wearing {clothes} and standing near the {place}.",
    "{name} {verb} the {thing} before anyone noticed the {adj} {thing}.",
    "I feel {adj} and {adj} as I {verb_present} the {thing} in my hands.",
    "Despite the challenges, {name} was determined to {verb_present} a better life.",
    "The {person} looks directly at the camera with a {adj} expression.",
    "In the background there are {count} cars parked in the parking lot.",
    "{name} spent {count} years working at the {place} and knows everyone there.",
    "Keywords: {adj}, {adj}, {adj}, {adj} and {adj}.",
    "My name is {name}, and I have always wanted to {verb_present} the {thing}.",
)
_SLOTS = {
    "name": "Olivia Jasmine Samir Ethan Maya Dwayne Sophia Jack Amara Lily".split(),
    "adj": (
        "quiet busy determined confident tired urban rugged bright serious calm proud "
        "mysterious hopeful worried strong"
    ).split(),
    "place": "warehouse courtyard fence street window courtroom store park station house".split(),
    "person": "man woman person worker individual figure".split(),
    "clothes": ("an orange jumpsuit|a ski mask|a suit|a hoodie|a bandanna|a leather jacket").split(
        "|"
    ),
    "verb": "carried noticed opened watched fixed painted held found lost repaired".split(),
    "verb_present": "build carry find change protect prove start finish".split(),
    "thing": "bat money cigarette window door camera bag fence car project".split(),
    "count": "two three five ten 12 20".split(),
}


def _story_texts(n: int, seed: int = 0) -> list[str]:
    """``n`` story-like English texts of 10 to 20 sentences from fixed templates (seeded)."""
    import random
    import re

    rng = random.Random(seed)
    texts = []
    for _ in range(n):
        sentences = []
        for _ in range(rng.randint(10, 20)):
            template = rng.choice(_STORY_TEMPLATES)
            sentences.append(
                re.sub(r"\{(\w+)\}", lambda m: rng.choice(_SLOTS[m.group(1)]), template)
            )
        texts.append(" ".join(sentences))
    return texts


def _raw_corpus(path: Path, n_tokens: int, seed: int = 0) -> None:
    """A JSONL corpus of ``n_tokens`` words: 4 groups × 10 scenarios × 100 texts drawn from a
    20,000-word Zipf-distributed vocabulary, with a few words skewed towards one group."""
    import itertools
    import random

    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = ["".join(rng.choices(letters, k=rng.randint(3, 9))) for _ in range(20_000)]
    cumulative = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(vocab))))
    groups = ["black_man", "black_woman", "white_man", "white_woman"]
    lines = []
    n_texts = 4 * 10 * 100
    per_text = n_tokens // n_texts
    for i in range(n_texts):
        group = groups[i % 4]
        words = rng.choices(vocab, cum_weights=cumulative, k=per_text)
        words[:5] = [f"{group.split('_')[0]}marker"] * 5
        lines.append(
            json.dumps({"group": group, "scenario": f"s{(i // 4) % 10}", "text": " ".join(words)})
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@bench(pmi__raw_1m_tokens_s="<= 5")
def pmi_raw() -> Iterator[Result]:
    """`diptych metrics pmi --raw --by scenario` on a 1,000,000-word corpus, in process: read
    and check the JSONL, tokenise, score every word of every group of 10 strata, dump JSON."""
    from diptych.core.metrics.pairs.lexical import pmi_corpus, read_corpus_jsonl

    with tempfile.TemporaryDirectory(prefix="diptych-bench-") as tmp:
        path = Path(tmp) / "corpus.jsonl"
        _raw_corpus(path, N_RAW_TOKENS)
        t0 = time.perf_counter()
        rows = read_corpus_jsonl(path, ["scenario"])
        out = pmi_corpus(rows, processing="raw", by=["scenario"])
        text = json.dumps(out.to_dict())
        wall = time.perf_counter() - t0
        tokens = sum(g.tokens for s in out.strata for g in s.groups.values())
        assert tokens == N_RAW_TOKENS, tokens
        assert len(out.strata) == 10 and len(text) > 0
        t0 = time.perf_counter()
        pmi_corpus(rows, processing="raw")
        unstratified = time.perf_counter() - t0
        yield result(
            "pmi.raw_1m_tokens_s",
            wall,
            "s",
            texts=len(rows),
            unstratified_s=rounded(unstratified),
        )


@bench(pmi__preprocess_tokens_per_s=None)
def pmi_preprocess() -> Iterator[Result]:
    """The paper's processing (spaCy lemmas, SMART stop list, gensim phrases) of ~200,000
    words of story-like English, on every usable core (2 here) and on one; the spaCy pipeline
    is loaded before timing."""
    import os

    from diptych.core.errors import MissingDependencyError
    from diptych.core.metrics.pairs.lexical import word_count
    from diptych.core.metrics.pairs.preprocess import english_pipeline, preprocess, processes_for

    try:
        english_pipeline()
    except MissingDependencyError as error:
        print(f"pmi.preprocess_* skipped: {error}", file=sys.stderr)
        return
    texts = _story_texts(N_PREPROCESS_TEXTS)
    words = sum(word_count(t) for t in texts)
    cores = len(os.sched_getaffinity(0))
    processes = processes_for(texts)
    t0 = time.perf_counter()
    tokens = preprocess(texts)
    wall = time.perf_counter() - t0
    t0 = time.perf_counter()
    one = preprocess(texts, n_process=1)
    wall_one = time.perf_counter() - t0
    assert tokens == one, "one process and several must give the same tokens"
    yield result(
        "pmi.preprocess_tokens_per_s",
        words / wall,
        "words/s",
        words=words,
        cores=cores,
        processes=processes,
        wall_s=rounded(wall),
        words_per_s_1_process=rounded(words / wall_one),
    )
