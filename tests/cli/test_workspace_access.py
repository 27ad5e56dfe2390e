"""Which commands may create, write or only read a workspace, and what they say when they cannot."""

from __future__ import annotations

import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from rich.console import Console

from diptych.cli.main import main
from diptych.cli.run_cmd import resume_command
from diptych.cli.runs_cmd import runs_table
from diptych.core.errors import ReadOnlyWorkspaceError
from diptych.core.store import connection
from diptych.core.workspace import Workspace

SCRIPT = Path(__file__).with_name("scripted_cli.py")
PST_TEXT = ["pst-text", "-m", "scripted-likelihood", "-p", "masculine=carpenter,sheriff"]


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def one_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    return lines[0]


@pytest.fixture
def ws_run(tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str]:
    ws = tmp_path / "ws"
    code, out, err = call(
        capsys, "--store", str(ws), "run", *PST_TEXT, "-p", "feminine=nurse,editor", "--quiet"
    )
    assert code == 0, err
    with Workspace.open(ws) as workspace:
        (summary,) = workspace.runs.list()
    return ws, summary.run.id


@pytest.mark.parametrize(
    "args",
    [
        ["runs"],
        ["show", "pst"],
        ["export", "pst"],
        ["report", "pst"],
        ["resume", "pst"],
        ["agreement", "pst"],
        ["compare", "a", "b"],
        ["annotate", "pst", "--template", "t.csv"],
    ],
    ids=" ".join,
)
def test_reading_commands_never_create_a_workspace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    missing = tmp_path / "typo"
    code, _, err = call(capsys, "--store", str(missing), *args)
    line = one_error(err)
    assert code == 2 and f"no diptych workspace at {missing}" in line and "to create one" in line
    assert not missing.exists()


def test_a_foreign_sqlite_file_is_refused_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scripted: None
) -> None:
    ws = tmp_path / "other"
    ws.mkdir()
    db = sqlite3.connect(ws / "diptych.db")
    db.execute("CREATE TABLE invoices (id INTEGER)")
    db.commit()
    db.close()
    before = (ws / "diptych.db").read_bytes()
    for args in (["runs"], ["run", *PST_TEXT]):
        code, _, err = call(capsys, "--store", str(ws), *args)
        line = one_error(err)
        assert code != 0 and "another program's SQLite database" in line and "invoices" in line
    assert (ws / "diptych.db").read_bytes() == before
    assert sorted(p.name for p in ws.iterdir()) == [".setup.lock", "diptych.db"] or sorted(
        p.name for p in ws.iterdir()
    ) == ["diptych.db"]


def test_an_ambiguous_prefix_lists_its_runs(
    ws_run: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    ws, first = ws_run
    code, _, err = call(
        capsys,
        "--store",
        str(ws),
        "run",
        *PST_TEXT,
        "-p",
        "feminine=nurse,editor",
        "--new",
        "--quiet",
    )
    assert code == 0, err
    with Workspace.open(ws) as workspace:
        ids = [s.run.id for s in workspace.runs.list()]
    code, _, err = call(capsys, "--store", str(ws), "show", "pst-text")
    line = one_error(err)
    assert code == 2 and "names 2 runs" in line and all(i in line for i in ids)


def test_the_name_the_tui_prints_names_its_run_in_every_command(
    ws_run: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    ws, run_id = ws_run
    # Two more runs of the same design: their ids share the first run's 8 hex digits.
    for _ in range(2):
        code, _, err = call(
            capsys, "--store", str(ws), "run", *PST_TEXT, "-p", "feminine=nurse,editor", "--new",
            "--quiet",
        )  # fmt: skip
        assert code == 0, err
    with Workspace.open(ws) as workspace:
        names = {s.run.id: s.name for s in workspace.runs.list()}
    assert len(names) == 3 and all(i.startswith(run_id) for i in names)
    # The Runs table prints the id without its probe prefix, cut to what names the run alone:
    # "0663f62e" for the first, and as many digits of the others' stamps as tell them apart.
    assert names[run_id] == run_id.removeprefix("pst-text-") and len(names[run_id]) == 8
    assert len(set(names.values())) == 3
    for whole, name in names.items():
        assert len(name) >= 8 and whole.removeprefix("pst-text-").startswith(name)
        code, shown_whole, err = call(capsys, "--store", str(ws), "show", whole)
        assert code == 0, err
        code, shown, err = call(capsys, "--store", str(ws), "show", name)
        assert code == 0 and shown == shown_whole, err
        code, exported, err = call(capsys, "--store", str(ws), "export", name, "--format", "jsonl")
        assert code == 0 and whole in exported, err
    # A start of them all is refused, naming the three.
    code, _, err = call(capsys, "--store", str(ws), "show", names[run_id][:7])
    line = one_error(err)
    assert code == 2 and "names 3 runs" in line and all(i in line for i in names)


def test_the_resume_hint_is_the_command_to_paste(
    ws_run: tuple[Path, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ws, run_id = ws_run
    spaced = tmp_path / "an audit"
    shutil.copytree(ws, spaced)
    with Workspace.open(spaced) as workspace:
        hint = resume_command(workspace, run_id)
    words = shlex.split(hint)
    assert words == ["diptych", "--store", str(spaced.absolute()), "resume", run_id]
    # Named through "..", it is named as a user would type it.
    (tmp_path / "run").mkdir()
    with Workspace.open(tmp_path / "run" / ".." / "an audit") as workspace:
        assert shlex.split(resume_command(workspace, run_id))[2] == str(spaced.absolute())
    # Pasted from another directory, it finds the workspace and creates nothing there.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.chdir(elsewhere)
    code, out, err = call(capsys, *words[1:], "--quiet")
    assert code == 0, err
    assert run_id in out and list(elsewhere.iterdir()) == []


@pytest.fixture
def read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process may not write the workspace: as root chmod does not stop writes, so the
    permission check is answered as a user without write access would get it."""
    monkeypatch.setattr(connection, "writable", lambda path: False)


def test_a_read_only_workspace_is_read_and_never_written(
    ws_run: tuple[Path, str], read_only: None, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ws, run_id = ws_run
    (ws / ".setup.lock").unlink()
    before = {p.name: p.read_bytes() for p in ws.iterdir() if p.is_file()}
    code, out, err = call(capsys, "--store", str(ws), "runs")
    assert code == 0 and run_id in out, err
    code, out, err = call(capsys, "--store", str(ws), "show", run_id)
    assert code == 0 and run_id in out, err
    export = tmp_path / "out" / "rows.csv"
    export.parent.mkdir()
    code, _, err = call(
        capsys, "--store", str(ws), "export", run_id, "--format", "csv", "-o", str(export)
    )
    assert code == 0 and export.read_text().count("\n") > 1, err
    code, out, err = call(
        capsys, "--store", str(ws), "report", run_id, "--out", str(tmp_path / "report")
    )
    assert code == 0 and (tmp_path / "report" / "report.md").is_file(), err
    for args in (
        ["run", *PST_TEXT, "--new"],
        ["resume", run_id],
        ["annotate", run_id, "--import", str(export)],
    ):
        code, _, err = call(capsys, "--store", str(ws), *args)
        line = one_error(err)
        assert code != 0 and f"workspace {ws} is read-only" in line, args
    after = {p.name: p.read_bytes() for p in ws.iterdir() if p.is_file()}
    # A reader of a WAL database in a directory it could write shares SQLite's index (-shm)
    # and may leave an empty -wal; the database itself is not written, nor anything else made.
    assert after.pop("diptych.db-wal", b"") == b""
    after.pop("diptych.db-shm", None)
    assert after == before


def test_read_only_open_refuses_writes(ws_run: tuple[Path, str]) -> None:
    ws, run_id = ws_run
    with Workspace.open(ws, read_only=True) as workspace:
        assert workspace.read_only and workspace.runs.list()[0].run.id == run_id
        with pytest.raises(ReadOnlyWorkspaceError, match="is read-only: cannot store labels"):
            workspace.labels.save(run_id, 0, "left", "feminine", reviewer="ana")


def _nobody() -> list[str] | None:
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        return None
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.mark.skipif(_nobody() is None, reason="needs root and setpriv to act as another user")
def test_a_read_only_directory_for_a_user_without_write_access(ws_run: tuple[Path, str]) -> None:
    ws, run_id = ws_run
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "archive"
        shutil.copytree(ws, archive)
        for path in [Path(tmp), *archive.rglob("*"), archive]:
            path.chmod(0o555 if path.is_dir() else 0o444)
        nobody = _nobody()
        assert nobody is not None
        base = [*nobody, sys.executable, str(SCRIPT), "--store", str(archive)]
        listed = subprocess.run([*base, "runs"], capture_output=True, text=True, timeout=120)
        if "Permission denied" in listed.stderr and "python" in listed.stderr.lower():
            pytest.skip("the interpreter is not readable by another user here")
        assert listed.returncode == 0 and run_id in listed.stdout, listed.stderr
        ran = subprocess.run(
            [*base, "run", *PST_TEXT, "--new"], capture_output=True, text=True, timeout=120
        )
        (line,) = ran.stderr.strip().splitlines()
        assert ran.returncode != 0 and "is read-only: cannot run a probe" in line
        assert sorted(p.name for p in archive.iterdir()) == sorted(p.name for p in ws.iterdir())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["export", "RUN", "-o", "/nonexistent/dir/x.csv"], "does not exist"),
        (["export", "RUN", "-o", "."], "is a directory"),
        (["report", "RUN", "--out", "AFILE"], "is a file, not a directory"),
        (["report", "RUN", "--out", "/proc/nope"], "--out /proc/nope"),
        (["run", *PST_TEXT, "--report", "AFILE"], "is a file, not a directory"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else v,
)
def test_output_paths_are_checked_before_work(
    ws_run: tuple[Path, str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    args: list[str],
    message: str,
) -> None:
    ws, run_id = ws_run
    afile = tmp_path / "afile"
    afile.write_text("keep me")
    args = [run_id if a == "RUN" else str(afile) if a == "AFILE" else a for a in args]
    code, _, err = call(capsys, "--store", str(ws), *args)
    line = one_error(err)
    assert code == 2 and message in line, line
    assert afile.read_text() == "keep me"


def test_tables_fit_80_columns_without_cutting_names(
    ws_run: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    ws, run_id = ws_run
    with Workspace.open(ws) as workspace:
        summaries = workspace.runs.list()
    console = Console(width=80, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    console.print(runs_table(summaries, console.width))
    text = console.export_text()
    assert run_id in text and "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 80

    os.environ["COLUMNS"] = "80"
    try:
        code, out, _ = call(capsys, "plugins")
    finally:
        del os.environ["COLUMNS"]
    assert code == 0 and "…" not in out
    assert max(len(line) for line in out.splitlines()) <= 80
    # Every plugin's name and package, and every name it registers, printed whole — whichever
    # plugins this environment has (the example plugin is installed by another test module).
    registry = Workspace.plugins.registry()
    for info in registry.plugins:
        for name in (info.name, info.distribution, *info.probes, *info.models, *info.annotators):
            assert name in out, name
    assert {"openai-compatible", "vlm_annotators", "vlm-judge"} <= {
        n for i in registry.plugins for n in (i.name, *i.models, *i.annotators)
    }


def _blobs_denied(monkeypatch: pytest.MonkeyPatch) -> None:
    """The workspace's blobs directory may not be written by this process (as root chmod does
    not stop writes, so the permission check is answered as a user without access gets it)."""
    access = os.access

    def denied(path: object, mode: int, **kwargs: object) -> bool:
        if Path(str(path)).name == "blobs" and mode & os.W_OK:
            return False
        return access(path, mode, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(connection.os, "access", denied)


def test_a_read_only_blobs_directory_makes_the_workspace_read_only(
    ws_run: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The images a run buys go to blobs/: with it read-only they would be paid for and lost.
    ws, run_id = ws_run
    _blobs_denied(monkeypatch)
    assert not connection.writable(ws)
    code, _, err = call(capsys, "--store", str(ws), "run", *PST_TEXT, "-p", "seed=9", "--new")
    line = one_error(err)
    assert code != 0 and f"workspace {ws} is read-only: cannot run a probe" in line
    code, out, err = call(capsys, "--store", str(ws), "runs")
    assert code == 0 and run_id in out and "pst-text" in out, err


def test_a_new_workspace_whose_blobs_directory_is_read_only_is_refused_before_work(
    tmp_path: Path,
    scripted: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ws = tmp_path / "ws"
    (ws / "blobs").mkdir(parents=True)
    _blobs_denied(monkeypatch)
    code, _, err = call(capsys, "--store", str(ws), "run", *PST_TEXT, "--quiet")
    line = one_error(err)
    assert code != 0 and f"{ws / 'blobs'}" in line and "not writable" in line, line
    assert not (ws / "diptych.db").exists()


@pytest.mark.parametrize("search", ["identities", "mitigate"])
def test_an_agent_search_on_a_read_only_workspace_is_refused_in_one_line(
    ws_run: tuple[Path, str], read_only: None, capsys: pytest.CaptureFixture[str], search: str
) -> None:
    ws, run_id = ws_run
    agent = ["--agent-model", "openai-compatible", "-A", "base_url=http://127.0.0.1:9/v1"]
    target = ["-m", "scripted-likelihood"] if search == "identities" else [run_id]
    code, _, err = call(capsys, "--store", str(ws), "agent", search, *target, *agent)
    line = one_error(err)
    assert code != 0 and f"workspace {ws} is read-only: cannot run an agent search" in line
