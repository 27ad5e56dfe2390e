"""An audit file of one paired ``pst-text`` part on the scripted likelihood model, with a planted
bias: the audits the ``--until-decided`` tests buy batch by batch."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

#: The figure their gates read.
FIGURE = "STS paired (expected from P(he), P(she))"


def planted_audit(
    path: Path,
    gates: list[dict[str, Any]],
    masculine: Sequence[str],
    feminine: Sequence[str],
    *,
    name: str,
    seed: int,
    model_params: dict[str, Any] | None = None,
    **extra: Any,
) -> Path:
    """Write the audit to ``path``. Masculine-stereotyped identities get P(she) near 0.2,
    feminine ones near 0.8 (noise ±0.3 a prompt): a paired expected STS near 60."""
    planted = {**{m: 0.2 for m in masculine}, **{f: 0.8 for f in feminine}}
    params = {"p_feminine": planted, "noise": 0.3, **(model_params or {})}
    data = {
        "name": name,
        "seed": seed,
        "models": {"target": {"plugin": "scripted-likelihood", "params": params}},
        "probes": [
            {
                "probe": "pst-text",
                "models": ["target"],
                "params": {
                    "masculine": list(masculine),
                    "feminine": list(feminine),
                    "setting": "paired",
                },
            }
        ],
        "report": {"formats": ["json"]},
        "gates": gates,
        **extra,
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


#: Six identities a list: a null pst-text design its gate on FIGURE decides at the first look.
MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
LISTS = ["-p", "masculine=" + ",".join(MASC), "-p", "feminine=" + ",".join(FEM)]


def design(*model: str) -> list[str]:
    """``diptych run``'s words for the null design of :data:`LISTS` on the scripted model."""
    return ["pst-text", "-m", "scripted-likelihood", *model, "-p", "setting=both", *LISTS]


def until_decided(*model: str) -> list[str]:
    """``diptych run``'s words that buy :func:`design` until its gate is decided (4 batches)."""
    return ["run", *design(*model), "--gate", f"{FIGURE} below 60", "--until-decided",
            "--batches", "4"]  # fmt: skip


def decided_at_first_look(capsys: Any, ws: str, *model: str) -> str:
    """Run the null design of :data:`LISTS` on the scripted model (with ``model``'s ``-M``
    words) until its gate is decided (at look 1 of 4, no bias planted); the run's id."""
    import re

    from tests.support.cli import call

    code, out = call(capsys, "--store", ws, *until_decided(*model))
    assert code == 0, out
    said = re.search(r"^run (\S+) decided at look 1 of 4: ", out, re.M)
    assert said is not None, out
    return said[1]
