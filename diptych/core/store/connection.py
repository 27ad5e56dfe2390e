"""Opening a workspace: the directory, the SQLite connection (WAL) and its transactions.

Layout of a workspace directory (``./.diptych`` unless ``--store``/``DIPTYCH_STORE`` says
otherwise)::

    diptych.db          SQLite in WAL mode; schema from diptych.core.migrations
    blobs/ab/cdef...    sha256-addressed images and long texts

A workspace is opened read-only when asked to or when the process may not write it (an
archived audit): every read works, every write is refused with one line.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing as _closing
from contextlib import contextmanager
from pathlib import Path
from typing import Self
from urllib.parse import quote

from diptych.core.errors import (
    ReadOnlyWorkspaceError,
    StoreDamagedError,
    StoreError,
    StoreFullError,
    WorkspaceNotFoundError,
)
from diptych.core.migrations import MIGRATIONS_TABLE, SCHEMA_VERSION, applied, migrate

DEFAULT_STORE = ".diptych"
DB_NAME = "diptych.db"


def default_store_path() -> Path:
    return Path(os.environ.get("DIPTYCH_STORE") or DEFAULT_STORE)


def writable(workspace: Path) -> bool:
    """Whether this process may write the workspace: its directory (SQLite creates the -wal and
    -shm files there), its database file and its blobs directory (where the images a run pays
    for go: one it cannot write would have them bought and then lost)."""
    db = workspace / DB_NAME
    blobs = workspace / "blobs"
    return (
        os.access(workspace, os.W_OK | os.X_OK)
        and (not db.exists() or os.access(db, os.R_OK | os.W_OK))
        and (not blobs.exists() or os.access(blobs, os.W_OK | os.X_OK))
    )


@contextmanager
def _setup_lock(workspace: Path) -> Iterator[None]:
    with open(workspace / ".setup.lock", "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _uri(db: Path, **query: str) -> str:
    args = "&".join(f"{k}={v}" for k, v in query.items())
    return f"file:{quote(str(db.absolute()))}?{args}"


#: Reads that came back short or failed: a file cut off, or a disk that no longer reads it.
_UNREADABLE = ("SQLITE_IOERR_SHORT_READ", "SQLITE_IOERR_READ")


def damaged(error: BaseException) -> bool:
    """Whether ``error`` says the database file is not (or no longer) a whole database:
    bytes that are not SQLite's, a truncated file, pages that do not read back. A locked
    database or a full disk is not damage."""
    if not isinstance(error, sqlite3.DatabaseError):
        return False
    name = getattr(error, "sqlite_errorname", "") or ""
    return name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or name in _UNREADABLE


def damaged_store_error(db_path: Path, error: sqlite3.DatabaseError) -> StoreDamagedError:
    """The one line that names a damaged database file and what to do; nothing is deleted or
    written over: the file may be the only copy of paid-for results."""
    return StoreDamagedError(
        f"{db_path} cannot be read, it is damaged ({' '.join(str(error).split())}); it was left "
        "as it is: restore it from a backup, or move it aside (with any -wal and -shm file "
        "beside it) to start an empty workspace there, or choose another with --store PATH"
    )


def _read_first_pages(db: sqlite3.Connection) -> None:
    """Read the first row of every table, so that a damaged file is refused before a command
    writes to it, for the price of a few pages (a check of every page would cost a read of
    the whole file on each open). Damage deeper in a table is found by the first query that
    reaches it."""
    tables = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    for (name,) in tables:
        quoted = '"' + str(name).replace('"', '""') + '"'
        # The table's own b-tree, then whichever index SQLite prefers for a bare row.
        db.execute(f"SELECT * FROM {quoted} NOT INDEXED LIMIT 1").fetchall()
        db.execute(f"SELECT 1 FROM {quoted} LIMIT 1").fetchall()


def _foreign_tables(db: sqlite3.Connection) -> list[str]:
    """The tables of a database that is not a diptych workspace (none when it is one or empty)."""
    names = [
        row[0]
        for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    ]
    return [] if MIGRATIONS_TABLE in names else sorted(names)


class Connection:
    """The open workspace every part of :class:`~diptych.core.store.Store` works through.

    ``create=False`` refuses a directory that holds no workspace instead of starting an empty
    one; ``read_only`` is True (never write), False (open for writing or fail) or None (read-only
    exactly when this process may not write the workspace).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = True,
        read_only: bool | None = None,
    ) -> None:
        self.path = Path(path)
        db_path = self.path / DB_NAME
        if db_path.exists() and not db_path.is_file():
            raise StoreDamagedError(
                f"{db_path} is a directory (or another non-file), not a diptych database; it "
                "was left as it is: move it aside, or choose another workspace with --store PATH"
            )
        if not db_path.is_file() and (not create or read_only):
            raise WorkspaceNotFoundError(
                f"no diptych workspace at {self.path} (run 'diptych --store {self.path} run "
                "PROBE -m MODEL' to create one, or choose another with --store PATH)"
            )
        if read_only is None:
            read_only = db_path.is_file() and not writable(self.path)
        self.read_only = read_only
        try:
            if db_path.is_file() and not read_only:
                # Before anything is created beside it: another program's file stays untouched.
                with _closing(sqlite3.connect(_uri(db_path, mode="ro"), uri=True)) as probe:
                    self._refuse_foreign(probe)
                    _read_first_pages(probe)
            self.db = self._open_read_only() if read_only else self._open_writable()
        except sqlite3.DatabaseError as error:
            if getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
                # Not a foreign file: a new workspace the disk had no room to set up.
                raise StoreFullError.of_disk(self.path, str(error)) from error
            if damaged(error):
                raise damaged_store_error(db_path, error) from error
            raise StoreError(
                f"{db_path} is not a diptych workspace ({error}); choose another with --store PATH"
            ) from error

    def _open_writable(self) -> sqlite3.Connection:
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            (self.path / "blobs").mkdir(exist_ok=True)
        except OSError as error:
            raise StoreError(
                f"cannot create the workspace at {self.path}: {error.strerror}; "
                "choose another with --store PATH"
            ) from error
        blobs = self.path / "blobs"
        if not os.access(blobs, os.W_OK | os.X_OK):
            # Checked before anything is bought: a result's images are stored there.
            raise ReadOnlyWorkspaceError(
                f"{blobs} is not writable, so nothing bought could be stored: make it writable "
                "(chmod u+w) or choose another workspace with --store PATH"
            )
        # Setting up a workspace (WAL mode, migrations) is serialised between processes and
        # threads by a lock file: two first opens at once would otherwise race to create
        # the same tables, and SQLite does not wait on a journal-mode change. The database
        # file is made under the lock too, so an empty one found under it was left by
        # something else (a copy that failed, a full disk): it is refused, never set up anew
        # as if the runs it should hold had never been.
        with _setup_lock(self.path):
            db_path = self.path / DB_NAME
            if db_path.is_file() and db_path.stat().st_size == 0:
                raise StoreError(
                    f"{db_path} is empty (0 bytes), not a diptych workspace: restore it from a "
                    "backup, or delete it to start an empty workspace there"
                )
            return self._set_up(sqlite3.connect(db_path, isolation_level=None))

    def _set_up(self, db: sqlite3.Connection) -> sqlite3.Connection:
        # Autocommit mode: every transaction below is explicit, so none is left open by
        # accident and a killed process loses at most the transaction it was in.
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA busy_timeout=10000")
        try:
            self._refuse_foreign(db)
            db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode survives a killed process (not a power cut) at a fraction
            # of FULL's cost; a result lost to a power cut is simply asked for again.
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            migrate(db)
        except BaseException:
            db.close()
            raise
        return db

    def _open_read_only(self) -> sqlite3.Connection:
        db_path = self.path / DB_NAME
        wal = db_path.with_name(DB_NAME + "-wal")
        if not wal.exists():
            # SQLite removes the write-ahead log when the last connection closes, having
            # copied it into the database: without one, no process has the workspace open and
            # the database file is the whole of it. A reader opening it in WAL mode would make
            # a -wal and a -shm beside it that it cannot remove (only a writer checkpoints), so
            # it is read as immutable: nothing is written to the workspace's directory.
            return self._checked(
                sqlite3.connect(_uri(db_path, immutable="1"), uri=True, isolation_level=None)
            )
        try:
            # mode=ro still shares the WAL index (-shm) with writers, so it sees their commits;
            # SQLite needs the -shm file, or a directory it may create it in.
            db = sqlite3.connect(_uri(db_path, mode="ro"), uri=True, isolation_level=None)
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError:
            if wal.exists() and wal.stat().st_size > 0:
                raise ReadOnlyWorkspaceError(
                    f"workspace {self.path} is read-only and its last writes are still in "
                    f"{wal.name}: open it once where it is writable, or copy it somewhere "
                    "writable and give that with --store PATH"
                ) from None
            # No -shm can be made in a read-only directory; with no pending WAL the database
            # file alone is the whole workspace, and immutable=1 reads it without locks.
            db = sqlite3.connect(_uri(db_path, immutable="1"), uri=True, isolation_level=None)
        return self._checked(db)

    def _checked(self, db: sqlite3.Connection) -> sqlite3.Connection:
        """A read-only connection, once its schema is known to be this version's."""
        db.row_factory = sqlite3.Row
        try:
            self._refuse_foreign(db)
            done = applied(db, create=False)
        except BaseException:
            db.close()
            raise
        newer = [n for n in done if n > SCHEMA_VERSION]
        if newer:
            db.close()
            raise StoreError(
                f"this workspace was written by a newer diptych (schema {max(newer)}, this "
                f"version reads up to {SCHEMA_VERSION}): upgrade with 'pip install -U diptych'"
            )
        if SCHEMA_VERSION not in done:
            db.close()
            raise ReadOnlyWorkspaceError(
                f"workspace {self.path} is read-only and was written by an older diptych "
                f"(schema {max(done, default=0)}): open it once where it is writable to upgrade it"
            )
        return db

    def _refuse_foreign(self, db: sqlite3.Connection) -> None:
        foreign = _foreign_tables(db)
        if foreign:
            shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
            raise StoreError(
                f"{self.path / DB_NAME} is another program's SQLite database (tables {shown}), "
                "not a diptych workspace; it was left untouched: choose another with --store PATH"
            )

    def require_writable(self, action: str) -> None:
        """Refuse ``action`` (e.g. "run a probe") on a workspace opened read-only."""
        if self.read_only:
            raise ReadOnlyWorkspaceError(
                f"workspace {self.path} is read-only: cannot {action}; copy it somewhere "
                "writable and give that with --store PATH"
            )

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; a full disk (or quota) raises :class:`StoreFullError`."""
        self.require_writable("store anything")
        try:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                # SQLite rolls some failures (a full disk among them) back by itself.
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")
        except sqlite3.OperationalError as error:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            if getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
                raise StoreFullError.of_disk(self.path, str(error)) from error
            raise
