"""The worked numbers the retrieval docs quote are what the code prints for the bundled PAIRS
pools, and Bias@K is printed under the one view it means something in."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from diptych.core.metrics.retrieval.metrics import retrieval_metrics
from diptych.core.metrics.retrieval.ranking import QueryRanking, RankedItem
from diptych.plugins.probes.counterfactual.ranking import BIAS_VIEW, query_unit, views
from diptych.plugins.probes.counterfactual.sources import pairs_sets
from diptych.plugins.probes.counterfactual.templates import data, neutral_queries

DOCS = Path(__file__).resolve().parents[4] / "docs"
#: "random ranking … (… MaxSkew@4 0.698, NDKL@4 0.946, |Bias@4| 0.363 …)"
QUOTED = re.compile(
    r"MaxSkew@4\s+(\d\.\d{3}),\s+NDKL@4\s+(\d\.\d{3})\s+and\s+\|Bias@4\|\s+of\s+the\s+gender"
    r"\s+view\s+(\d\.\d{3})"
)


def pairs_rankings() -> dict[str, list[QueryRanking]]:
    """Every neutral query of every PAIRS pool ranking the pool's images, per view (a random
    ranking's expectation depends on the pool, not on the order)."""
    by_pool = defaultdict(list)
    for s in pairs_sets():
        by_pool[s.pool_id].append(s)
    out: dict[str, list[QueryRanking]] = defaultdict(list)
    for pool, sets in by_pool.items():
        subset = pool.split("/", 1)[1]
        texts = [t for word in data().pairs_queries[subset] for t in neutral_queries(word)]
        for view, kinds in views(sets[0].attribute_types).items():
            items = [
                RankedItem(
                    f"{s.id}/{n}",
                    image.group_of(kinds),
                    image.attributes["gender"] if kinds == (BIAS_VIEW,) else None,
                    None,
                    s.id,
                )
                for s in sets
                for n, image in enumerate(s.images)
            ]
            out[view] += [
                QueryRanking(f"{pool} :: {text}", items, query_unit(pool, "", text))
                for text in texts
            ]
    return out


@pytest.fixture(scope="module")
def printed() -> dict[str, dict[str, float]]:
    out = {}
    for view, rankings in pairs_rankings().items():
        result = retrieval_metrics(rankings, 4, "pool", n_boot=50, n_perm=20)
        out[view] = {name: f.random_ranking for name, f in result.figures.items()}
    return out


@pytest.mark.parametrize("page", ["probes/counterfactual.md", "metrics.md", "uncertainty.md"])
def test_the_docs_random_ranking_numbers_are_the_codes(
    printed: dict[str, dict[str, float]], page: str
) -> None:
    quoted = QUOTED.findall((DOCS / page).read_text(encoding="utf-8"))
    assert quoted, f"{page} quotes no random-ranking figures"
    for max_skew, ndkl, abs_bias in quoted:
        assert f"{printed['race × gender']['max_skew']:.3f}" == max_skew
        assert f"{printed['race × gender']['ndkl']:.3f}" == ndkl
        assert f"{printed['gender']['abs_bias']:.3f}" == abs_bias


def test_bias_at_k_is_scored_in_the_gender_view_only(printed: dict[str, dict[str, float]]) -> None:
    assert set(printed) == {"race × gender", "race", "gender"}
    assert {"bias", "abs_bias"} <= set(printed["gender"])
    assert "bias" not in printed["race"] and "bias" not in printed["race × gender"]
