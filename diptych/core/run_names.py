"""The names a run answers to, and the shortest one to print.

A run's id is its probe's name and the start of its design's fingerprint
(``pst-text-0663f62e``); a second run of the same design asked for anew adds a time stamp
(``pst-text-0663f62e-1764381234ab12``). A user types the id whole, the start of it, or the start
of it without the probe (what a table whose probe column already names the probe prints). A name
printed anywhere must be accepted everywhere, so the one rule of what a name names lives here,
beside the rule of the shortest name to print.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the store reads names by these rules: no import back into it at run time
    from diptych.core.store.records import RunRecord

#: Fewer hex digits than this are not printed, even where fewer would name the run alone.
SHORTEST_NAME = 8


def without_probe(run: RunRecord) -> str:
    """The run's id without its probe prefix (``0663f62e`` of ``pst-text-0663f62e``)."""
    return run.id.removeprefix(f"{run.probe}-")


def named_by(run: RunRecord, name: str) -> bool:
    """Whether ``name`` names ``run``: its id, the start of it, or the start of the id without
    its probe prefix. An empty name names none: it is the start of every id, and a script's
    unset variable must not pick a run for it."""
    return bool(name) and (run.id.startswith(name) or without_probe(run).startswith(name))


def runs_named(runs: Iterable[RunRecord], name: str) -> list[RunRecord]:
    """The runs ``name`` stands for: the one whose id, whole or without its probe, is
    ``name`` (``0663f62e`` names ``pst-text-0663f62e`` though a later run's id starts with
    it too), else every run whose id starts with it."""
    matches = [r for r in runs if named_by(r, name)]
    exact = [r for r in matches if name in (r.id, without_probe(r))]
    return exact if len(exact) == 1 else matches


def short_names(runs: Sequence[RunRecord]) -> dict[str, str]:
    """Each run's id without its probe, cut to the fewest characters (at least
    :data:`SHORTEST_NAME`) that :func:`runs_named` resolves to that run alone among ``runs``;
    a cut never ends on the ``-`` before a time stamp."""
    out: dict[str, str] = {}
    for run in runs:
        whole = without_probe(run)
        out[run.id] = next(
            (
                whole[:n]
                for n in range(SHORTEST_NAME, len(whole))
                if whole[n - 1] != "-" and runs_named(runs, whole[:n]) == [run]
            ),
            whole,
        )
    return out
