"""The search design an identity meets: the partners of the other stereotype and the paraphrases
it meets them in, for the search and for the held-out test.

The identity search (:func:`diptych.agent.decision.measure_proposal`) and the plan of its placebo
trials (:mod:`diptych.agent.placebo.trials`) both draw from here, so the plan and the search meet
the same partners in the same paraphrases.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache
from typing import Any

from diptych.agent import _prompts_dir
from diptych.agent.paraphrases import Paraphrase, paired_paraphrases
from diptych.core.workspace import Workspace
from diptych.core.yaml_input import load_yaml

SIDES = ("masculine", "feminine")


@cache
def table7() -> dict[str, tuple[str, ...]]:
    """PST Table 7's occupations by stereotype."""
    data = load_yaml(_prompts_dir() / "pst_identities.yaml")
    return {side: tuple(data["occupations"][side]) for side in SIDES}


def partner_pool(ws: Workspace, side: str) -> list[str]:
    """Identities of stereotype ``side`` a proposed identity may meet: Table 7's, then those
    of the pairs accepted into the workspace, each once."""
    accepted = [getattr(p, side) for p in ws.lists.identities()]
    return list(dict.fromkeys([*table7()[side], *accepted]))


def choose_partners(
    ws: Workspace, exclude: Sequence[str], n: int, seed: int
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Search and held-out partners, ``n`` of each stereotype each, disjoint, drawn in a fixed
    order from the pool (the session's seed decides it) without the pair's own identities."""
    skip = {w.lower() for w in exclude}
    search: dict[str, list[str]] = {}
    held: dict[str, list[str]] = {}
    for side in SIDES:
        pool = sorted(
            (i for i in partner_pool(ws, side) if i.lower() not in skip),
            key=lambda i: hashlib.sha256(f"{seed}:{i}".encode()).hexdigest(),
        )
        search[side], held[side] = pool[:n], pool[n : 2 * n]
    return search, held


def _mode(probe_params: dict[str, Any]) -> str:
    return str(probe_params.get("mode", "likelihood"))


def templates_for(probe: str, probe_params: dict[str, Any]) -> dict[str, list[Paraphrase]]:
    """The search's and the held-out test's paraphrases of the probe's paired prompt."""
    mode = _mode(probe_params)
    return {use: paired_paraphrases(probe, mode, use) for use in ("search", "heldout")}
