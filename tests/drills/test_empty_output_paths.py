"""An empty output path (an unset variable in a script: ``--report "$DIR"``) is refused on
every flag that writes, in one line naming the flag and what to give, before anything runs.

``Path("")`` is the current directory: unchecked, a report was written into wherever the
command was started, and ``export --bundle B --report ""`` carried that directory into the
bundle."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import call

REPORT = "the directory to write the report in"

#: (command line after ``--store WS``, the flag left empty, what the line asks for)
CASES = [
    (["run", "pst-text", "-m", "scripted-likelihood", "--report"], "--report", REPORT),
    (["resume", "pst-text-0", "--report"], "--report", REPORT),
    (["report", "pst-text-0", "--out"], "--out", REPORT),
    (["audit", "run", "a.yaml", "--out"], "--out", REPORT),
    (["audit", "gate", "a.yaml", "--junit"], "--junit", "the file to write the JUnit XML in"),
    (["export", "pst-text-0", "--out"], "--out",
     "the file to write (or leave --out out to write to stdout)"),
    (["export", "pst-text-0", "-o"], "--out",
     "the file to write (or leave --out out to write to stdout)"),
    (["export", "pst-text-0", "--bundle"], "--bundle", "the bundle file to write"),
    (["export", "pst-text-0", "--bundle", "b.zip", "--report"], "--report",
     "the report directory the bundle carries"),
    (["annotate", "pst-text-0", "--template"], "--template",
     "the file to write the labels template in"),
    (["annotate", "pst-text-0", "--template", "t.csv", "--images"], "--images",
     "the directory to write the images in"),
    (["audit", "init"], "FILE", "the path of the audit file to write"),
    (["plugins", "new", "probe", "my-probe", "--dir"], "--dir",
     "the directory the package goes in"),
]  # fmt: skip


@pytest.mark.parametrize("blank", ["", "  "])
@pytest.mark.parametrize(("command", "flag", "what"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_an_empty_output_path_is_refused_and_nothing_is_written(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
    flag: str,
    what: str,
    blank: str,
) -> None:
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    ws = tmp_path / "ws"
    code, out = call(capsys, "--store", str(ws), *command, blank)
    assert code == 2, out
    assert out.strip().splitlines() == [f"error: {flag} is empty; give {what}"]
    assert list(here.iterdir()) == [] and not ws.exists()


@pytest.mark.parametrize("command", [["runs"], ["tui"]])
def test_an_empty_store_is_refused_rather_than_made_of_the_current_directory(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["--store", "", *command] if command == ["runs"] else ["tui", "--store", ""]
    code, out = call(capsys, *args)
    assert code == 2, out
    assert out.strip().splitlines() == [
        "error: --store is empty; give the workspace directory (or leave --store out for "
        "./.diptych)"
    ]
    assert list(tmp_path.iterdir()) == []


def test_audit_init_onto_a_directory_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--force`` overwrites a file, never a directory: said in one line, not a traceback."""
    code, out = call(capsys, "audit", "init", str(tmp_path), "--force")
    assert code == 2, out
    assert out.strip().splitlines() == [f"error: FILE {tmp_path}: is a directory; give a file name"]
    assert list(tmp_path.iterdir()) == []
