"""The order a run's trials are bought in, where it is not the plan's.

A sequential audit (``diptych audit run --until-decided``) buys a design in batches and decides
after each, so each batch must be a random part of the whole design: a prefix of the plan's
order would hold the first identities only. The order here is a random permutation of the
run's distinct requests, fixed by a seed: each request's rank is the sha256 of the seed and its
key, so it needs no stored permutation, is the same for every execution with that seed (a
resume, a later batch, a kill and a rerun), and does not change when other requests join or
leave the plan. A run an audit bought in this order is bought on in it by whatever continues
it, with no order asked for (:func:`diptych.core.audit.stopped.purchase_seed`): stopped part
way, it still holds a random part of its design.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import replace

from diptych.core.engine.planning import RunPlan
from diptych.core.store import Store


def purchase_rank(seed: int, key: str) -> str:
    """Where the request ``key`` stands in the order ``seed`` fixes (smaller: bought sooner)."""
    return hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()


def purchase_order(keys: set[str] | list[str], seed: int) -> list[str]:
    """The distinct ``keys`` in the order ``seed`` fixes."""
    return sorted(set(keys), key=lambda k: purchase_rank(seed, k))


def batch_size(total: int, share: float | None) -> int:
    """How many of ``total`` requests the first ``share`` of the order holds (all for None):
    rounded up, so that shares k/K of K equal batches end exactly at the design's end."""
    if share is None:
        return total
    return min(total, math.ceil(share * total - 1e-9))


def in_purchase_order(store: Store, plan: RunPlan, seed: int, share: float | None) -> RunPlan:
    """``plan`` with its pending trials in the order ``seed`` fixes over the run's distinct
    requests, keeping only those within the first ``share`` of it (None: all)."""
    keys = purchase_order({t.key for t in store.trials(plan.run.id)}, seed)
    allowed = set(keys[: batch_size(len(keys), share)])
    pending = {k: plan.pending[k] for k in keys if k in plan.pending and k in allowed}
    return replace(plan, pending=pending)
