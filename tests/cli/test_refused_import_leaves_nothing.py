"""A bundle refused on import leaves nothing where nothing was: a new workspace path made for it
is taken back whole (with the parents made for it), an existing empty directory is left
empty, and an existing workspace — empty or with runs — stays byte for byte as it was. The
hostile cases: a parent directory this user may not write, a path that is a file, and what an
import killed midway leaves behind, which the next import is not blocked by."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from diptych.core.engine import run_probe
from diptych.core.store import open_store
from diptych.testing import ScriptedImageGenerator, ScriptedParams
from tests.support.bundles import run_cli

SMALL = {"masculine": ["carpenter"], "feminine": ["editor"], "aspects": ["occupation"],
         "setting": "single", "samples_single": 1}  # fmt: skip
SCRIPT = Path(__file__).with_name("scripted_cli.py")


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A sound bundle of a small run with images, and the same with one byte of a blob
    altered: its archive and manifest are whole, so only its SHA-256, checked as it is
    unpacked into the workspace, refuses it."""
    where = tmp_path_factory.mktemp("bundles")
    with open_store(where / "source") as store:
        run = run_probe(store, "pst", [ScriptedImageGenerator(ScriptedParams())],
                        probe_params=SMALL)  # fmt: skip
    good = where / "good.zip"
    code, _, err = run_cli(["--store", str(where / "source"), "export", run.id,
                            "--bundle", str(good)])  # fmt: skip
    assert code == 0, err
    with zipfile.ZipFile(good) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    blob = next(n for n in members if n.startswith("blobs/"))
    members[blob] = members[blob][:-1] + b"!"
    bad = where / "bad.zip"
    with zipfile.ZipFile(bad, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return {"good": good, "bad": bad, "run": Path(run.id)}


def refused(store: Path, bundle: Path) -> str:
    code, _, err = run_cli(["--store", str(store), "import", str(bundle)])
    assert code != 0
    (line,) = err.strip().splitlines()
    return line


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` with its bytes (None for a directory)."""
    return {
        str(p.relative_to(root)): None if p.is_dir() else p.read_bytes() for p in root.rglob("*")
    }


def test_a_new_path_is_taken_back_with_the_parents_made_for_it(
    bundles: dict[str, Path], tmp_path: Path
) -> None:
    store = tmp_path / "new" / "deeper" / "ws"
    line = refused(store, bundles["bad"])
    assert "has a SHA-256 other than its manifest states" in line
    assert list(tmp_path.iterdir()) == []


def test_an_existing_empty_directory_is_left_empty(
    bundles: dict[str, Path], tmp_path: Path
) -> None:
    store = tmp_path / "ws"
    store.mkdir()
    refused(store, bundles["bad"])
    assert store.is_dir() and list(store.iterdir()) == []


@pytest.mark.parametrize("with_runs", [False, True], ids=["empty workspace", "with a run"])
def test_an_existing_workspace_stays_byte_for_byte(
    bundles: dict[str, Path], tmp_path: Path, with_runs: bool
) -> None:
    store = tmp_path / "ws"
    with open_store(store) as s:
        if with_runs:
            # Another design than the bundle's run: a run of its own.
            run_probe(s, "pst", [ScriptedImageGenerator(ScriptedParams())],
                      probe_params={**SMALL, "masculine": ["sheriff"]})  # fmt: skip
    before = snapshot(store)
    assert before["diptych.db"]
    refused(store, bundles["bad"])
    assert snapshot(store) == before
    # And the sound bundle still imports into it afterwards.
    code, out, err = run_cli(["--store", str(store), "import", str(bundles["good"])])
    assert code == 0 and f"runs: {bundles['run']}" in out, err


def test_a_path_that_is_a_file_is_refused_and_left_as_it_was(
    bundles: dict[str, Path], tmp_path: Path
) -> None:
    store = tmp_path / "ws"
    store.write_text("not a workspace\n")
    line = refused(store, bundles["good"])
    assert f"cannot create the workspace at {store}" in line and "--store PATH" in line
    assert store.read_text() == "not a workspace\n" and sorted(tmp_path.iterdir()) == [store]


def test_what_a_killed_import_leaves_does_not_block_the_next(
    bundles: dict[str, Path], tmp_path: Path
) -> None:
    """A process killed while importing (SIGKILL: no clean-up runs) leaves the workspace it
    opened, its staging directory of unpacked members and perhaps some blobs; the records are
    one transaction, so none of them. The next import adds the bundle whole beside that."""
    store = tmp_path / "ws"
    with open_store(store):
        pass
    staging = store / ".bundle-import-killed"
    shutil.copytree(bundles["good"].parent / "source" / "blobs", staging / "blobs")
    (staging / "tables").mkdir()
    (staging / "tables" / "runs.parquet").write_bytes(b"PAR1 half written")
    code, out, err = run_cli(["--store", str(store), "import", str(bundles["good"])])
    assert code == 0, err
    assert ": 1 run, 2 trials, 2 results, 2 subjects; 2 blobs added" in out
    with open_store(store) as s:
        assert [r.id for r in s.list_runs()] == [str(bundles["run"])]


def test_the_next_import_removes_a_dead_imports_staging_and_leaves_a_live_ones(
    bundles: dict[str, Path], tmp_path: Path
) -> None:
    """A staging folder named for a process that has exited goes; one named for a process
    still running (this one: an import at the same time) stays, as does one not named so."""
    from diptych.core.evidence.bundle.load import staging_prefix

    store = tmp_path / "ws"
    with open_store(store):
        pass
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    dead = store / (staging_prefix(int(gone.stdout)) + "x1")
    live = store / (staging_prefix(os.getpid()) + "x2")
    other = store / ".bundle-import-killed"
    for folder in (dead, live, other):
        (folder / "tables").mkdir(parents=True)
    code, _, err = run_cli(["--store", str(store), "import", str(bundles["good"])])
    assert code == 0, err
    assert not dead.exists()
    assert live.is_dir() and other.is_dir()
    assert sorted(p.name for p in store.glob(".bundle-import-*")) == sorted([live.name, other.name])


def _as_nobody() -> list[str] | None:
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        return None
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.mark.skipif(_as_nobody() is None, reason="needs root and setpriv to act as another user")
def test_a_parent_this_user_may_not_write_is_refused_in_one_line(bundles: dict[str, Path]) -> None:
    # Outside pytest's own (private) temporary directory, which another user cannot reach.
    with tempfile.TemporaryDirectory() as tmp:
        parent = Path(tmp) / "locked"
        parent.mkdir()
        bundle = Path(tmp) / "b.zip"
        shutil.copy(bundles["good"], bundle)
        for path in (Path(tmp), parent, bundle):
            path.chmod(0o555 if path.is_dir() else 0o444)
        nobody = _as_nobody()
        assert nobody is not None
        store = parent / "ws"
        done = subprocess.run(
            [*nobody, sys.executable, str(SCRIPT), "--store", str(store), "import", str(bundle)],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        if "Permission denied" in done.stderr and "python" in done.stderr.lower():
            pytest.skip("the interpreter is not readable by another user here")
        (line,) = done.stderr.strip().splitlines()
        assert done.returncode != 0
        assert f"cannot create the workspace at {store}: Permission denied" in line
        assert list(parent.iterdir()) == []
