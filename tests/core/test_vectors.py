"""The workspace's vector index: chromadb's HNSW settings, writes, and approximate search measured
against exact search."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from diptych.core.vectors import (
    HNSW,
    add_vectors,
    approximate_top_k,
    exact_top_k,
    open_collection,
    recall_at_k,
    stored_vectors,
    unit_rows,
)

N, DIM, K = 3000, 64, 50


@pytest.fixture(scope="module")
def vectors() -> tuple[list[str], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    ids = [f"img-{i:05d}" for i in range(N)]
    return ids, unit_rows(rng.standard_normal((N, DIM))), unit_rows(rng.standard_normal((10, DIM)))


def mean_recall(
    collection: object, ids: list[str], matrix: np.ndarray, queries: np.ndarray
) -> float:
    return float(
        np.mean(
            [
                recall_at_k(
                    approximate_top_k(collection, q, K),  # type: ignore[arg-type]
                    exact_top_k(q, ids, matrix, K, normalized=True),
                )
                for q in queries
            ]
        )
    )


def test_the_hnsw_settings_reach_chromadb(tmp_path: Path) -> None:
    collection = open_collection(tmp_path, "settings")
    hnsw = collection.configuration["hnsw"]
    assert hnsw is not None
    for key, value in HNSW.items():
        assert hnsw[key] == value  # type: ignore[literal-required]


def test_approximate_search_finds_the_exact_top_k_and_a_narrow_search_measurably_does_not(
    tmp_path: Path, vectors: tuple[list[str], np.ndarray, np.ndarray]
) -> None:
    ids, matrix, queries = vectors
    wide = open_collection(tmp_path, "wide")
    narrow = open_collection(tmp_path, "narrow", hnsw={"ef_search": 10, "max_neighbors": 4})
    for collection in (wide, narrow):
        add_vectors(collection, ids, matrix, [{"n": i % 7} for i in range(N)])
    assert mean_recall(wide, ids, matrix, queries) >= 0.99
    assert mean_recall(narrow, ids, matrix, queries) < 0.9
    # Same ids, same order of scores: the best hit agrees with exact search.
    q = queries[0]
    assert approximate_top_k(wide, q, 1)[0].id == exact_top_k(q, ids, matrix, 1)[0].id
    assert approximate_top_k(wide, q, 1)[0].score == pytest.approx(
        exact_top_k(q, ids, matrix, 1)[0].score, abs=1e-5
    )


def test_writing_again_replaces_vectors_and_metadata_without_duplicates(tmp_path: Path) -> None:
    collection = open_collection(tmp_path, "rewrite")
    add_vectors(collection, ["a", "b"], [[1.0, 0.0], [0.0, 1.0]], [{"g": "x"}, {"g": "y"}])
    add_vectors(collection, ["b", "c"], [[1.0, 1.0], [-1.0, 0.0]], [{"g": "z"}, {"g": "w"}])
    ids, matrix = stored_vectors(collection)
    assert ids == ["a", "b", "c"]
    assert matrix.tolist() == [[1.0, 0.0], pytest.approx([1.0, 1.0]), [-1.0, 0.0]]
    assert collection.get(ids=["b"], include=["metadatas"])["metadatas"] == [{"g": "z"}]


def test_an_id_given_twice_in_one_write_is_refused_before_chromadb(tmp_path: Path) -> None:
    collection = open_collection(tmp_path, "twice")
    with pytest.raises(ValueError, match=r"1 id\(s\) given more than once, e.g. 'a'"):
        add_vectors(collection, ["a", "b", "a"], [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    assert collection.count() == 0


def test_an_add_is_searchable_as_soon_as_it_returns(
    tmp_path: Path, vectors: tuple[list[str], np.ndarray, np.ndarray]
) -> None:
    # A local chromadb builds its HNSW graph inside ``add`` (there is no later build step), so
    # the ingestion benchmark times the whole index build.
    ids, matrix, _ = vectors
    collection = open_collection(tmp_path, "fresh")
    add_vectors(collection, ids[:500], matrix[:500])
    for i in (0, 250, 499):
        assert approximate_top_k(collection, matrix[i], 1)[0].id == ids[i]
