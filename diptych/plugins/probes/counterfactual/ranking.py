"""Retrieval over a run's filtered pools: the workspace's chromadb collection and the rankings
each neutral query gives, per attribute view (the pair intersected, and each type alone)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from diptych.core.metrics.retrieval.metrics import QueryRanking, RankedItem
from diptych.core.vectors import (
    Hit,
    add_vectors,
    approximate_top_k,
    exact_top_k,
    open_collection,
    recall_at_k,
)
from diptych.plugins.probes.counterfactual.embeddings import ModelEmbeddings
from diptych.plugins.probes.counterfactual.sets import CounterfactualImage, CounterfactualSet
from diptych.plugins.probes.counterfactual.templates import article, data

GENDERS = ("male", "female")


def collection_name(model_id: str) -> str:
    """A chromadb collection name for the model's image embeddings (letters, digits, ._-).

    Its rows are items (:func:`item_id`). Collections of earlier versions, named
    ``counterfactual-<model>`` with a row per blob, are left as they are: an analysis stores
    its vectors again before it searches, so a workspace's earlier runs are scored afresh."""
    return "counterfactual-items-" + re.sub(r"[^A-Za-z0-9._-]", "-", model_id).strip("-._")[:200]


def item_id(s: CounterfactualSet, index: int) -> str:
    """The id of the ``index``-th image of ``s`` as a ranked item and a collection row.

    Not the blob alone: two images of a run can have the same bytes (a safety checker's black
    image, a cached generator's answer to two prompts), yet each is its own item with its own
    attributes. The blob is part of it so that an id always names the same vector, even when
    another dataset's sets have the same ids."""
    return f"{s.id}/{index}/{s.images[index].blob}"


def items(
    sets: Iterable[CounterfactualSet],
) -> Iterator[tuple[CounterfactualSet, str, CounterfactualImage]]:
    """Every image of ``sets`` with its set and item id."""
    for s in sets:
        for index, image in enumerate(s.images):
            yield s, item_id(s, index), image


#: The one view Bias@K is scored in. Bias@K = (male − female) / (male + female) counts the
#: two genders and nothing else: in every view it is the same number with the same null (a
#: set's genders are permuted with its groups), so under race it would read as a race figure
#: it is not and under race × gender repeat itself. Scored once, in the view whose groups are
#: the ones it counts.
BIAS_VIEW = "gender"


def views(types: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The attribute views of a segment: its types intersected, then each type alone."""
    return {" × ".join(types): tuple(types), **{t: (t,) for t in types}}


def query_unit(pool: str, subject: str, text: str) -> str:
    """The unit a query's interval resamples: its subject (occupation), whose every wording
    ranks the same pool; for a PAIRS subset, the answer option the query words."""
    if pool.startswith("pairs/"):
        subset = pool.split("/", 1)[1]
        for word in data().pairs_queries.get(subset, []):
            wordings = {
                t.format(article=article(word), subject=word) for t in data().query_templates
            }
            if text in wordings:
                return f"{pool}: {word}"
        return f"{pool}: {text}"
    return subject


@dataclass
class PoolRankings:
    """Rankings per (segment, view) and, with approximate search, its recall against exact."""

    rankings: dict[tuple[str, str], list[QueryRanking]] = field(default_factory=dict)
    subjects: dict[str, str] = field(default_factory=dict)
    recalls: list[float] = field(default_factory=list)
    exact_rankings: dict[tuple[str, str], list[QueryRanking]] = field(default_factory=dict)


def _ranked(
    hits: Sequence[Hit],
    images: dict[str, CounterfactualImage],
    set_of: dict[str, str],
    kinds: tuple[str, ...],
) -> list[RankedItem]:
    """The ranked items, each with its group in the view ``kinds`` and its counterfactual set
    (the null of the metrics permutes the attribute within each set). The gender, which Bias@K
    counts, only in the gender view (:data:`BIAS_VIEW`)."""
    out = []
    for hit in hits:
        image = images[hit.id]
        gender = image.attributes.get("gender") if kinds == (BIAS_VIEW,) else None
        out.append(
            RankedItem(
                hit.id,
                image.group_of(kinds),
                gender if gender in GENDERS else None,
                hit.score,
                set_of[hit.id],
            )
        )
    return out


def rank_pools(
    kept: Sequence[CounterfactualSet],
    emb: ModelEmbeddings,
    k_of: dict[str, int],
    *,
    collection_where: tuple[str, str] | None,
    approximate: bool,
    chroma_url: str | None,
) -> PoolRankings:
    """Every query's ranking of its pool's kept images. ``collection_where`` is (workspace
    path, model id) to store the vectors in chromadb; None keeps them in memory (a read-only
    workspace), where only exact search is possible."""
    by_pool: dict[str, list[tuple[CounterfactualSet, str, CounterfactualImage]]] = {}
    for s, item, image in items(kept):
        by_pool.setdefault(s.pool_id, []).append((s, item, image))
    collection = None
    if collection_where is not None:
        path, model_id = collection_where
        collection = open_collection(path, collection_name(model_id), url=chroma_url)
        members = [m for pool in by_pool.values() for m in pool]
        add_vectors(
            collection,
            [x for _, x, _ in members],
            np.stack([emb.images[i.blob] for _, _, i in members]) if members else np.zeros((0, 1)),
            [
                {
                    # The id again, so that ``where`` can hold a search to a pool's items
                    # (the chromadb versions we support cannot all pass ids to ``query``).
                    "item": x,
                    "pool": s.pool_id,
                    "set_id": s.id,
                    "segment": s.segment,
                    "subject": s.subject,
                    **i.attributes,
                }
                for s, x, i in members
            ],
        )
    out = PoolRankings()
    for pool, members in by_pool.items():
        segment = members[0][0].segment
        types = members[0][0].attribute_types
        images = {x: i for _, x, i in members}
        set_of = {x: s.id for s, x, _ in members}
        ids = sorted(images)
        matrix = np.stack([emb.images[images[x].blob] for x in ids])
        # Identical images are one vector under several ids, so the index may return any of
        # them at the K-th place: asking for that many more and keeping the first K by
        # (score, id) breaks such a tie as exact search does.
        spare = len(ids) - len({i.blob for i in images.values()})
        for q_pool, subject, text in emb.queries:
            if q_pool != pool or text not in emb.texts:
                continue
            exact = exact_top_k(emb.texts[text], ids, matrix, len(ids))
            ranked = exact
            if approximate and collection is not None:
                k = k_of[segment]
                where = {"item": {"$in": ids}}
                wide = min(k + spare, len(ids))
                hits = approximate_top_k(collection, emb.texts[text], wide, where=where)[:k]
                out.recalls.append(recall_at_k(hits, exact[:k]))
                seen = {h.id for h in hits}
                ranked = list(hits) + [h for h in exact if h.id not in seen]
            label = f"{pool} :: {text}"
            unit = query_unit(pool, subject, text)
            out.subjects[label] = unit
            for view, kinds in views(types).items():
                out.rankings.setdefault((segment, view), []).append(
                    QueryRanking(label, _ranked(ranked, images, set_of, kinds), unit)
                )
                out.exact_rankings.setdefault((segment, view), []).append(
                    QueryRanking(label, _ranked(exact, images, set_of, kinds), unit)
                )
    return out
