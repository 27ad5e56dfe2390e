"""What an interval resamples, said one way wherever a figure is shown: the report's Findings
and its "What each interval resamples", a plan's line (``diptych run --dry-run``, the New run
screen) and the standings (``diptych standings``, the Standings screen).

Two identity lists are resampled one of two ways. A paired scene crosses one identity of each
list, so the paired STS resamples the two lists crossed in scenes (the two-way bootstrap); a
single-person prompt names one identity, so the single STS resamples each list on its own, as
separate lists (strata). Any other figure resamples one kind of unit (draws, images), counted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: The identity lists in the one order every surface names them: masculine, then feminine
#: (a figure read back from a stored record has its units in the record's sorted order).
_LIST_ORDER = ("masculine", "feminine")

#: How an interval over two kinds of unit joins them, by its design (the ``design`` of an
#: :class:`~diptych.core.metrics.uncertainty.resampling.Inference`).
_JOINED = {"crossed": " × ", "stratified": " and "}


def plural(noun: str, count: int = 2) -> str:
    """``noun`` as ``count`` of it reads: "1 identity", "2 identities", "3 image pairs"."""
    if count == 1 or not noun:
        return noun
    if re.search(r"[^aeiou]y$", noun):
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def counted(count: int, noun: str) -> str:
    return f"{count:,} {plural(noun, count)}"


def resampled_units(units: Mapping[str, int | None], design: str | None) -> str:
    """The units an interval resamples: crossed, "20 masculine × 20 feminine identities crossed
    in scenes"; stratified, "20 masculine and 20 feminine identities as separate lists"; one
    kind, "800 draws". A count of None leaves the number out ("masculine × feminine identities
    crossed in scenes"), as a table of several runs names its units. The identity lists are
    named masculine first however ``units`` holds them; other units in their order."""
    names = sorted(units, key=list_rank)
    joined = _JOINED.get(design or "")
    split = [name.rsplit(" ", 1) for name in names]
    if joined is None or len(names) != 2 or any(len(s) != 2 for s in split):
        return " and ".join(_count(units[name], name) for name in names)
    (first, noun), (second, other) = split
    if noun != other:
        return joined.join(_count(units[name], name) for name in names)
    counts = [units[name] for name in names]
    most = max((c for c in counts if c is not None), default=2)
    sides = joined.join(
        f"{c:,} {q}" if c is not None else q for c, q in zip(counts, (first, second), strict=True)
    )
    if design == "stratified":
        how = "as separate lists"
    else:
        how = "crossed in scenes" if noun == "identity" else "crossed"
    return f"{sides} {plural(noun, most)} {how}"


def list_rank(name: str) -> int:
    """Where a unit's name goes among the identity lists (:data:`_LIST_ORDER`); any other last,
    in its order (the sort is stable)."""
    first = name.split(" ", 1)[0]
    return _LIST_ORDER.index(first) if first in _LIST_ORDER else len(_LIST_ORDER)


def _count(count: int | None, noun: str) -> str:
    return plural(noun) if count is None else counted(count, noun)
