"""Every command answers a usage mistake with one line on stderr and exit 2, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import typer

from diptych.cli.main import app, main


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


ROOT = typer.main.get_command(app)
COMMANDS = list(_commands(ROOT))
LEAVES = [(path, c) for path, c in COMMANDS if path and not hasattr(c, "commands")]


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def assert_usage_error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code, _, err = call(capsys, *args)
    lines = err.strip().splitlines()
    assert "Traceback" not in err, (args, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), (args, err)
    assert code == 2, (args, code, err)
    return lines[0]


def _bad_values(param: Any) -> list[str]:
    """Values the option must refuse: not a number, and below its minimum."""
    kind = param.type_descriptor.annotation
    values = []
    if kind in (int, float):
        values.append("not-a-number")
        if param.min is not None:
            values.append(str(param.min - 1))
    if param.type_descriptor.is_choice:
        values.append("no-such-choice")
    return values


def test_the_walk_finds_every_command() -> None:
    names = {" ".join(path) for path, _ in LEAVES}
    assert {"run", "resume", "runs", "show", "export", "report", "compare"} <= names
    # `diptych plugins` lists, its subcommands are the plugin author's.
    assert {"plugins new", "plugins check"} <= names
    assert {"metrics sts", "metrics association", "metrics pmi", "annotate", "tui"} <= names


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "root")
def test_unknown_option(capsys: pytest.CaptureFixture[str], path: tuple[str, ...]) -> None:
    line = assert_usage_error(capsys, *path, "--no-such-option")
    assert "--no-such-option" in line


@pytest.mark.parametrize("path", [p for p, c in COMMANDS if hasattr(c, "commands")])
def test_unknown_command(capsys: pytest.CaptureFixture[str], path: tuple[str, ...]) -> None:
    assert "no-such-command" in assert_usage_error(capsys, *path, "no-such-command")


@pytest.mark.parametrize(
    "path",
    [p for p, c in LEAVES if any(param.required for param in c.params)],
    ids=" ".join,
)
def test_missing_arguments(capsys: pytest.CaptureFixture[str], path: tuple[str, ...]) -> None:
    assert "missing" in assert_usage_error(capsys, *path)


CASES = [
    (path, param, value)
    for path, command in LEAVES
    for param in command.params
    if param.param_type_name == "option"
    for value in _bad_values(param)
]


@pytest.mark.parametrize(
    ("path", "param", "value"),
    CASES,
    ids=[f"{' '.join(p)} {param.opts[0]} {v}" for p, param, v in CASES],
)
def test_bad_values(
    capsys: pytest.CaptureFixture[str], path: tuple[str, ...], param: Any, value: str
) -> None:
    # Required arguments and options get harmless values: the bad one is refused first.
    args: list[str] = [*path]
    for other in params_of(path):
        if other is not param and other.required:
            desc = other.type_descriptor
            if desc.is_choice:
                fine = str(next(iter(desc.choices)))
            elif desc.annotation in (int, float):
                fine = str(other.min if other.min is not None else 1)
            else:
                fine = "x"
            args += [other.opts[0], fine] if other.param_type_name == "option" else [fine]
    line = assert_usage_error(capsys, *args, param.opts[0], value)
    assert param.opts[0] in line or param.name in line, line
    if param.type_descriptor.annotation in (int, float) and not param.type_descriptor.is_choice:
        # The value, what to give instead and an example; never pydantic's "Input should be".
        shown = repr(value) if value == "not-a-number" else value
        assert f": {shown} is not " in line and ", e.g. " in line, line


def params_of(path: tuple[str, ...]) -> list[Any]:
    return dict(LEAVES)[path].params


@pytest.mark.parametrize(
    "args",
    [
        ["run", "pst-text", "-m", "x", "--concurrency", "0"],
        ["run", "pst-text", "-m", "x", "--max-attempts", "0"],
        ["run", "pst-text", "-m", "x", "--timeout", "0"],
        ["run", "pst-text", "-m", "x", "--timeout", "-1"],
        ["run", "pst-text", "-m", "x", "--max-cost", "-5"],
        ["resume", "r", "--concurrency", "0"],
        ["resume", "r", "--timeout", "0"],
        ["calibrate", "faces", "--concurrency", "0"],
        ["metrics", "sts", "--labels", "x.csv", "--n-boot", "0"],
        ["metrics", "pmi", "--corpus", "x.jsonl", "--min-count", "-5"],
        ["metrics", "association", "--responses", "x.csv", "--compare", "age"],
        ["export", "r", "--format", "xml"],
        ["compare", "a", "b", "--n-perm", "0"],
        ["agreement", "r", "--n-boot", "0"],
    ],
    ids=" ".join,
)
def test_numbers_and_choices_are_checked(
    capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    assert_usage_error(capsys, *args)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["run", "pairs", "-m", "x", "--max-cost", "abc"],
            "invalid value for '--max-cost': 'abc' is not an amount of US dollars, e.g. 5 "
            "(see 'diptych run --help')",
        ),
        (
            ["run", "pairs", "-m", "x", "--concurrency", "abc"],
            "invalid value for '--concurrency': 'abc' is not a whole number (1 or more), e.g. 16 "
            "(see 'diptych run --help')",
        ),
        (
            ["run", "pairs", "-m", "x", "--concurrency", "1.5"],
            "invalid value for '--concurrency': 1.5 is not a whole number (1 or more), e.g. 16 "
            "(see 'diptych run --help')",
        ),
        (
            ["run", "pairs", "-m", "x", "--timeout", "abc"],
            "invalid value for '--timeout': 'abc' is not a number of seconds, e.g. 30 "
            "(see 'diptych run --help')",
        ),
        (
            ["run", "pairs", "-m", "x", "--max-retry-wait", ""],
            "invalid value for '--max-retry-wait': '' is not a number of seconds, e.g. 300 "
            "(see 'diptych run --help')",
        ),
        (
            ["run", "pairs", "-m", "x", "--batches", "abc"],
            "invalid value for '--batches': 'abc' is not a whole number (2 or more), e.g. 2 "
            "(see 'diptych run --help')",
        ),
        (
            ["run", "pairs", "-m", "x", "--target-width", "wide"],
            "invalid value for '--target-width': 'wide' is not a half-width above 0, e.g. 10 "
            "(see 'diptych run --help')",
        ),
        (
            ["resume", "r", "--concurrency", "many"],
            "invalid value for '--concurrency': 'many' is not a whole number (1 or more), "
            "e.g. 16 (see 'diptych resume --help')",
        ),
        (
            ["audit", "run", "a.yaml", "--batches", "abc"],
            "invalid value for '--batches': 'abc' is not a whole number (2 or more), e.g. 10 "
            "(see 'diptych audit run --help')",
        ),
        (
            ["audit", "run", "a.yaml", "--batches", "1"],
            "invalid value for '--batches': 1 is not a whole number (2 or more), e.g. 10 "
            "(see 'diptych audit run --help')",
        ),
        (
            ["audit", "run", "a.yaml", "--max-cost", "five"],
            "invalid value for '--max-cost': 'five' is not an amount of US dollars, e.g. 5 "
            "(see 'diptych audit run --help')",
        ),
        (
            ["audit", "run", "a.yaml", "--assume", "x"],
            "invalid value for '--assume': 'x' is not a figure's value, e.g. 25 "
            "(see 'diptych audit run --help')",
        ),
        (
            ["audit", "check", "a.yaml", "--target-width", "z"],
            "invalid value for '--target-width': 'z' is not a half-width above 0, e.g. 10 "
            "(see 'diptych audit check --help')",
        ),
        (
            ["standings", "--seed", "x"],
            "invalid value for '--seed': 'x' is not a whole number (0 or more), e.g. 0 "
            "(see 'diptych standings --help')",
        ),
        (
            ["compare", "a", "b", "--seed", "-1"],
            "invalid value for '--seed': -1 is not a whole number (0 or more), e.g. 0 "
            "(see 'diptych compare --help')",
        ),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else "",
)
def test_a_wrong_number_says_what_to_give(
    capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    assert assert_usage_error(capsys, *args) == f"error: {said}"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["run", "pairs", "-m", "x", "--seed", "abc"],
            "probe 'pairs' parameter 'seed': 'abc' is not a whole number, e.g. 0",
        ),
        (
            ["run", "pairs", "-m", "x", "-p", "seed=1.5"],
            "probe 'pairs' parameter 'seed': 1.5 is not a whole number, e.g. 0",
        ),
        (
            [
                "run",
                "pairs",
                "-m",
                "openai-compatible",
                "-M",
                "base_url=http://127.0.0.1:9/v1",
                "-M",
                "timeout=soon",
            ],
            "model 'openai-compatible' parameter 'timeout': 'soon' is not a number, e.g. 60",
        ),
        (
            [
                "run",
                "pairs",
                "-m",
                "openai-compatible",
                "-M",
                "base_url=http://127.0.0.1:9/v1",
                "-M",
                "max_concurrency=0",
            ],
            "model 'openai-compatible' parameter 'max_concurrency': 0 is not a whole number "
            "(1 or more), e.g. 8",
        ),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else "",
)
def test_a_wrong_number_for_a_parameter_says_what_to_give(
    capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    code, _, err = call(capsys, *args)
    assert (code, err.strip()) == (2, f"error: {said}")


def test_store_after_the_command_says_where_it_goes(capsys: pytest.CaptureFixture[str]) -> None:
    line = assert_usage_error(capsys, "runs", "--store", "X")
    assert "diptych --store PATH runs" in line


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "root")
def test_help_shows_flags_as_flags(
    capsys: pytest.CaptureFixture[str], path: tuple[str, ...]
) -> None:
    code, out, _ = call(capsys, *path, "--help")
    assert code == 0
    assert "<bool>" not in out and "--help" in out


@pytest.mark.parametrize("group", [p for p, c in COMMANDS if hasattr(c, "commands")], ids=str)
def test_command_lists_keep_each_summary_one_sentence(
    capsys: pytest.CaptureFixture[str], group: tuple[str, ...]
) -> None:
    """A summary wrapped in its docstring reads as one sentence in the list of commands: a line
    of the panel never ends mid-sentence where the source wrapped it."""
    code, out, _ = call(capsys, *group, "--help")
    assert code == 0
    for path, command in COMMANDS:
        if len(path) != len(group) + 1 or path[:-1] != group or not command.help:
            continue
        first = " ".join(command.help.split("\n\n")[0].split())
        assert command.short_help == first, path


GROUPS = [(path, c) for path, c in COMMANDS if hasattr(c, "commands") and c.no_args_is_help]


def test_every_group_that_shows_its_help_bare_is_walked() -> None:
    names = {" ".join(path) for path, _ in GROUPS}
    assert {"", "audit", "doctor", "metrics", "agent"} <= names


@pytest.mark.parametrize("path", [p for p, _ in GROUPS], ids=lambda p: " ".join(p) or "diptych")
def test_a_bare_group_shows_its_help_and_no_error(
    capsys: pytest.CaptureFixture[str], path: tuple[str, ...]
) -> None:
    code, out, err = call(capsys, *path)
    assert code == 0, (path, code, err)
    assert err == "", (path, err)
    assert "Usage:" in out
    # The help names each of the group's commands.
    command = dict(GROUPS)[path]
    for name, sub in command.commands.items():
        if not sub.hidden:
            assert name in out, (path, name)
