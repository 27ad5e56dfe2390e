"""Reading a ranking CSV for ``diptych metrics retrieval`` (the columns are in DESIGN.md and
docs/metrics.md): one row per retrieved item, checked line by line."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from diptych.core.metrics.csv_input import checked_columns, failure, readable_csv
from diptych.core.metrics.retrieval.metrics import GENDERS, QueryRanking, RankedItem

REQUIRED_COLUMNS = ("query", "rank", "group")
UNIT_COLUMNS = ("occupation", "unit")
OPTIONAL_COLUMNS = ("gender", "item", "score", "set", *UNIT_COLUMNS)


def read_ranking_csv(path: str | Path) -> list[QueryRanking]:
    """Read a ranking CSV: columns ``query, rank (1-based), group`` and optional ``gender``
    (male / female / neutral, or empty), ``item``, ``score``, ``set`` (the counterfactual set
    of the item: the null then permutes the attribute within each set) and ``occupation`` (or
    ``unit``: the occupation whose wordings the query is one of, resampled together); one row
    per retrieved item.

    Queries keep the order of their first row; each query's ranks must run 1, 2, ... without a
    gap or a repeat, and all its rows name one occupation. Any problem raises
    :class:`InputFileError` with one line naming the file, the line and what to fix.
    """
    path = Path(path)

    fail = failure(path)

    by_query: dict[str, dict[int, tuple[int, RankedItem]]] = {}
    unit_of: dict[str, tuple[int, str]] = {}
    with readable_csv(path, "--ranking", "ranking"):
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            columns = checked_columns(reader, fail, REQUIRED_COLUMNS, OPTIONAL_COLUMNS)
            reader.fieldnames = columns
            units = [c for c in UNIT_COLUMNS if c in columns]
            if len(units) > 1:
                raise fail(None, "both occupation and unit columns; keep one")
            if "set" in columns and "item" not in columns:
                raise fail(None, "a set column needs an item column; name each image, so that "
                                 "the queries ranking it share it")  # fmt: skip
            for raw in reader:
                line = reader.line_num
                if None in raw:
                    raise fail(line, f"more fields than the header's {len(columns)}; quote "
                                     "values that contain commas")  # fmt: skip
                query, rank, item = _parse_row(raw, line, fail)
                if units:
                    unit = (raw.get(units[0]) or "").strip()
                    if not unit:
                        raise fail(line, f"empty {units[0]}; name the {units[0]} of every row")
                    first = unit_of.setdefault(query, (line, unit))
                    if first[1] != unit:
                        raise fail(
                            line,
                            f"query {query!r} has {units[0]} {unit!r} here but {first[1]!r} on "
                            f"line {first[0]}; give each query one {units[0]}",
                        )
                ranks = by_query.setdefault(query, {})
                if rank in ranks:
                    raise fail(
                        line,
                        f"query {query!r} has rank {rank} already (line {ranks[rank][0]}); "
                        "give each retrieved item its own rank",
                    )
                ranks[rank] = (line, item)
    if not by_query:
        raise fail(None, "no rows below the header; add one row per retrieved item")
    rankings = []
    for query, ranks in by_query.items():
        for expected, rank in enumerate(sorted(ranks), start=1):
            if rank != expected:
                raise fail(
                    ranks[rank][0],
                    f"query {query!r} has rank {rank} but no rank {expected}; ranks must run "
                    "1, 2, 3 ... without gaps",
                )
        unit = unit_of[query][1] if query in unit_of else None
        rankings.append(QueryRanking(query, [ranks[r][1] for r in sorted(ranks)], unit))
    return rankings


def _parse_row(raw: dict[str, Any], line: int, fail: Any) -> tuple[str, int, RankedItem]:
    def cell(name: str) -> str:
        return (raw.get(name) or "").strip()

    query, group = cell("query"), cell("group")
    if not query:
        raise fail(line, "empty query; name the query (caption) that retrieved this item")
    if not group:
        raise fail(line, "empty group; name the social group of the retrieved item")
    try:
        rank = int(cell("rank"))
    except ValueError:
        raise fail(line, f"rank {cell('rank')!r} is not a whole number; ranks start at 1") from None
    if rank < 1:
        raise fail(line, f"rank {rank} is below 1; ranks start at 1 (the best match)")
    gender: str | None = cell("gender").lower() or None
    if gender is not None and gender not in GENDERS:
        raise fail(line, f"gender {cell('gender')!r} is not one of {', '.join(GENDERS)} (or empty)")
    score: float | None = None
    if cell("score"):
        try:
            score = float(cell("score"))
        except ValueError:
            raise fail(line, f"score {cell('score')!r} is not a number") from None
    if "set" in raw and not cell("set"):
        raise fail(line, "empty set; name the counterfactual set of every row")
    item = RankedItem(cell("item") or f"{query}#{rank}", group, gender, score, cell("set") or None)
    return query, rank, item
