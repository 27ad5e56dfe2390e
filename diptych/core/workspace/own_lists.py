"""The workspace's own lists beside the papers': identity pairs and prompt interventions an
auditor accepted (from the agent's proposals or by hand).

They live in the workspace's preferences table, one JSON list per kind: small, read whole, and
written rarely (an auditor's accept). An accepted pair runs through the PST probes with
``new_identities`` (:func:`identity_params`); an accepted intervention is a paired template the
pst-text probe takes as ``paired_template``.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from diptych.core.store.preferences import Preferences

IDENTITIES_KEY = "workspace_identities"
INTERVENTIONS_KEY = "workspace_interventions"
REJECTIONS_KEY = "workspace_rejections"


@dataclass(frozen=True)
class IdentityPair:
    """A masculine- and a feminine-stereotyped identity that an auditor accepted."""

    masculine: str
    feminine: str
    #: Where it came from, e.g. ``agent session id-1a2b, r0p2`` or ``by hand``.
    source: str = ""
    accepted_at: float = 0.0


@dataclass(frozen=True)
class Intervention:
    """A prompt intervention an auditor accepted: the paired template it makes and how."""

    template: str
    kind: str = ""
    text: str = ""
    source: str = ""
    accepted_at: float = 0.0
    #: The scores it was accepted on (difference, interval, p-value, side effects).
    score: dict[str, Any] = field(default_factory=dict)


def _clean(name: str, what: str) -> str:
    cleaned = " ".join(name.split())
    if not cleaned:
        raise ValueError(f"an accepted {what} needs a non-empty name")
    return cleaned


def identity_pairs(store: Preferences) -> list[IdentityPair]:
    return [IdentityPair(**p) for p in store.preference(IDENTITIES_KEY) or []]


def accept_identity_pair(
    store: Preferences, masculine: str, feminine: str, *, source: str = ""
) -> bool:
    """Add the pair; False when it is listed already (the same two identities)."""
    pair = IdentityPair(
        _clean(masculine, "identity"), _clean(feminine, "identity"), source, time.time()
    )
    if pair.masculine.lower() == pair.feminine.lower():
        raise ValueError(f"a pair needs two different identities, got {masculine!r} twice")
    pairs = identity_pairs(store)
    if any(
        (p.masculine.lower(), p.feminine.lower()) == (pair.masculine.lower(), pair.feminine.lower())
        for p in pairs
    ):
        return False
    store.set_preference(IDENTITIES_KEY, [asdict(p) for p in [*pairs, pair]])
    return True


def identity_params(pairs: list[IdentityPair]) -> dict[str, Any]:
    """The parameters that run the pairs through ``pst-text`` or ``pst`` (each identity once,
    in the order accepted); empty when there is no pair."""
    if not pairs:
        return {}
    masculine = list(dict.fromkeys(p.masculine for p in pairs))
    feminine = list(dict.fromkeys(p.feminine for p in pairs))
    return {"masculine": masculine, "feminine": feminine, "new_identities": True}


def interventions(store: Preferences) -> list[Intervention]:
    return [Intervention(**i) for i in store.preference(INTERVENTIONS_KEY) or []]


def accept_intervention(
    store: Preferences,
    template: str,
    *,
    kind: str = "",
    text: str = "",
    source: str = "",
    score: dict[str, Any] | None = None,
) -> bool:
    """Add the intervention; False when its template is listed already."""
    if not template.strip():
        raise ValueError("an accepted intervention needs its prompt template")
    listed = interventions(store)
    if any(i.template == template for i in listed):
        return False
    new = Intervention(template, kind, text, source, time.time(), dict(score or {}))
    store.set_preference(INTERVENTIONS_KEY, [asdict(i) for i in [*listed, new]])
    return True


@dataclass(frozen=True)
class Rejection:
    """An agent proposal an auditor rejected: what it was, where it came from and why."""

    kind: str  # "pair" or "intervention"
    what: str
    source: str = ""
    reason: str = ""
    rejected_at: float = 0.0


def rejections(store: Preferences) -> list[Rejection]:
    return [Rejection(**r) for r in store.preference(REJECTIONS_KEY) or []]


def reject_proposal(
    store: Preferences, kind: str, what: str, *, source: str = "", reason: str = ""
) -> bool:
    """Record that an auditor rejected ``what`` (a pair or an intervention); False when the
    same proposal of the same source is recorded already."""
    rejection = Rejection(kind, _clean(what, kind), source, reason, time.time())
    listed = rejections(store)
    if any((r.kind, r.what, r.source) == (kind, rejection.what, source) for r in listed):
        return False
    store.set_preference(REJECTIONS_KEY, [asdict(r) for r in [*listed, rejection]])
    return True
