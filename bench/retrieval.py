"""retrieval.*: the workspace's vector index at the SocialCounterfactuals scale.

100,000 stored 512-d unit vectors, each with metadata of a counterfactual image (pool, set,
race × gender group), in two kinds:

* **CLIP-like** — what an image encoder gives: a mixture of 300 Gaussian clusters in a 32-d
  subspace (a random orthonormal basis of the 512-d space), plus small isotropic noise in all
  512 dimensions, normalised (:func:`clip_like`). Neighbours of a query are mostly its own
  cluster, as they are for real embeddings;
* **random** — independent Gaussian vectors, normalised: no neighbourhood structure at all, the
  worst case for a graph index (every point is about as far from a query as every other).

Figures (queries are 20 new vectors of the same kind, fixed seeds):

* ``retrieval.exact_topk_ms_100k`` — one query's exact top 50 by cosine over the random
  vectors (:func:`diptych.core.vectors.exact_top_k`, numpy), median of 20 queries;
* ``retrieval.index_vectors_per_s`` — adding the CLIP-like vectors with their metadata to a new
  chromadb collection in the workspace (:func:`diptych.core.vectors.add_vectors`); the HNSW
  settings beside. chromadb builds its HNSW graph inside every ``add``, so this is the whole
  index build, not only the write (informational: it follows the machine);
* ``retrieval.index_overhead_ratio`` — that time over chromadb's bare ``add`` of the same
  vectors and metadata into a new collection with the same HNSW settings, in its largest
  batches, timed right after in the same process: what diptych's indexing costs beyond
  chromadb's own, whatever the machine;
* ``retrieval.ann_recall_at_50`` — chromadb's approximate (HNSW) top 50 against the exact one
  on that collection, mean over 20 queries, with the largest MaxSkew@50 difference
  (race × gender, uniform desired) between the two beside it;
* ``retrieval.index_vectors_per_s_random`` and ``retrieval.ann_recall_at_50_random`` — the same
  on the random vectors (informational: the worst case, which no encoder produces).
"""

from __future__ import annotations

import math
import statistics
import tempfile
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from bench.harness import Result, bench, result

if TYPE_CHECKING:
    import numpy as np

N_VECTORS = 100_000
DIM = 512
TOP = 50
N_QUERIES = 20
GROUPS = [f"{r}_{g}" for r in ("Asian", "Black", "Indian", "Latino", "ME", "White")
          for g in ("male", "female")]  # fmt: skip
#: The CLIP-like mixture: clusters, the dimension of the subspace they live in, the spread of a
#: cluster (its centres are standard normal there) and the isotropic noise in every dimension.
#: With these, a query's 50th neighbour has a cosine of about 0.73 and its first about 0.80.
CLUSTERS, SUBSPACE, SPREAD, NOISE = 300, 32, 0.5, 0.1


def clip_like(rng: np.random.Generator, n: int, queries: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` stored and ``queries`` query unit vectors drawn from one clustered distribution."""
    import numpy as np

    from diptych.core.vectors import unit_rows

    basis = np.linalg.qr(rng.standard_normal((DIM, SUBSPACE)))[0]
    centres = rng.standard_normal((CLUSTERS, SUBSPACE))

    def draw(m: int) -> np.ndarray:
        inner = centres[rng.integers(0, CLUSTERS, m)] + SPREAD * rng.standard_normal((m, SUBSPACE))
        return unit_rows(
            (inner @ basis.T + NOISE * rng.standard_normal((m, DIM))).astype(np.float32)
        )

    return draw(n), draw(queries)


def uniform_random(rng: np.random.Generator, n: int, queries: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` stored and ``queries`` query unit vectors with no structure."""
    import numpy as np

    from diptych.core.vectors import unit_rows

    def draw(m: int) -> np.ndarray:
        return unit_rows(rng.standard_normal((m, DIM)).astype(np.float32))

    return draw(n), draw(queries)


def index_and_recall(vectors: np.ndarray, queries: np.ndarray, suffix: str) -> Iterator[Result]:
    """Ingest ``vectors`` into a new workspace collection, then compare its top 50 with exact."""
    import numpy as np

    from diptych.core.metrics.retrieval.metrics import max_skew_at_k
    from diptych.core.vectors import (
        HNSW,
        add_vectors,
        approximate_top_k,
        exact_top_k,
        open_collection,
        recall_at_k,
    )

    ids = [f"img-{i:06d}" for i in range(len(vectors))]
    groups = [GROUPS[i % len(GROUPS)] for i in range(len(vectors))]
    metadatas = [
        {"pool": "bench", "set_id": f"set-{i // 12}", "group": groups[i]}
        for i in range(len(vectors))
    ]
    with tempfile.TemporaryDirectory() as workspace:
        collection = open_collection(workspace, "bench")
        start = time.perf_counter()
        add_vectors(collection, ids, vectors, metadatas)
        elapsed = time.perf_counter() - start
        yield result(
            f"retrieval.index_vectors_per_s{suffix}",
            len(vectors) / elapsed,
            "vectors/s",
            **{k: v for k, v in HNSW.items() if k != "space"},
        )
        if not suffix:
            bare = bare_chromadb_add_s(ids, vectors, metadatas)
            yield result(
                "retrieval.index_overhead_ratio",
                elapsed / bare,
                "ratio",
                diptych_s=round(elapsed, 2),
                chromadb_s=round(bare, 2),
            )

        group_of = dict(zip(ids, groups, strict=True))
        recalls, worst = [], 0.0
        for q in queries:
            exact = exact_top_k(q, ids, vectors, TOP, normalized=True)
            approx = approximate_top_k(collection, q, TOP)
            recalls.append(recall_at_k(approx, exact))
            # Pool shares are equal by construction, so the desired distribution is uniform.
            a = max_skew_at_k([group_of[h.id] for h in approx], TOP, "uniform")
            e = max_skew_at_k([group_of[h.id] for h in exact], TOP, "uniform")
            if math.isfinite(a) and math.isfinite(e):
                worst = max(worst, abs(a - e))
        yield result(
            f"retrieval.ann_recall_at_50{suffix}",
            float(np.mean(recalls)),
            "recall",
            max_skew_abs_diff=round(worst, 4),
        )


def bare_chromadb_add_s(
    ids: list[str], vectors: np.ndarray, metadatas: list[dict[str, str]]
) -> float:
    """Seconds chromadb itself takes to add the rows to a new persistent collection with
    diptych's HNSW settings, in the largest batches its client takes."""
    import chromadb

    from diptych.core.vectors import HNSW

    with tempfile.TemporaryDirectory() as directory:
        client = chromadb.PersistentClient(path=directory)
        collection = client.create_collection(
            "bare",
            embedding_function=None,
            configuration={"hnsw": dict(HNSW)},  # type: ignore[arg-type]
        )
        batch = client.get_max_batch_size()
        start = time.perf_counter()
        for at in range(0, len(ids), batch):
            collection.add(
                ids=ids[at : at + batch],
                embeddings=vectors[at : at + batch],
                metadatas=metadatas[at : at + batch],  # type: ignore[arg-type]
            )
        return time.perf_counter() - start


@bench(
    retrieval__exact_topk_ms_100k="<= 50",
    retrieval__index_vectors_per_s=None,
    retrieval__index_overhead_ratio="<= 1.2",
    retrieval__ann_recall_at_50=">= 0.99",
    retrieval__index_vectors_per_s_random=None,
    retrieval__ann_recall_at_50_random=None,
)
def vector_index() -> Iterator[Result]:
    import numpy as np

    from diptych.core.vectors import exact_top_k

    rng = np.random.default_rng(0)
    vectors, queries = uniform_random(rng, N_VECTORS, N_QUERIES)
    ids = [f"img-{i:06d}" for i in range(N_VECTORS)]
    timings = []
    for q in queries:
        start = time.perf_counter()
        exact_top_k(q, ids, vectors, TOP, normalized=True)
        timings.append((time.perf_counter() - start) * 1000)
    yield result("retrieval.exact_topk_ms_100k", statistics.median(timings), "ms")

    yield from index_and_recall(*clip_like(np.random.default_rng(1), N_VECTORS, N_QUERIES), "")
    yield from index_and_recall(vectors, queries, "_random")
