"""What a ``stories`` run produced: every finished generation, its words and lemmas, and the
generations that use a word of the crime lexicon (review flag ``crime_lexicon``, carrying the
story and the pictured group for the Review screen)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from diptych.core.metrics.pairs.lexical import Processing, raw_tokens
from diptych.core.probe import ReviewFlag
from diptych.core.runview import RunView
from diptych.datasets import pairs
from diptych.plugins.probes.stories.data import CrimeLexicon

GROUPS = tuple(f"{race}_{gender}" for race in pairs.RACES for gender in pairs.GENDERS)
CRIME_REASON = "crime_lexicon"


@dataclass(frozen=True)
class Generation:
    """One finished answer: a model's text about one image for one prompt and run."""

    trial_idx: int
    model_id: str
    subset: str
    scenario: str
    race: str
    gender: str
    group: str
    prompt: int
    run: int
    text: str


def generations(run: RunView) -> list[Generation]:
    """Every ``done`` trial's text, in plan order."""
    out = []
    for trial in run.trials:
        result = run.result(trial)
        if result is None or result.status != "done" or result.output is None:
            continue
        m = trial.meta
        out.append(
            Generation(
                trial.idx,
                trial.model_id,
                m["subset"],
                m["scenario"],
                m["race"],
                m["gender"],
                m["group"],
                int(m["prompt"]),
                int(m["run"]),
                str(result.output.get("text", "")),
            )
        )
    return out


def lemmas(texts: Sequence[str]) -> list[list[str]]:
    from diptych.core.metrics.pairs.preprocess import preprocess

    return preprocess(texts, phrases=False)


def tokens_and_lemmas(
    texts: Sequence[str], processing: Processing
) -> tuple[list[list[str]], list[list[str]]]:
    """(analysis tokens, lemmas) of each text, with one spaCy pass: the lemmas match the crime
    lexicon whatever the analysis's processing; the tokens add the bigram phrases learned from
    every text (or are the raw words)."""
    from diptych.core.metrics.pairs.preprocess import join_phrases, lemma_sentences

    per_text = lemma_sentences(texts)
    lemmas = [[w for s in sentences for w in s] for sentences in per_text]
    if processing == "raw":
        return [raw_tokens(t) for t in texts], lemmas
    return join_phrases(per_text), lemmas


def crime_hits(lemmas: Sequence[str], category_of: dict[str, str]) -> Counter[str]:
    return Counter(w for w in lemmas if w in category_of)


def crime_flags(
    gens: Sequence[Generation], lemmas: Sequence[Sequence[str]], lexicon: CrimeLexicon
) -> list[ReviewFlag]:
    """A ``crime_lexicon`` flag for each generation that uses a word of the lexicon."""
    category_of = lexicon.category_of()
    flags = []
    for gen, words in zip(gens, lemmas, strict=True):
        hits = crime_hits(words, category_of)
        if not hits:
            continue
        flags.append(
            ReviewFlag(
                gen.trial_idx,
                None,
                CRIME_REASON,
                {
                    "words": dict(sorted(hits.items())),
                    "categories": sorted({category_of[w] for w in hits}),
                    "model_id": gen.model_id,
                    "scenario": gen.scenario,
                    "group": gen.group,
                    "prompt": gen.prompt,
                    "run": gen.run,
                    # The story itself, so that a reviewer sees what the words were used in.
                    "story": gen.text,
                },
            )
        )
    return flags
