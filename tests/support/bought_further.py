"""A run decided by one audit file and bought further by a second of the same design: the
looks a record's listings, ``audit gate``, ``show`` and the report must read alike: each
record its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

UNTIL = ["--until-decided", "--batches", "4", "--quiet"]

#: A priced model, a cent a request: what stopping saves is said in money too.
PRICED = {"price_per_call": 0.01}

#: Its looks' 95% anytime-valid upper bounds on the run (seed 12): 78.3 at look 1, 70.7 at
#: look 2, 67.6 at look 3. Below 72 is decided at look 2; below 69 at look 3; below 64 not by
#: then.
FIRST, SECOND, NEVER = 72, 69, 64
SEED = 12

#: 144 requests in 4 batches of 36: look 2 read 72, look 3 read 108, 36 left unbought.
AT_LOOK_3 = "decided at look 3 of 4: 108 of 144 requests, 36 saved"
#: The first file's own stop: look 2 read 72, 72 left unbought.
AT_LOOK_2 = "decided at look 2 of 4: 72 of 144 requests, 72 saved"


def gated_file(directory: Path, name: str, below: float, **extra: Any) -> str:
    """``NAME.yaml`` in ``directory``: the planted pst-text audit on the priced model, its
    figure gated below ``below``; its path."""
    gate = {"part": "pst-text", "figure": FIGURE, "below": below}
    path = directory / f"{name}.yaml"
    return str(planted_audit(path, [gate], MASC, FEM, name=name, seed=SEED, model_params=PRICED,
                             **extra))  # fmt: skip


def bought_further(capsys: pytest.CaptureFixture[str], directory: Path) -> str:
    """In ``directory`` (the working directory, its workspace ``.diptych``): ``first.yaml``
    decided at look 2 of 4, then ``second.yaml`` of the same design bought its run on to look
    3 and decided there; what the first ``audit run`` printed."""
    code, first = call(capsys, "audit", "run", gated_file(directory, "first", FIRST), *UNTIL)
    assert code == 0 and "part pst-text: decided at look 2 of 4" in first, first
    code, out = call(capsys, "audit", "run", gated_file(directory, "second", SECOND), *UNTIL)
    assert code == 0 and "part pst-text: decided at look 3 of 4" in out, out
    return first
