"""Who is executing a run (its lease) and which paid requests are in flight (claims).

A run executes in one process at a time. The process takes the run's lease in one write
transaction (``BEGIN IMMEDIATE``) before it plans, keeps the lease's heartbeat fresh while it
runs and gives the lease back when it stops. A lease whose owner died — its heartbeat older than
:data:`LEASE_TIMEOUT_S`, or its process gone from this host — is taken over, and the claims of
the dead owner are released in the same transaction.

A claim is the exactly-once gate of a paid request: it is inserted, keyed by the trial's key,
before the request is sent, and deleted in the transaction that stores the result. While it is
held by a live lease no other process, thread or worker sends that request.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from diptych.core.store.connection import Connection
from diptych.core.store.records import record_from_row

#: Seconds between two heartbeats of a running process.
HEARTBEAT_S = 2.0
#: A lease whose heartbeat is older than this many seconds belongs to a dead (or hung) owner.
LEASE_TIMEOUT_S = 30.0

ClaimOutcome = Literal["claimed", "held", "stored"]


@cache
def host_name() -> str:
    return socket.gethostname()


def process_start(pid: int) -> str:
    """When process ``pid`` started, in clock ticks since boot (Linux), so that a pid reused by
    a new process is not mistaken for the owner; empty where the system does not say."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            # The command name (field 2) may hold spaces: fields are counted after its ')'.
            return handle.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def process_alive(pid: int, started: str) -> bool:
    """Whether process ``pid`` of this host still runs (and is the one that started then)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, under another user
    return not started or process_start(pid) in ("", started)


@dataclass(frozen=True)
class Lease:
    """One process's hold on a run."""

    run_id: str
    owner: str
    host: str
    pid: int
    process_start: str
    acquired_at: float
    heartbeat_at: float

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Lease:
        return record_from_row(cls, row)

    def alive(self, now: float | None = None) -> bool:
        """Whether the owner still runs: a fresh heartbeat and, on this host, its process."""
        now = time.time() if now is None else now
        if now - self.heartbeat_at > LEASE_TIMEOUT_S:
            return False
        if self.host == host_name():
            return process_alive(self.pid, self.process_start)
        return True

    def describe(self) -> str:
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.acquired_at))
        return f"pid {self.pid} on {self.host} since {since}"


class Leases(Connection):
    # --- leases -----------------------------------------------------------------------------

    def lease(self, run_id: str) -> Lease | None:
        """The run's lease as stored, live or not (None: nobody holds it)."""
        row = self.db.execute("SELECT * FROM leases WHERE run_id = ?", (run_id,)).fetchone()
        return Lease.from_row(row) if row else None

    def live_lease(self, run_id: str) -> Lease | None:
        lease = self.lease(run_id)
        return lease if lease is not None and lease.alive() else None

    def acquire_lease(self, run_id: str) -> tuple[Lease | None, Lease | None]:
        """Take the run's lease for this process: ``(mine, None)``, or ``(None, holder)`` when
        a live owner holds it. A dead owner's lease is taken over and its claims released."""
        pid = os.getpid()
        now = time.time()
        mine = Lease(
            run_id=run_id,
            owner=f"{host_name()}:{pid}:{uuid.uuid4().hex[:12]}",
            host=host_name(),
            pid=pid,
            process_start=process_start(pid),
            acquired_at=now,
            heartbeat_at=now,
        )
        with self.transaction() as db:
            row = db.execute("SELECT * FROM leases WHERE run_id = ?", (run_id,)).fetchone()
            if row is not None:
                held = Lease.from_row(row)
                if held.alive(now):
                    return None, held
                db.execute("DELETE FROM claims WHERE owner = ?", (held.owner,))
                db.execute("DELETE FROM leases WHERE run_id = ?", (run_id,))
            db.execute(
                "INSERT INTO leases (run_id, owner, host, pid, process_start, acquired_at,"
                " heartbeat_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    mine.run_id,
                    mine.owner,
                    mine.host,
                    mine.pid,
                    mine.process_start,
                    mine.acquired_at,
                    mine.heartbeat_at,
                ),
            )
        return mine, None

    def release_lease(self, lease: Lease) -> None:
        """Give the lease back, with every claim still held under it."""
        with self.transaction() as db:
            db.execute("DELETE FROM claims WHERE owner = ?", (lease.owner,))
            db.execute("DELETE FROM leases WHERE owner = ?", (lease.owner,))

    # --- claims -----------------------------------------------------------------------------

    def claim(self, key: str, lease: Lease) -> ClaimOutcome:
        """Claim the paid request of trial ``key`` for ``lease``'s owner before sending it:
        ``claimed`` (send it), ``held`` (a live owner is sending it) or ``stored`` (its result
        is stored already)."""
        with self.transaction() as db:
            done = db.execute(
                "SELECT 1 FROM results WHERE key = ? AND status != 'failed'", (key,)
            ).fetchone()
            if done:
                return "stored"
            row = db.execute("SELECT owner FROM claims WHERE key = ?", (key,)).fetchone()
            if row is not None and row["owner"] != lease.owner:
                holder = db.execute(
                    "SELECT * FROM leases WHERE owner = ?", (row["owner"],)
                ).fetchone()
                if holder is not None and Lease.from_row(holder).alive():
                    return "held"
            db.execute(
                "INSERT OR REPLACE INTO claims (key, run_id, owner, claimed_at)"
                " VALUES (?, ?, ?, ?)",
                (key, lease.run_id, lease.owner, time.time()),
            )
        return "claimed"

    def release_claims(self, keys: list[str], lease: Lease) -> None:
        """Give back claims of requests that were not sent after all."""
        with self.transaction() as db:
            db.executemany(
                "DELETE FROM claims WHERE key = ? AND owner = ?",
                [(key, lease.owner) for key in keys],
            )

    def claims(self, owner: str | None = None) -> list[str]:
        """The keys claimed (by ``owner``, or by anyone)."""
        if owner is None:
            rows = self.db.execute("SELECT key FROM claims ORDER BY key")
        else:
            rows = self.db.execute("SELECT key FROM claims WHERE owner = ? ORDER BY key", (owner,))
        return [r["key"] for r in rows]


class Heartbeat:
    """Keeps a lease's heartbeat fresh from a thread of its own, on a connection of its own, so
    that neither a long plan nor a blocking call on the event loop makes a live run look dead."""

    def __init__(self, db_path: Path, lease: Lease, every: float = HEARTBEAT_S) -> None:
        self._db_path = db_path
        self._lease = lease
        self._every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._loop, name=f"lease-{lease.run_id}", daemon=True
        )

    def start(self) -> Heartbeat:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        db = sqlite3.connect(self._db_path, timeout=10, isolation_level=None)
        try:
            while not self._stop.wait(self._every):
                try:
                    db.execute(
                        "UPDATE leases SET heartbeat_at = ? WHERE owner = ?",
                        (time.time(), self._lease.owner),
                    )
                except sqlite3.OperationalError:
                    # A busy database for longer than the timeout: the next beat tries again,
                    # well within LEASE_TIMEOUT_S.
                    continue
        finally:
            db.close()
