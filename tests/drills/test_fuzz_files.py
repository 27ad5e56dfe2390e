"""Hostile files, fuzzed: label imports (`diptych annotate RUN --import`) and YAML prompt overrides
(``DIPTYCH_PROMPTS``) get a one-line error (exit 2) or a recorded outcome, never a traceback,
and an import that fails leaves the workspace unchanged."""

from __future__ import annotations

import random
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diptych.core.workspace import Workspace
from tests.drills.test_fuzz_inputs import fingerprint, run_cli

#: How many cases each target was fuzzed with (the closing note counts them).
CASES = {"label imports": 80, "yaml overrides": 60}


def fuzz(target: str) -> settings:
    return settings(
        max_examples=CASES[target],
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


def one_line_error_or_ok(code: int, err: str) -> None:
    assert "Traceback" not in err
    if code != 0:
        assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err


COLUMNS = ["image", "setting", "position", "identity", "stereotype", "label", "annotator", "run"]
cells = st.one_of(
    st.sampled_from(
        ["occ-paired-carpenter--editor-s0", "paired", "left", "right", "single", "carpenter",
         "editor", "masculine", "feminine", "cannot_identify", "1", "0", "-1", "", "alice",
         "human:bob", "self", "automatic:x", '"', "\x00", "é"]
    ),
    st.text(max_size=12),
)  # fmt: skip
label_files = st.one_of(
    # Rows of the contract's columns (some dropped, some repeated) with hostile cells.
    st.tuples(
        st.lists(st.sampled_from(COLUMNS), min_size=0, max_size=10),
        st.lists(st.lists(cells, max_size=10), max_size=12),
    ).map(lambda t: "\n".join([",".join(t[0]), *(",".join(r) for r in t[1])]).encode()),
    st.binary(max_size=300),
    st.text(max_size=200).map(lambda s: s.encode("utf-16")),
)


def test_label_imports_are_refused_in_one_line_or_stored(scripted: None, tmp_path: Path) -> None:
    store = tmp_path / "ws"
    with Workspace.open(store) as ws:
        run = ws.runs.run_sync(
            "pst", ["scripted-images"], params={"masculine": ["carpenter"], "feminine": ["editor"]}
        )
    path = tmp_path / "labels.csv"

    @fuzz("label imports")
    @given(data=label_files)
    def check(data: bytes) -> None:
        path.write_bytes(data)
        before = fingerprint(store)
        code, err = run_cli(["--store", str(store), "annotate", run.id, "--import", str(path)])
        one_line_error_or_ok(code, err)
        if code != 0:
            assert fingerprint(store) == before

    check()


#: Shipped files a user may override, and a dry run that reads each.
OVERRIDES = {
    "pst_identities.yaml": ["run", "pst", "-m", "scripted-images", "--dry-run"],
    "pst_images.yaml": ["run", "pst", "-m", "scripted-images", "--dry-run"],
    "pairs_stories.yaml": ["run", "stories", "-m", "scripted-vision", "--dry-run"],
}

leaves = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=10),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)  # fmt: skip


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside ``value`` (dict keys and list indexes)."""
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):
            out += _paths(v, (*here, i))
    return out


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replaced(value[head], rest, new)}
    copy = list(value)
    copy[head] = _replaced(copy[head], rest, new)
    return copy


@cache
def shipped_yaml(name: str) -> Any:
    """The shipped file's content (never the user's override: that is what the test writes)."""
    return yaml.safe_load(resources.files("diptych.prompts").joinpath(name).read_text("utf-8"))


@st.composite
def overrides(draw: st.DrawFn) -> tuple[str, bytes]:
    name = draw(st.sampled_from(sorted(OVERRIDES)))
    shipped = shipped_yaml(name)
    how = draw(st.sampled_from(["malformed", "wrong type", "extra field", "bytes"]))
    if how == "malformed":
        text = yaml.safe_dump(shipped)
        cut = draw(st.integers(0, len(text)))
        data = (text[:cut] + draw(st.sampled_from([": [", "\t- {", "\x00", "'", "&a *b"]))).encode()
    elif how == "bytes":
        data = draw(st.binary(max_size=200))
    else:
        rng = random.Random(draw(st.integers(0, 10_000)))
        path = rng.choice(_paths(shipped))
        if how == "wrong type":
            changed = _replaced(shipped, path, draw(leaves))
        else:
            changed = shipped
            while path and not isinstance(_get(changed, path), dict):
                path = path[:-1]
            target = _get(changed, path)
            if isinstance(target, dict):
                changed = _replaced(changed, path, {**target, "unexpected_field": draw(leaves)})
        data = yaml.safe_dump(changed).encode()
    return name, data


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def test_yaml_overrides_are_refused_in_one_line(
    scripted: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, user = tmp_path / "ws", tmp_path / "prompts"
    user.mkdir()
    Workspace.open(store).close()
    before = fingerprint(store)
    monkeypatch.setenv("DIPTYCH_PROMPTS", str(user))

    @fuzz("yaml overrides")
    @given(override=overrides())
    def check(override: tuple[str, bytes]) -> None:
        name, data = override
        for old in user.iterdir():
            old.unlink()
        (user / name).write_bytes(data)
        code, err = run_cli(["--store", str(store), *OVERRIDES[name]])
        one_line_error_or_ok(code, err)
        assert fingerprint(store) == before

    check()


def test_an_extra_field_in_an_override_is_named(
    scripted: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = shipped_yaml("pst_identities.yaml")
    (tmp_path / "pst_identities.yaml").write_text(yaml.safe_dump({**shipped, "colour": "red"}))
    monkeypatch.setenv("DIPTYCH_PROMPTS", str(tmp_path))
    code, err = run_cli(["--store", str(tmp_path / "ws"), *OVERRIDES["pst_identities.yaml"]])
    assert code == 2 and "colour" in err and err.count("\n") == 1, err
