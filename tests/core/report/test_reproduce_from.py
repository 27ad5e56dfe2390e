"""The "How to reproduce this report" section says in one line the folder its commands run
from, named as the report's folder was given, and its commands pasted there reproduce the
report: the demo's layout (``--store ws/.diptych --report ws`` from another directory) and a
report written away from its workspace (whose commands name it with ``--store``)."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from tests.support.surfaces import shell_env
from tests.support.surfaces.reproduce import printed_commands, reproduce_problems

WHERE = (
    "Every command below runs from `{folder}/`, this report's folder as it was named when it "
    "was written"
)


@pytest.mark.parametrize(
    ("store", "folder", "names_store"),
    [("ws/.diptych", "ws", False), ("ws/.diptych", "rep", True)],
)
def test_the_section_says_where_its_commands_run_from(
    tmp_path: Path, store: str, folder: str, names_store: bool
) -> None:
    env = shell_env(tmp_path / "bin")
    command = (
        f"diptych --store {store} run pst-text --model scripted-likelihood "
        "-p masculine=carpenter,farmer -p feminine=nurse,editor "
        f"--report {shlex.quote(folder)} --quiet"
    )
    done = subprocess.run(["sh", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = tmp_path / folder / "report.md"
    text = report.read_text(encoding="utf-8")
    section = text.split("### How to reproduce this report", 1)[1].split("\n### ", 1)[0]
    assert section.strip().startswith(WHERE.format(folder=folder))
    commands = printed_commands(text)
    # Beside its workspace no --store is needed; elsewhere every command names it from there.
    expected = "diptych --store ../ws/.diptych " if names_store else "diptych "
    assert commands and all(c.startswith(expected) for c in commands), commands
    assert all(("--store" in c) == names_store for c in commands), commands
    # Pasted from the folder the line names, as the user named it from where they ran.
    assert reproduce_problems(report, tmp_path / folder, env, store=tmp_path / store) == []
