"""PMI word association (PAIRS Appendix D): scores by hand, ranking, text processing, the CLI."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from diptych.cli.main import main
from diptych.cli.metrics import app
from diptych.core.errors import InputFileError
from diptych.core.metrics.pairs.lexical import (
    GroupText,
    associated_words,
    association_score,
    pmi_by_group,
    pmi_corpus,
    raw_tokens,
    read_corpus_jsonl,
    word_count,
)
from diptych.core.metrics.pairs.preprocess import lemma_sentences, preprocess, stop_words

# --- the score and the selection, by hand -------------------------------------------------------

# Three groups of 10 tokens each (N = 30; N(C_other) = 20 for every group).
HAND = {
    "a": Counter(prisoner=4, man=3, yard=2, fence=1),
    "b": Counter(man=2, worker=3, yard=1, fence=4),
    "c": Counter(man=1, worker=3, car=6),
}


def words_of(result: dict[str, list]) -> dict[str, list[tuple[str, int, int, float]]]:
    return {g: [(w.word, w.count, w.count_other, w.score) for w in ws] for g, ws in result.items()}


def test_association_score_is_equation_3() -> None:
    # log2(freq(w,D) * N(other) / (freq(w,other) * N(D)))
    assert association_score(3, 10, 3, 20) == pytest.approx(1.0)
    assert association_score(4, 10, 1, 20) == pytest.approx(3.0)
    assert association_score(3, 4, 2, 4) == pytest.approx(math.log2(1.5))
    assert association_score(4, 10, 0, 20) == math.inf
    assert association_score(0, 10, 2, 20) == -math.inf


def test_words_by_hand_with_inf_min_count_and_ranking() -> None:
    got = words_of(associated_words(HAND))
    assert got == {
        # yard scores log2(2*20/(1*10)) = 2 but is used only twice (< min_count 3); fence once.
        "a": [("prisoner", 4, 0, math.inf), ("man", 3, 3, pytest.approx(1.0))],
        # fence: log2(4*20/(1*10)) = 3; worker: log2(3*20/(3*10)) = 1; man only twice.
        "b": [("fence", 4, 1, pytest.approx(3.0)), ("worker", 3, 3, pytest.approx(1.0))],
        "c": [("car", 6, 0, math.inf), ("worker", 3, 3, pytest.approx(1.0))],
    }


def test_threshold_is_strict_and_min_count_inclusive() -> None:
    # man in a scores exactly log2(2) = 1: kept above 0.99, dropped at 1 (s must exceed it).
    assert [w.word for w in associated_words(HAND, threshold=0.99)["a"]] == ["prisoner", "man"]
    assert [w.word for w in associated_words(HAND, threshold=1.0)["a"]] == ["prisoner"]
    # yard (2 uses, score 2) comes in at min_count 2; fence never does: log2(1*20/(4*10)) = -1.
    for min_count in (2, 1):
        assert [w.word for w in associated_words(HAND, min_count=min_count)["a"]] == [
            "prisoner",
            "man",
            "yard",
        ]
    # log2(3*4/(2*4)) = 0.585 misses the paper's 0.6, passes 0.5.
    pair = {"x": Counter(lot=3, y=1), "z": Counter(lot=2, w=2)}
    assert associated_words(pair)["x"] == []
    assert [w.word for w in associated_words(pair, threshold=0.5)["x"]] == ["lot"]


def test_ties_go_to_the_higher_score_then_alphabetically() -> None:
    counts = {"d": Counter(beta=3, alpha=3, gamma=3), "e": Counter(gamma=1, other=5)}
    assert [w.word for w in associated_words(counts)["d"]] == ["alpha", "beta", "gamma"]
    counts = {"d": Counter(beta=3, alpha=3, gamma=3), "e": Counter(alpha=1, other=5)}
    # alpha scores log2(3*6/(1*9)) = 1 < inf: after the two words e never uses.
    assert [w.word for w in associated_words(counts)["d"]] == ["beta", "gamma", "alpha"]


def test_one_group_cannot_be_compared() -> None:
    with pytest.raises(ValueError, match="at least two groups; found 'only'"):
        associated_words({"only": Counter(a=5)})


def test_pmi_by_group_counts_texts_tokens_and_words_per_text() -> None:
    texts = [
        GroupText("a", ["prisoner"] * 4 + ["man"] * 3, 10),
        GroupText("a", ["yard"] * 2 + ["fence"], 20),
        GroupText("b", ["man"] * 2 + ["worker"] * 3 + ["yard"] + ["fence"] * 4, 12),
        GroupText("c", ["man"] + ["worker"] * 3 + ["car"] * 6, 7),
    ]
    result = pmi_by_group(texts)
    a = result.groups["a"]
    assert (a.texts, a.tokens) == (2, 10)
    assert a.words_per_text == 15 and a.words_per_text_sd == pytest.approx(math.sqrt(50))
    assert result.groups["b"].words_per_text_sd is None  # one text: no spread
    assert words_of({g: list(w.words) for g, w in result.groups.items()}) == words_of(
        associated_words(HAND)
    )
    d = result.to_dict()
    assert d["groups"]["a"]["words"][0] == {
        "word": "prisoner",
        "count": 4,
        "count_other": 0,
        "score": "inf",
    }
    assert d["groups"]["a"]["words_per_text"] == {"mean": 15.0, "sd": pytest.approx(7.0711, 1e-4)}
    json.dumps(d)  # strict JSON: no Infinity


# --- text processing -------------------------------------------------------------------------


def test_raw_tokens_are_lower_case_runs_of_letters() -> None:
    text = "Don't STOP-me now: 3 cafés, naïve_x! 1990s"
    assert raw_tokens(text) == ["don", "t", "stop", "me", "now", "cafés", "naïve", "x", "s"]
    assert word_count(text) == 9


def test_stop_list_is_the_smart_list() -> None:
    words = stop_words()
    assert len(words) == 570  # 571 lines: the published list has "would" twice
    assert {"a", "the", "i", "be", "one", "a's", "yourselves", "z"} <= words
    assert not {"prisoner", "man", "woman", "lot"} & words


def test_default_processing_drops_stop_words_numerals_punctuation_and_lemmatises() -> None:
    (sentences,) = lemma_sentences(
        [
            "The prisoners were running to 3 prisons in the 1990s!\n"
            "I am Olivia's friend; she was incarcerated, e.g. sentenced."
        ]
    )
    assert sentences == [
        ["prisoner", "run", "prison"],
        ["olivia", "friend", "incarcerate", "e.g", "sentence"],
    ]
    flat = [w for s in sentences for w in s]
    assert not set(flat) & stop_words()
    assert all(w == w.lower() for w in flat)


def test_stop_words_are_dropped_before_lemmatising_as_the_paper_did() -> None:
    # "take", "know" and "look" are on the SMART list, yet the paper's Tables 3 and E.2 list
    # them: its stop list saw "taking", "knew", "looked" as written, before lemmatising.
    text = "He was taking the bus; she knew it and looked at me. I don't know, I'm sure."
    (sentences,) = lemma_sentences([text])
    assert sentences == [["take", "bus", "know", "look"]]
    assert {"take", "know", "look"} <= stop_words()
    # Clitics are checked on their lemma: "n't" (not) and "'m" (be) go with the rest.
    # Checking every lemma too drops the inflected stop words (not the paper's order).
    (both,) = lemma_sentences([text], stop_words_on="word_and_lemma")
    assert both == [["bus"]]


def _fillers(n: int) -> list[str]:
    """Made-up words spaCy keeps as they are: a vocabulary that no other test word shares."""
    pairs = itertools.product("bcdfghjklmnpqrstvwxz", "aeiou", "ou")
    return [f"zor{a}{b}{c}x" for a, b, c in itertools.islice(pairs, n)]


def test_a_frequent_pair_becomes_a_bigram_and_a_rare_one_does_not() -> None:
    # gensim's default score, (count(ab) - 5) / (count(a) * count(b)) * |vocabulary|, must pass
    # 10: with "parking lot" 10 times, the vocabulary (unigrams and bigrams seen) needs more than
    # 200 entries, which the made-up words give.
    words = _fillers(210)
    texts = [f"The parking lot was {w}." for w in words[:10]]
    texts += ["The red car left."] * 3  # red car: 3 times, under gensim's min_count of 5
    texts += [f"{a.capitalize()} {b}." for a, b in zip(words[10::2], words[11::2], strict=True)]
    out = preprocess(texts)
    assert out[0] == ["parking_lot", words[0]]
    assert out[10] == ["red", "car", "leave"]
    assert preprocess(texts, phrases=False)[0] == ["parking", "lot", words[0]]


def test_processing_does_not_depend_on_the_number_of_processes() -> None:
    texts = [f"The {w} waited near the parking lot, 3 times." for w in _fillers(40)]
    assert preprocess(texts, n_process=1) == preprocess(texts, n_process=2)


def test_metric_modules_import_neither_spacy_nor_gensim() -> None:
    code = (
        "import sys, diptych.core.metrics.pairs.lexical, diptych.core.metrics.pairs.preprocess\n"
        "print(','.join(m for m in ('spacy', 'gensim', 'torch') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# --- corpus files and the CLI -------------------------------------------------------------------

CORPUS = [
    {"group": "black", "scenario": "jumpsuit", "text": "The prisoner, the prisoner; the PRISONER."},
    {"group": "black", "scenario": "jumpsuit", "text": "An inmate by the fence."},
    {"group": "white", "scenario": "jumpsuit", "text": "The worker by the fence, by the fence."},
    {"group": "black", "scenario": "bat", "text": "A player with a bat, a bat, a bat."},
    {"group": "white", "scenario": "bat", "text": "A player, a player, a player with a bat."},
]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_cli_pmi_json_raw_by_scenario(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "corpus.jsonl", CORPUS)
    args = ["pmi", "--corpus", str(path), "--raw", "--by", "scenario", "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert (out["threshold"], out["min_count"], out["processing"], out["by"]) == (
        0.6,
        3,
        "raw",
        ["scenario"],
    )
    jumpsuit, bat = out["strata"]
    assert jumpsuit["stratum"] == {"scenario": "jumpsuit"}
    black, white = jumpsuit["groups"]["black"], jumpsuit["groups"]["white"]
    # black: the x4, prisoner x3, an, inmate, by, fence (N = 11); white: the x3, worker, by x2,
    # fence x2 (N = 8). prisoner: never said of white; the, used 3+ times by both, scores
    # log2(4*8 / (3*11)) = -0.04 for black and log2(3*11 / (4*8)) = 0.04 for white.
    assert (black["texts"], black["tokens"], white["tokens"]) == (2, 11, 8)
    # Unbounded (never said of white): null in strict JSON.
    assert black["words"] == [{"word": "prisoner", "count": 3, "count_other": 0, "score": None}]
    assert black["words_per_text"] == {"mean": 5.5, "sd": pytest.approx(math.sqrt(0.5))}
    assert white["words"] == []
    # bat: black a x4, player, with, bat x3 (N = 9); white a x4, player x3, with, bat (N = 9).
    assert bat["groups"]["black"]["words"] == [
        {"word": "bat", "count": 3, "count_other": 1, "score": pytest.approx(math.log2(3))}
    ]
    assert bat["groups"]["white"]["words"] == [
        {"word": "player", "count": 3, "count_other": 1, "score": pytest.approx(math.log2(3))}
    ]


def test_cli_pmi_unstratified_thresholds_and_default_processing(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "corpus.jsonl", CORPUS)
    runner = CliRunner()
    raw = json.loads(runner.invoke(app, ["pmi", "--corpus", str(path), "--raw", "--json"]).output)
    (only,) = raw["strata"]
    assert only["stratum"] == {}
    # Pooled (N = 20 and 17): prisoner (3, inf) before bat (3, log2(3*17 / (1*20)) = 1.35).
    assert [(w["word"], w["score"]) for w in only["groups"]["black"]["words"]] == [
        ("prisoner", None),
        ("bat", pytest.approx(math.log2(3 * 17 / 20))),
    ]
    looser = runner.invoke(
        app, ["pmi", "--corpus", str(path), "--raw", "--json", "--min-count", "2"]
    )
    assert "fence" in [
        w["word"] for w in json.loads(looser.output)["strata"][0]["groups"]["white"]["words"]
    ]
    # The paper's processing: stop words (the, an, by, a, with) go, PRISONER is prisoner.
    default = json.loads(runner.invoke(app, ["pmi", "--corpus", str(path), "--json"]).output)
    assert default["processing"] == "default"
    black = default["strata"][0]["groups"]["black"]
    assert black["tokens"] == 3 + 1 + 1 + 1 + 3  # prisoner x3, inmate, fence, player, bat x3
    # white: worker, fence x2, player x3, bat (N = 7); bat: log2(3*7 / (1*9)) = 1.22.
    assert [(w["word"], w["score"]) for w in black["words"]] == [
        ("prisoner", None),
        ("bat", pytest.approx(math.log2(3 * 7 / 9))),
    ]


def test_cli_pmi_table(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "corpus.jsonl", CORPUS)
    result = CliRunner().invoke(
        app, ["pmi", "--corpus", str(path), "--raw", "--by", "scenario"], env={"COLUMNS": "120"}
    )
    assert result.exit_code == 0, result.output
    assert "scenario=jumpsuit" in result.output and "scenario=bat" in result.output
    assert "prisoner (3, ∞)" in result.output and "player (3, 1.58)" in result.output


@pytest.mark.parametrize(
    ("lines", "by", "expected"),
    [
        (['{"group": "a", "text": "x"}', "{oops"], (), "line 2: not valid JSON"),
        (
            ['{"group": "a", "text": "x"}', "", '["a", "x"]'],
            (),
            "line 3: a JSON list, not an object",
        ),
        (['{"group": "a"}'], (), "line 1: no 'text'"),
        (['{"text": "x"}'], (), "line 1: no 'group'"),
        (['{"group": "", "text": "x"}'], (), "line 1: 'group' must be a non-empty string"),
        (['{"group": "a", "text": 3}'], (), "line 1: 'text' must be a string"),
        (['{"group": "a", "text": "x"}'], ("scenario",), "line 1: no 'scenario', which --by"),
        (['{"group": "a", "text": "x", "s": [1]}'], ("s",), "line 1: 's' must be a string"),
        (["", "  "], (), "no texts"),
    ],
)
def test_corpus_errors_name_the_line(
    tmp_path: Path, lines: list[str], by: tuple[str, ...], expected: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputFileError, match=expected.replace("[", r"\[")):
        read_corpus_jsonl(path, by)


def test_a_stratum_with_one_group_is_an_input_error(tmp_path: Path) -> None:
    rows = read_corpus_jsonl(
        write_jsonl(
            tmp_path / "c.jsonl", [*CORPUS, {"group": "black", "scenario": "run", "text": "x"}]
        ),
        ["scenario"],
    )
    with pytest.raises(InputFileError, match=r"stratum scenario=run \(first at line 6\).*'black'"):
        pmi_corpus(rows, processing="raw", by=["scenario"], source="c.jsonl")


def test_cli_errors_are_one_line_with_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"group": "a", "text": "x"}\n{"group": "b"}\n', encoding="utf-8")
    for path, expected in (
        (bad, "bad.jsonl: line 2: no 'text'"),
        (tmp_path / "nope.jsonl", "no such file"),
    ):
        with pytest.raises(SystemExit) as exit_info:
            main(["metrics", "pmi", "--corpus", str(path)])
        err = capsys.readouterr().err
        assert exit_info.value.code == 2
        assert expected in err and len(err.strip().splitlines()) == 1
