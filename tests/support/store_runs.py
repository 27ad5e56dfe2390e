"""A run recorded in a store with nothing but its id: what store and lease tests start from."""

from __future__ import annotations

from diptych.core.store import RunRecord, Store


def record_run(
    store: Store, run_id: str = "r1", probe: str = "p", *, find: bool = False
) -> RunRecord:
    """``store.create_run`` of ``run_id`` by ``probe``, with no parameters and no models
    (``find=True``: the run of that design if the store holds one)."""
    return store.create_run(
        run_id,
        probe=probe,
        probe_version="1",
        params={},
        models=[],
        fingerprint="f",
        diptych_version="0",
        find=find,
    )
