"""The readers' limits: YAML duplicate keys and nesting, JSON nesting and line length, each one
line naming the file (and line), and every shipped YAML file read by the strict loader."""

from __future__ import annotations

from pathlib import Path

import pytest

import diptych
from diptych.core import json_input
from diptych.core.audit.schema import parse_audit
from diptych.core.errors import InputFileError
from diptych.core.json_input import MAX_JSON_DEPTH, json_lines, parse_json
from diptych.core.metrics.pairs.lexical import read_corpus_jsonl
from diptych.core.yaml_input import MAX_YAML_DEPTH, load_yaml


def test_a_duplicate_key_is_refused_with_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("occupations:\n  masculine: [a]\n  feminine: [b]\n  masculine: [c]\n")
    with pytest.raises(InputFileError) as caught:
        load_yaml(path)
    assert str(caught.value) == (
        f"{path}:4: not valid YAML: key 'masculine' appears twice in one mapping "
        "(first on line 2); keep one"
    )


def test_merge_keys_may_override_and_equal_keys_in_other_mappings_are_fine(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  x: 3\nthird: {x: 4}\n")
    assert load_yaml(path) == {
        "base": {"x": 1, "y": 2},
        "other": {"x": 3, "y": 2},
        "third": {"x": 4},
    }


def test_yaml_nesting_is_bounded(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    # MAX_YAML_DEPTH levels in all: the document's mapping and MAX - 1 lists in it.
    path.write_text("k: " + "[" * (MAX_YAML_DEPTH - 1) + "]" * (MAX_YAML_DEPTH - 1) + "\n")
    value = load_yaml(path)["k"]
    for _ in range(MAX_YAML_DEPTH - 2):
        (value,) = value
    assert value == []
    path.write_text("k: " + "[" * MAX_YAML_DEPTH + "]" * MAX_YAML_DEPTH + "\n")
    with pytest.raises(InputFileError, match=f"nested deeper than {MAX_YAML_DEPTH} levels"):
        load_yaml(path)
    # Far past Python's recursion limit: still the same one line, not a RecursionError.
    path.write_text("k: " + "{a: " * 20_000 + "1" + "}" * 20_000 + "\n")
    with pytest.raises(InputFileError, match=r"a\.yaml:1: .*nested deeper"):
        load_yaml(path)


def test_yaml_files_must_be_small_regular_utf8_files(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("k: " + "x" * 100 + "\n")
    with pytest.raises(InputFileError, match="104 bytes, more than the 50"):
        load_yaml(path, limit=50)
    with pytest.raises(InputFileError, match="not a regular file"):
        load_yaml(tmp_path)
    path.write_bytes(b"k: \xff\xfe\n")
    with pytest.raises(InputFileError, match="not UTF-8"):
        load_yaml(path)


def test_an_audit_file_with_a_key_twice_names_the_line() -> None:
    text = "audit: 1\nname: a\nmodels:\n  t: {plugin: smollm2}\nname: b\n"
    with pytest.raises(InputFileError) as caught:
        parse_audit(text, "audit.yaml")
    assert str(caught.value).startswith("audit.yaml:5: not YAML: key 'name' appears twice")


def test_a_prompt_override_with_a_key_twice_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from diptych.plugins.probes._paired_stereotype_test.identities import identities

    (tmp_path / "pst_identities.yaml").write_text(
        "source: s\noccupations: {masculine: [a], feminine: [b], feminine: [c]}\n"
        "power_roles: {high: [h], low: [l], excluded_occupations: []}\n"
    )
    monkeypatch.setenv("DIPTYCH_PROMPTS", str(tmp_path))
    with pytest.raises(InputFileError, match="key 'feminine' appears twice"):
        identities()


def test_an_empty_identity_list_in_a_prompt_override_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from diptych.plugins.probes._paired_stereotype_test.identities import identities

    (tmp_path / "pst_identities.yaml").write_text(
        "source: s\noccupations: {masculine: [], feminine: [b]}\n"
        "power_roles: {high: [h], low: [l], excluded_occupations: []}\n"
    )
    monkeypatch.setenv("DIPTYCH_PROMPTS", str(tmp_path))
    with pytest.raises(
        InputFileError, match="'occupations.masculine': List should have at least 1"
    ):
        identities()


def test_every_shipped_yaml_file_reads_strictly() -> None:
    root = Path(diptych.__file__).parent
    files = sorted(root.rglob("*.yaml"))
    assert len(files) >= 20
    for path in files:
        assert load_yaml(path) is not None, path


def test_json_nesting_is_bounded_at_the_stated_depth() -> None:
    ok = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert parse_json(ok, "x: ") is not None
    deep = "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)
    with pytest.raises(InputFileError) as caught:
        parse_json(deep, "f.json: ")
    assert (
        str(caught.value) == f"f.json: JSON nested deeper than {MAX_JSON_DEPTH} levels; flatten it"
    )
    # 100,000 levels: Python's parser gives up by recursion; the same one line.
    with pytest.raises(InputFileError, match="nested deeper"):
        parse_json("[" * 100_000 + "]" * 100_000, "f.json: ")
    # Many brackets side by side are not depth.
    assert len(parse_json("[" + ",".join(["[]"] * 500) + "]", "x: ")) == 500


def test_a_jsonl_line_longer_than_the_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(json_input, "MAX_JSON_LINE", 40)
    path = tmp_path / "c.jsonl"
    short = '{"group": "a", "text": "x"}\n'
    path.write_text(short + '{"group": "b", "text": "' + "y" * 40 + '"}\n')
    with path.open() as handle:
        lines = json_lines(handle, str(path))
        assert next(lines) == (1, short)
        with pytest.raises(InputFileError) as caught:
            next(lines)
    assert str(caught.value) == (
        f"{path}: line 2: longer than 40 characters; write one JSON object per line"
    )


def test_the_corpus_reader_names_the_line_nested_too_deeply(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    nested = "[" * 70 + "]" * 70
    path.write_text(
        '{"group": "a", "text": "x"}\n{"group": "b", "text": "y", "n": ' + nested + "}\n"
    )
    with pytest.raises(InputFileError) as caught:
        read_corpus_jsonl(path)
    assert str(caught.value) == f"{path}: line 2: JSON nested deeper than 64 levels; flatten it"
