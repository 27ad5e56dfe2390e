"""Leases and claims in the store: one holder per run, one sender per paid request."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from support.store_runs import record_run

from diptych.core.engine import RunLeasedError, RunOptions
from diptych.core.engine.execution import _fault_reason
from diptych.core.engine.lease import acquire
from diptych.core.engine.reporting import NullReporter
from diptych.core.store import LEASE_TIMEOUT_S, Store, open_store


def _run(store: Store, run_id: str = "r1") -> str:
    record_run(store, run_id)
    return run_id


def test_second_lease_is_refused_naming_the_holder(tmp_path: Path) -> None:
    with open_store(tmp_path) as store:
        run = _run(store)
        mine, holder = store.acquire_lease(run)
        assert mine is not None and holder is None
        again, held = store.acquire_lease(run)
        assert again is None and held == mine
        with pytest.raises(RunLeasedError, match=r"is being run by pid \d+ on .* since "):
            asyncio.run(acquire(store, run, wait=False, reporter=NullReporter()))
        store.release_lease(mine)
        assert store.lease(run) is None


def test_find_or_create_of_one_run_by_many_threads_finds_one(tmp_path: Path) -> None:
    open_store(tmp_path).close()
    ids: list[str] = []

    def create() -> None:
        with open_store(tmp_path) as store:
            ids.append(record_run(store, "same", find=True).id)

    threads = [threading.Thread(target=create) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ids == ["same"] * 8
    with open_store(tmp_path) as store:
        assert [r.id for r in store.list_runs()] == ["same"]


def test_threads_claiming_one_paid_request_let_exactly_one_send_it(tmp_path: Path) -> None:
    with open_store(tmp_path) as store:
        run = _run(store)
        lease, _ = store.acquire_lease(run)
        other = _run(store, "r2")
        lease2, _ = store.acquire_lease(other)
    assert lease is not None and lease2 is not None
    outcomes: list[str] = []
    barrier = threading.Barrier(8)

    def claim(i: int) -> None:
        with open_store(tmp_path) as store:
            barrier.wait()
            outcomes.append(store.claim("k1", lease if i % 2 else lease2))

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Whichever owner claims first sends it; every claim of the other owner finds it held.
    assert outcomes.count("held") == 4 and outcomes.count("claimed") == 4
    with open_store(tmp_path) as store:
        assert store.claims() == ["k1"]


def test_dead_owner_is_taken_over_and_its_claims_released(tmp_path: Path) -> None:
    with open_store(tmp_path) as store:
        run = _run(store)
    # A process that took the lease and a claim, then died without giving them back.
    script = (
        "import sys; from diptych.core.store import open_store\n"
        f"s = open_store({str(tmp_path)!r}); lease, _ = s.acquire_lease('r1')\n"
        "assert lease is not None and s.claim('k1', lease) == 'claimed'\n"
        "import os; os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)
    with open_store(tmp_path) as store:
        dead = store.lease(run)
        assert dead is not None and not dead.alive()
        assert store.claims(dead.owner) == ["k1"]
        mine, holder = store.acquire_lease(run)
        assert holder is None and mine is not None and mine.owner != dead.owner
        assert store.claims() == []
        assert store.claim("k1", mine) == "claimed"


def test_a_lease_with_an_old_heartbeat_is_dead(tmp_path: Path) -> None:
    with open_store(tmp_path) as store:
        lease, _ = store.acquire_lease(_run(store))
    assert lease is not None and lease.alive()
    old = replace(lease, heartbeat_at=lease.heartbeat_at - LEASE_TIMEOUT_S - 1)
    assert not old.alive()


def test_a_failure_reason_is_never_empty() -> None:
    assert _fault_reason(TimeoutError(), 5.0) == "timed out after 5 s"
    assert _fault_reason(TimeoutError(), None) == "timed out"
    with pytest.raises(ValueError, match="timeout must be more than 0"):
        RunOptions(retry=replace(RunOptions().retry, timeout=0))


def test_a_lease_that_cannot_be_given_back_keeps_the_error_that_stopped_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On a full disk giving the lease back fails too; the run's own error says what was lost
    # and how much room to free, and must be the one the user reads.
    from diptych.core.engine.lease import holding
    from diptych.core.errors import StoreFullError

    def full(lease: object) -> None:
        raise StoreFullError("the disk holding the workspace is full")

    async def stopped(store: Store, run: str) -> None:
        async with holding(store, run, wait=False, reporter=NullReporter()):
            raise StoreFullError("still full after 300 s: 2 paid answers received are lost")

    with open_store(tmp_path) as store:
        run = _run(store)
        monkeypatch.setattr(store, "release_lease", full)
        with pytest.raises(StoreFullError, match="2 paid answers received are lost"):
            asyncio.run(stopped(store, run))
