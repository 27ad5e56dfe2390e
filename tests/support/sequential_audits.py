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
