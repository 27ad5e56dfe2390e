"""The records a retrieval metric reads: one retrieved item (:class:`RankedItem`) and a query
with its ranked items (:class:`QueryRanking`). The metrics are in
:mod:`diptych.core.metrics.retrieval.metrics`, which re-exports these names."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

GENDERS = ("male", "female", "neutral")


class RankedItem(NamedTuple):
    """One retrieved item: its id, social group, gender (male / female / neutral or None),
    retrieval score (None when only the rank is known) and the counterfactual set it belongs
    to (None when the items are not in sets)."""

    item: str
    group: str
    gender: str | None = None
    score: float | None = None
    set_id: str | None = None


@dataclass(frozen=True)
class QueryRanking:
    """A query and the items it retrieved, best first; ``unit`` names the occupation (or other
    unit) whose wordings it is one of, resampled together (None: the query is its own unit)."""

    query: str
    ranked: Sequence[RankedItem]
    unit: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "ranked",
            tuple(r if isinstance(r, RankedItem) else RankedItem(*r) for r in self.ranked),
        )

    @classmethod
    def from_scores(
        cls, query: str, items: Sequence[RankedItem], unit: str | None = None
    ) -> QueryRanking:
        """Rank by score, highest first; equal scores go by item id, so the order (and with it
        every metric) never depends on the order the items came in."""
        if any(item.score is None for item in items):
            raise ValueError(f"query {query!r}: every item needs a score to be ranked by score")
        return cls(query, sorted(items, key=lambda r: (-float(r.score or 0.0), r.item)), unit)

    @property
    def groups(self) -> list[str]:
        return [r.group for r in self.ranked]

    @property
    def genders(self) -> list[str | None]:
        return [r.gender for r in self.ranked]


__all__ = ["GENDERS", "QueryRanking", "RankedItem"]
