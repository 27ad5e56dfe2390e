"""Every ``diptych`` command the README and the manual print works as printed: each is parsed
against the CLI (the command, its options, their values, a run's probe and its parameters), and
each the table ``doc_commands.yaml`` marks ``run`` is run, page by page in one temporary
workspace, against scripted models or the loopback fake OpenAI service. A command the table
marks illustrative says why it is not run."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import click
import pytest
import typer.main
import yaml

from diptych.testing import FakeOpenAIServer
from tests.docs.fenced import DocCommand, every_command
from tests.support.cli import call

TABLE_PATH = Path(__file__).with_name("doc_commands.yaml")
TABLE: dict[str, list[dict[str, Any]]] = yaml.safe_load(TABLE_PATH.read_text(encoding="utf-8"))
COMMANDS = every_command()
#: Placeholders the pages use for the run they made last.
RUN_PLACEHOLDERS = ("RUN",)


def _entries() -> list[tuple[str, dict[str, Any]]]:
    return [(page, entry) for page, entries in TABLE.items() for entry in entries]


def test_the_table_lists_every_command_of_every_page_in_order() -> None:
    printed = [(c.page, c.text) for c in COMMANDS]
    listed = [(page, entry["command"]) for page, entry in _entries()]
    missing = [f"{p}: {c}" for p, c in printed if (p, c) not in listed]
    stale = [f"{p}: {c}" for p, c in listed if (p, c) not in printed]
    assert not missing, "commands the table does not list (add them to doc_commands.yaml):\n" + \
        "\n".join(missing)  # fmt: skip
    assert not stale, "table rows no page prints any more:\n" + "\n".join(stale)
    assert printed == listed, "the table lists a page's commands out of their order"
    for page, entry in _entries():
        assert ("run" in entry) != ("illustrative" in entry), f"{page}: {entry['command']}"
        if "illustrative" in entry:
            assert len(str(entry["illustrative"]).split()) >= 3, f"say why: {entry['command']}"


def _resolve(words: list[str]) -> tuple[click.Command, click.Context]:
    """The command ``diptych WORDS`` calls and its parsed context; raises click's usage errors
    as the CLI would (an unknown command or option, a value of the wrong type)."""
    from diptych.cli.main import app

    command: click.Command = typer.main.get_command(app)
    ctx = command.make_context("diptych", list(words))
    while isinstance(command, click.Group):
        protected = ctx.__dict__.get("_protected_args")
        if protected is None:
            protected = ctx.protected_args
        name, sub, rest = command.resolve_command(ctx, [*protected, *ctx.args])
        assert sub is not None and name is not None
        command, ctx = sub, sub.make_context(name, rest, parent=ctx)
    return command, ctx


def _check_probe(ctx: click.Context) -> None:
    """A printed ``diptych run``'s probe exists and takes the parameters it is given."""
    from diptych.cli.run_words import probe_flags
    from diptych.core.workspace import Workspace

    probe = ctx.params["probe"]
    given = [*(ctx.params.get("param") or []), *probe_flags(probe, ctx.args)]
    Workspace.plugins.probe(probe, given)


@pytest.mark.parametrize(
    "command", [c for c in COMMANDS], ids=[f"{c.page}:{c.line}" for c in COMMANDS]
)
def test_each_printed_command_parses(command: DocCommand) -> None:
    entry = next(e for e in TABLE[command.page] if e["command"] == command.text)
    if entry.get("synopsis"):
        return
    words = shlex.split(command.text)[1:]
    try:
        called, ctx = _resolve(words)
    except click.UsageError as error:
        pytest.fail(f"{command.page}:{command.line}: {command.text}\n{error.format_message()}")
    if called.name == "run" and not entry.get("unknown_probe"):
        _check_probe(ctx)


def _swap_models(words: list[str], swaps: dict[str, str]) -> list[str]:
    out = list(words)
    for i, word in enumerate(out[:-1]):
        if word in ("-m", "--model") and out[i + 1] in swaps:
            out[i + 1] = swaps[out[i + 1]]
    return out


def _latest_run(here: Path) -> str | None:
    from diptych.core.workspace import Workspace

    if not (here / ".diptych").exists():
        return None
    with Workspace.open(here / ".diptych", create=False) as ws:
        runs = ws.runs.list()
    return max(runs, key=lambda s: s.run.created_at).run.id if runs else None


PAGES_THAT_RUN = [page for page, entries in TABLE.items() if any("run" in e for e in entries)]


@pytest.mark.parametrize("page", PAGES_THAT_RUN)
def test_the_page_runs_as_printed(
    page: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    scripted_plugin: None,
    fake_openai: FakeOpenAIServer,
) -> None:
    """The page's commands, in order, from one directory, as a reader types them."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DIPTYCH_STORE", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    latest: str | None = None
    for entry in TABLE[page]:
        if "run" not in entry:
            continue
        spec = entry["run"] or {}
        words = _swap_models(shlex.split(entry["command"])[1:], spec.get("models", {}))
        if any(w in RUN_PLACEHOLDERS for w in words):
            assert latest is not None, f"{page}: '{entry['command']}' names RUN before any run"
            words = [latest if w in RUN_PLACEHOLDERS else w for w in words]
        code, out = call(capsys, *words)
        assert code == spec.get("exit", 0), f"{page}: {entry['command']}\n{out}"
        latest = _latest_run(tmp_path) or latest
