"""The workspace's vector index: a chromadb collection of embeddings, and top-K search over it.

A workspace keeps its embeddings (images and texts for retrieval probes, the agent's memory)
in chromadb under ``<workspace>/chroma/``; a chromadb server can be named instead when a
collection outgrows one machine. Embeddings always come from our own encoders: a collection is
opened with no embedding function, so chromadb never downloads one of its own.

Search comes in two kinds. :func:`exact_top_k` scores every stored vector with numpy — the
reference, and what the metrics use by default. :func:`approximate_top_k` asks chromadb's HNSW
index, which is what scales; :func:`recall_at_k` measures how much of the exact answer it finds.
Scores are cosine similarities; ties are broken by score, then by id, so a ranking never
depends on insertion order.

chromadb is imported only when a collection is opened, so importing the core stays cheap.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import numpy as np

from diptych.core.errors import MissingDependencyError, StoreError, UsageError

if TYPE_CHECKING:
    from chromadb.api.models.Collection import Collection

#: Where a workspace keeps its collections.
CHROMA_DIR = "chroma"
#: The HNSW index of every collection made here, in chromadb's ``configuration`` (the legacy
#: ``hnsw:*`` metadata keys are only translated into it). Cosine, since our encoders' vectors
#: are unit length (inner product would rank them the same).
#:
#: A local chromadb (1.x) builds the graph inside every ``add``: the rows go to its SQLite
#: write-ahead log, then, before ``add`` returns, into the metadata tables and into the HNSW
#: graph (on every core), and the graph is saved once ``sync_threshold`` rows (default 1000)
#: have come in since the last save. There is no "ingest now, build later", and a local
#: collection always gets HNSW (SPANN is for distributed Chroma), so ingestion speed is set by
#: ``ef_construction`` and ``max_neighbors``. ``ef_search`` costs only query time.
#: ``num_threads``, ``batch_size`` and ``resize_factor`` are accepted but unused by the local
#: index; a larger ``sync_threshold`` saves less often but leaves the log unpruned, so every
#: later ``add`` reads it again.
#:
#: Measured on 100,000 512-d vectors (bench ``retrieval.*``, 2 cores): on embeddings with
#: cluster structure, as an encoder gives, ``ef_construction`` 48 with 32 neighbours ingests
#: about 6,300 vectors/s and finds 99.9% of the exact top 50 at ``ef_search`` 100, all of it
#: at 2000 (64: about 5,600/s, no better; 32 with 16 neighbours: 7,100/s, but 1% of the top 50
#: stays out of reach at any ``ef_search``). Random vectors, which have
#: no neighbourhood structure, are the worst case: there the same graph builds at about 1,300/s
#: and finds 82–84% of a top 50 (64: 1,100/s and 89%; 16 neighbours: 67% at best). The 32
#: neighbours and the wide ``ef_search`` (about 10 ms a query) are for that case; fewer
#: neighbours do not ingest clustered data measurably faster.
HNSW: dict[str, Any] = {
    "space": "cosine",
    "max_neighbors": 32,
    "ef_construction": 48,
    "ef_search": 2000,
}
#: Rows per ``add``/``get`` when the client does not say (chromadb's own limit is larger).
WRITE_CHUNK = 4096


def _chromadb() -> Any:
    try:
        import chromadb
    except ImportError as error:
        raise MissingDependencyError("chromadb", "retrieval", "the vector index") from error
    return chromadb


def check_server_url(url: str) -> str:
    """``url`` if it can name a chromadb server (``http(s)://host[:port]``), else a UsageError:
    checked when a workspace is opened, not first when a collection is."""
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise UsageError(f"chromadb server URL {url!r} must look like http://host:8000")
    return url


def _client(workspace_path: str | os.PathLike[str], url: str | None) -> Any:
    chromadb = _chromadb()
    from chromadb.config import Settings

    # Telemetry would call out to the network from an offline audit.
    settings = Settings(anonymized_telemetry=False)
    if url is None:
        path = Path(workspace_path) / CHROMA_DIR
        path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(path), settings=settings)
    parsed = urlparse(check_server_url(url))
    try:
        return chromadb.HttpClient(
            host=parsed.hostname,
            port=parsed.port or (443 if parsed.scheme == "https" else 8000),
            ssl=parsed.scheme == "https",
            settings=settings,
        )
    except ValueError as error:
        # chromadb's own words for a server that does not answer ("Could not connect ...").
        raise StoreError(f"chromadb server {url}: {error}") from error


def open_collection(
    workspace_path: str | os.PathLike[str],
    name: str,
    *,
    url: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    hnsw: Mapping[str, Any] | None = None,
) -> Collection:
    """The collection ``name`` of the workspace (created on first use), compared by cosine.

    Stored under ``<workspace>/chroma/`` unless ``url`` names a chromadb server. The collection
    has no embedding function: every ``add``/``query`` must pass embeddings. ``hnsw`` overrides
    entries of :data:`HNSW` for a new collection (an existing one keeps its index)."""
    client = _client(workspace_path, url)
    return client.get_or_create_collection(
        name=name,
        embedding_function=None,
        configuration={"hnsw": {**HNSW, **(hnsw or {})}},
        metadata=dict(metadata) if metadata else None,
    )


def _batch_size(collection: Collection) -> int:
    """The most rows chromadb takes in one write (its client knows; a stub may not)."""
    client = getattr(collection, "_client", None)
    size = getattr(client, "get_max_batch_size", None)
    return int(size()) if callable(size) else WRITE_CHUNK


def add_vectors(
    collection: Collection,
    ids: Sequence[str],
    vectors: np.ndarray | Sequence[Sequence[float]],
    metadatas: Sequence[Mapping[str, Any]] | None = None,
) -> None:
    """Store (or replace) vectors under ``ids`` with their metadata.

    New ids go in with ``add`` in the largest batches chromadb takes; only ids already stored
    are ``upsert``-ed, since an upsert must look every id up before it writes. An id given twice
    is refused here: chromadb would refuse it too, but from inside the lookup, with an error
    that names ``get``."""
    twice = sorted(x for x, n in Counter(ids).items() if n > 1)
    if twice:
        raise ValueError(f"{len(twice)} id(s) given more than once, e.g. {twice[0]!r}")
    array = np.asarray(vectors, dtype=np.float32)
    batch = _batch_size(collection)
    stored: set[str] = set()
    if collection.count():
        for start in range(0, len(ids), batch):
            stored.update(collection.get(ids=list(ids[start : start + batch]), include=[])["ids"])
    for write, chosen in (
        (collection.add, [i for i, x in enumerate(ids) if x not in stored]),
        (collection.upsert, [i for i, x in enumerate(ids) if x in stored]),
    ):
        for start in range(0, len(chosen), batch):
            rows = chosen[start : start + batch]
            write(
                ids=[ids[i] for i in rows],
                embeddings=array[rows],
                metadatas=[dict(metadatas[i]) for i in rows] if metadatas else None,
            )


def stored_vectors(
    collection: Collection, where: Mapping[str, Any] | None = None
) -> tuple[list[str], np.ndarray]:
    """The ids and vectors stored in ``collection`` (those matching ``where``), ids sorted."""
    ids: list[str] = []
    rows: list[Any] = []
    total = collection.count()
    for offset in range(0, max(total, 1), WRITE_CHUNK):
        got = collection.get(
            where=dict(where) if where else None,
            include=["embeddings"],
            limit=WRITE_CHUNK,
            offset=offset,
        )
        ids.extend(got["ids"])
        if got["embeddings"] is not None:
            rows.extend(got["embeddings"])
    if not ids:
        return [], np.zeros((0, 0), dtype=np.float32)
    order = np.argsort(np.asarray(ids))
    matrix = np.asarray(rows, dtype=np.float32)[order]
    return [ids[i] for i in order], matrix


@dataclass(frozen=True)
class Hit:
    """One retrieved item: its id and cosine similarity to the query."""

    id: str
    score: float


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1 (a zero row stays zero), so a dot product is a cosine."""
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


def exact_top_k(
    query: np.ndarray | Sequence[float],
    ids: Sequence[str],
    vectors: np.ndarray,
    k: int,
    *,
    normalized: bool = False,
) -> list[Hit]:
    """The ``k`` vectors most similar to ``query`` by cosine, best first; ties by id.

    Linear in the number of vectors: ``argpartition`` picks the candidates, and only they are
    sorted. ``normalized=True`` says the rows are unit vectors already (as :func:`unit_rows`
    gives them), which saves scaling them on every query. Candidates tied with the ``k``-th
    score are all kept before the id tie-break, so the answer is the same whatever order the
    vectors are stored in."""
    if k <= 0 or len(ids) == 0:
        return []
    matrix = vectors if normalized else unit_rows(vectors)
    scores = matrix @ unit_rows(np.asarray(query, dtype=np.float32))
    k = min(k, len(ids))
    if k < len(ids):
        kth = np.partition(scores, len(ids) - k)[len(ids) - k]
        candidates = np.flatnonzero(scores >= kth)
    else:
        candidates = np.arange(len(ids))
    ranked = sorted((int(i) for i in candidates), key=lambda i: (-float(scores[i]), ids[i]))[:k]
    return [Hit(ids[i], float(scores[i])) for i in ranked]


def approximate_top_k(
    collection: Collection,
    query: np.ndarray | Sequence[float],
    k: int,
    where: Mapping[str, Any] | None = None,
) -> list[Hit]:
    """The ``k`` nearest stored vectors by chromadb's approximate (HNSW) index, best first.

    Scores are cosine similarities (1 − chromadb's cosine distance); ties by id as in
    :func:`exact_top_k`."""
    if k <= 0:
        return []
    found = collection.query(
        query_embeddings=np.asarray(query, dtype=np.float32).reshape(1, -1),
        n_results=k,
        where=dict(where) if where else None,
        include=["distances"],
    )
    ids = found["ids"][0]
    distances = found["distances"][0] if found["distances"] is not None else [0.0] * len(ids)
    hits = [Hit(i, 1.0 - float(d)) for i, d in zip(ids, distances, strict=True)]
    return sorted(hits, key=lambda h: (-h.score, h.id))


def recall_at_k(approximate: Sequence[Hit], exact: Sequence[Hit]) -> float:
    """The share of the exact top K that the approximate search also returned (1.0: all)."""
    if not exact:
        return 1.0
    return len({h.id for h in approximate} & {h.id for h in exact}) / len(exact)
