"""Another process of this host to name as the one running an audit: alive while the block
runs, and gone (killed outright and reaped) once ``kill()`` is called or the block ends."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from diptych.core.audit.record import this_process
from diptych.core.store import Store
from diptych.core.store.leases import host_name, process_start


@dataclass
class OtherProcess:
    proc: subprocess.Popen[bytes]

    @property
    def named(self) -> str:
        """The process as an audit's record names it (:func:`this_process`'s shape)."""
        pid = self.proc.pid
        return json.dumps(
            {"host": host_name(), "pid": pid, "start": process_start(pid)}, sort_keys=True
        )

    def kill(self) -> None:
        """SIGKILL, and reaped: a zombie still answers ``kill(pid, 0)``."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=60)


@contextmanager
def other_process() -> Iterator[OtherProcess]:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    other = OtherProcess(proc)
    try:
        yield other
    finally:
        other.kill()


def name_process(store: Store, audit_id: str, named: str) -> None:
    """Record ``named`` as the process running the audit (the audit's record otherwise names
    this test's own process, alive throughout)."""
    assert named != this_process()
    with store.transaction() as db:
        db.execute("UPDATE audits SET process = ? WHERE id = ?", (named, audit_id))
