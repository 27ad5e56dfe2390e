"""Hostile workspaces: a damaged database (bytes that are not SQLite's, a truncated file,
pages overwritten), a database that is a directory, a blob gone. Every command that opens the
workspace ends in one line naming the file and what to do, and leaves the file as it was."""

from __future__ import annotations

import contextlib
import io
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from diptych.cli import tui_cmd
from diptych.cli.main import main
from diptych.core.engine import run_probe
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.testing import ScriptedImageGenerator, ScriptedParams

SMALL = {
    "masculine": ["carpenter"],
    "feminine": ["editor"],
    "aspects": ["occupation"],
    "setting": "single",
}
AUDIT = (
    "audit: 1\nname: damaged\nmodels:\n  target: {plugin: scripted-likelihood}\nprobes:\n"
    "  - {probe: pst-text, models: [target], params: {masculine: [carpenter], "
    "feminine: [editor]}}\n"
)


def run_cli(args: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            main(args)
            code = 0
        except SystemExit as done:
            code = int(done.code or 0)
    return code, err.getvalue()


@pytest.fixture
def workspace(tmp_path: Path, scripted: None) -> tuple[Path, str]:
    """A workspace with one run of generated images, its database checkpointed (no -wal)."""
    ws = tmp_path / "ws"
    with open_store(ws) as store:
        run = run_probe(
            store, "pst", [ScriptedImageGenerator(ScriptedParams())], probe_params=SMALL
        )
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return ws, run.id


def commands(ws: Path, run_id: str, tmp: Path) -> dict[str, list[str]]:
    audit = tmp / "audit.yaml"
    audit.write_text(AUDIT)
    return {
        "run": ["run", "pst-text", "-m", "scripted-likelihood", "--quiet"],
        "resume": ["resume", run_id, "--quiet"],
        "runs": ["runs"],
        "show": ["show", run_id],
        "report": ["report", run_id, "--out", str(tmp / "report")],
        "export": ["export", run_id, "-o", str(tmp / "rows.jsonl")],
        "annotate --template": ["annotate", run_id, "--template", str(tmp / "t.csv")],
        "annotate --annotator": ["annotate", run_id, "--annotator", "scripted-annotator"],
        "agreement": ["agreement", run_id],
        "audit check": ["audit", "check", str(audit)],
        "audit run": ["audit", "run", str(audit), "--quiet"],
        "audit list": ["audit", "list"],
        "agent identities": ["agent", "identities", "--model", "scripted-likelihood"],
        "tui": ["tui"],
    }


def _garbage(db: Path) -> None:
    db.write_bytes(b"this is not SQLite, it is what a bad copy left behind\n" * 200)


def _truncated(db: Path) -> None:
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 3])


def _pages_overwritten(db: Path) -> None:
    # The schema and the migrations read, so the workspace opens; the first pages of the runs,
    # their trials and results do not: found by whichever query reaches them first.
    with contextlib.closing(sqlite3.connect(db)) as intact:
        tables = "SELECT name, rootpage FROM sqlite_master WHERE type = 'table'"
        roots = dict(intact.execute(tables))
        page = intact.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(db.read_bytes())
    for table in ("runs", "trials", "results"):
        start = (roots[table] - 1) * page
        data[start : start + page] = b"\xa5" * page
    db.write_bytes(bytes(data))


DAMAGE: dict[str, Callable[[Path], None]] = {
    "garbage bytes": _garbage,
    "truncated": _truncated,
    "tables' pages overwritten": _pages_overwritten,
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_database_is_named_and_left_as_it_is(
    damage: str,
    workspace: tuple[Path, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ws, run_id = workspace
    db = ws / "diptych.db"
    DAMAGE[damage](db)
    before = db.read_bytes()
    names = sorted(p.name for p in ws.iterdir())
    monkeypatch.setattr(tui_cmd, "has_terminal", lambda: True)
    for name, args in commands(ws, run_id, tmp_path).items():
        code, err = run_cli(["--store", str(ws), *args])
        lines = err.strip().splitlines()
        assert len(lines) == 1, (name, err)
        line = lines[0]
        assert code == 1 and "internal error" not in line, (name, line)
        assert line.startswith(f"error: {db} cannot be read, it is damaged"), (name, line)
        assert "restore it from a backup, or move it aside" in line, (name, line)
        assert "--store PATH" in line
        assert db.read_bytes() == before, name
    # Nothing was made beside it but SQLite's own files and the setup lock.
    made = sorted(p.name for p in ws.iterdir())
    extra = set(made) - set(names) - {"diptych.db-wal", "diptych.db-shm", ".setup.lock"}
    assert not extra, made


def test_damage_past_the_first_pages_is_named_by_the_query_that_finds_it(
    tmp_path: Path, scripted: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    lists = {"masculine": ["carpenter", "farmer"], "feminine": ["editor", "nurse"]}
    with open_store(ws) as store:
        run = run_probe(
            store, "pst", [ScriptedImageGenerator(ScriptedParams())], probe_params=lists
        )
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        leaves = [
            row[0]
            for row in store.db.execute(
                "SELECT pageno FROM dbstat WHERE name = 'results' AND pagetype = 'leaf' "
                "ORDER BY pageno"
            )
        ]
        page = store.db.execute("PRAGMA page_size").fetchone()[0]
    assert len(leaves) > 1
    db = ws / "diptych.db"
    data = bytearray(db.read_bytes())
    start = (leaves[-1] - 1) * page
    data[start : start + page] = b"\xa5" * page
    db.write_bytes(bytes(data))
    with Workspace.open(ws, create=False):
        pass  # the first pages read: the damage is found later, by the query reaching it
    before = db.read_bytes()
    monkeypatch.setattr(tui_cmd, "has_terminal", lambda: True)
    tmp = tmp_path / "out"
    tmp.mkdir()
    # `runs` (and the TUI's first screen, which is its list) shows a complete run from the
    # counts it kept when it completed: it never reads the results' pages, so it has nothing
    # to find.
    reading = ["show", "report", "export", "annotate --template"]
    every = commands(ws, run.id, tmp)
    for name in reading:
        code, err = run_cli(["--store", str(ws), *every[name]])
        (line,) = err.strip().splitlines()
        assert code == 1 and line.startswith(f"error: {db} cannot be read, it is damaged"), (
            name,
            line,
        )
        assert db.read_bytes() == before, name


def test_a_database_that_is_a_directory(
    tmp_path: Path, scripted: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    (ws / "diptych.db").mkdir(parents=True)
    (ws / "diptych.db" / "keep").write_text("someone's file")
    monkeypatch.setattr(tui_cmd, "has_terminal", lambda: True)
    for name, args in commands(ws, "pst", tmp_path).items():
        code, err = run_cli(["--store", str(ws), *args])
        (line,) = err.strip().splitlines()
        assert code == 1, (name, line)
        assert line.startswith(f"error: {ws / 'diptych.db'} is a directory"), (name, line)
        assert "move it aside, or choose another workspace with --store PATH" in line
    assert (ws / "diptych.db" / "keep").read_text() == "someone's file"
    assert sorted(p.name for p in (ws / "diptych.db").iterdir()) == ["keep"]


def test_a_blob_gone_is_named_with_what_to_do(workspace: tuple[Path, str], tmp_path: Path) -> None:
    ws, run_id = workspace
    blobs = sorted(p for p in (ws / "blobs").rglob("*") if p.is_file())
    assert blobs
    blobs[0].unlink()
    for args in (
        ["show", run_id],
        ["report", run_id, "--out", str(tmp_path / "report")],
        ["annotate", run_id, "--template", str(tmp_path / "t.csv"), "--images", str(tmp_path)],
    ):
        code, err = run_cli(["--store", str(ws), *args])
        assert "internal error" not in err and "Traceback" not in err, (args, err)
        if code:
            (line,) = err.strip().splitlines()
            assert "is missing from" in line and f"resume {run_id}" in line or "resume" in line
    # A resume asks for the image again.
    code, err = run_cli(["--store", str(ws), "resume", run_id, "--quiet"])
    assert code == 0, err
    assert blobs[0].is_file()
    assert os.path.getsize(blobs[0]) > 0
