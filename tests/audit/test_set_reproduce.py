"""An audit run with ``--set`` is made again by the command its report prints: the fields the
run replaced are recorded with the audit and given again (``--set KEY=VALUE``, quoted for a
POSIX shell), so that the command, pasted, plans the same runs and asks nothing."""

from __future__ import annotations

import html
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from diptych.core.audit.overrides import set_words
from diptych.core.report.reproduce import audit_command
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import planted_audit

ROOT = Path(__file__).resolve().parents[2]
SCRIPTED_CLI = ROOT / "tests" / "cli" / "scripted_cli.py"
SETS = [
    # Fewer identities than the file names: another design, so other fingerprints.
    "probes.0.params.masculine=carpenter,farmer",
    "probes.0.params.feminine=[nurse, editor]",
    "report.formats=[md,html,json]",
]
#: A text a shell must be given quoted: a space, an apostrophe and double quotes.
LOG = 'models.target.params.calls_log={}/it\'s "the" log.jsonl'


def _shell_env(tmp_path: Path) -> dict[str, str]:
    """``diptych`` on PATH as the CLI with the scripted models registered, this tree first."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "diptych"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {SCRIPTED_CLI} "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("DIPTYCH_STORE", "OPENAI_BASE_URL")}
    return {**env, "PATH": f"{bin_dir}:{env['PATH']}", "PYTHONPATH": f"{ROOT}:{ROOT / 'tests'}"}


def _code_after(text: str, lead: str) -> str:
    return text.split(lead, 1)[1].split("```")[1].strip()


def _runs(store: Path) -> set[tuple[str, str]]:
    with open_store(store) as opened:
        return {(r.id, r.fingerprint) for r in opened.list_runs()}


def test_the_printed_command_gives_the_sets_again_and_makes_the_same_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    masc, fem = ["carpenter", "farmer", "guard"], ["nurse", "editor", "secretary"]
    file = planted_audit(tmp_path / "a.yaml", [], masc, fem, name="sets", seed=3)
    monkeypatch.chdir(tmp_path)
    sets = [*SETS, LOG.format(tmp_path)]
    args = [w for s in sets for w in ("--set", s)]
    code, out = call(capsys, "audit", "run", str(file), *args, "--out", "report", "--quiet")
    assert code == 0, out
    store = tmp_path / ".diptych"
    first = _runs(store)
    with Workspace.open(store) as ws:
        (recorded,) = ws.audits.list()
        assert recorded.overridden == {
            "probes.0.params.masculine": "carpenter,farmer",
            "probes.0.params.feminine": "[nurse, editor]",
            "report.formats": "[md,html,json]",
            "models.target.params.calls_log": f'{tmp_path}/it\'s "the" log.jsonl',
        }
    report = tmp_path / "report"
    command = _code_after((report / "report.md").read_text(), "This report again")
    words = shlex.split(command)
    assert [words[i + 1] for i, w in enumerate(words) if w == "--set"] == sets, command
    # The report's page prints the same command.
    page = html.unescape(re.sub(r"<[^>]+>", "", (report / "report.html").read_text()))
    assert command in page
    again = subprocess.run(
        ["sh", "-c", command], cwd=report, env=_shell_env(tmp_path), capture_output=True,
        text=True, timeout=600,
    )  # fmt: skip
    assert again.returncode == 0, again.stdout + again.stderr
    # The same runs under the same fingerprints: nothing planned anew, one audit recorded.
    assert _runs(store) == first
    with Workspace.open(store) as ws:
        assert [a.id for a in ws.audits.list()] == [recorded.id]
    assert (report / "reproduced-audit" / "report.md").is_file()


def test_a_value_is_written_so_that_it_reads_back_the_same() -> None:
    given = {"a.b": "http://x/?q=1 2", "n": 5, "s": "5", "l": ["html", "md"], "t": "html,md"}
    words = set_words(given)
    assert words == ["--set", "a.b=http://x/?q=1 2", "--set", "n=5", "--set", 's="5"',
                     "--set", 'l=["html","md"]', "--set", "t=html,md"]  # fmt: skip
    command = audit_command({"file": "a.yaml", "overrides": given}, None) or ""
    assert "--set 'a.b=http://x/?q=1 2'" in command and "--set 's=\"5\"'" in command


def test_a_secret_or_a_urls_password_is_never_printed() -> None:
    given = {
        "models.m.params.base_url": "http://user:hunter2@127.0.0.1:9/v1",
        "models.m.params.api_key": "sk-live",
        "models.m.params.api_key_env": "MY_KEY",
    }
    command = audit_command({"file": "a.yaml", "overrides": given}, None) or ""
    assert "hunter2" not in command and "sk-live" not in command, command
    assert "models.m.params.base_url=http://127.0.0.1:9/v1" in command
    assert "models.m.params.api_key_env=MY_KEY" in command
