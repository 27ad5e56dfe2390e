"""The STS of a pst-text run's drawn labels resamples both identity lists, the units that vary,
wherever it is read: in a run bought whole and at an audit's early look, where a scene's
second person is often not yet asked and only its plan names both of the scene's identities.
Its interval is the two-way one of the draws' ±1 scores placed in their planned scenes, never
one over the draws, which would be too narrow where identities differ."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from diptych.audit import run_audit
from diptych.core.metrics.uncertainty.intervals import STS_RANGE
from diptych.core.metrics.uncertainty.resampling import mean_over_units
from diptych.core.report.formatting import no_interval, resampled_count
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.plugins.probes.pst_text.analysis import over_identities
from tests.support.cli import call
from tests.support.sequential_audits import FIGURE, planted_audit

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer", "driver", "sheriff"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher", "baker", "clerk"]
#: Identities far apart: some masculine-stereotyped ones get " she" nearly always, some never
#: (and the feminine list alike), so the identities, not the draws, carry the spread.
SPREAD = {
    **dict(zip(MASC, [0.02, 0.9, 0.05, 0.8, 0.1, 0.95, 0.03, 0.7], strict=True)),
    **dict(zip(FEM, [0.98, 0.1, 0.95, 0.2, 0.9, 0.05, 0.97, 0.3], strict=True)),
}
DRAWN = "STS paired (drawn labels)"


def _planted_by_hand(store: Path, run_id: str) -> tuple[dict[str, Any], int]:
    """The figure worked out from the stored labels alone: each drawn label scored +1 where it
    is the stereotyped gender, −1 otherwise, placed in the scene its trial planned (the
    masculine and the feminine identity of ``id1``/``id2``), and the mean's interval over
    both lists; and the number of draws (scenes in one order, one sample) labelled."""
    values: list[float] = []
    masc: list[str] = []
    fem: list[str] = []
    draws = set()
    with open_store(store) as db:
        for lab in db.labels(run_id):
            meta = lab.trial_meta
            assert meta["setting"] == "paired"
            values.append(1.0 if lab.label == lab.subject_meta["stereotype"] else -1.0)
            scene = (meta["id1"], meta["id2"])
            masc.append(next(i for i in scene if i in MASC))
            fem.append(next(i for i in scene if i in FEM))
            draws.add(meta["image"])
    figure = mean_over_units(
        values,
        {"masculine identity": masc, "feminine identity": fem},
        scale=100.0,
        bounds=STS_RANGE,
    )
    return figure.to_dict(), len(draws)


def _audit(tmp_path: Path, *, until_decided: bool) -> tuple[Path, str]:
    gate = {"part": "pst-text", "figure": FIGURE, "below": 95, "name": "far"}
    path = planted_audit(tmp_path / "a.yaml", [gate], MASC, FEM, name="spread", seed=11,
                         model_params={"p_feminine": SPREAD, "noise": 0.02, "max_concurrency": 1},
                         report={"formats": ["md", "json"]})  # fmt: skip
    store = tmp_path / "ws"
    with Workspace.open(store) as ws:
        outcome = asyncio.run(
            run_audit(ws, path, out_dir=tmp_path / "rep", until_decided=until_decided, batches=4)
        )
        (part,) = outcome.parts
    return store, part.run_id or ""


@pytest.mark.usefixtures("scripted")
@pytest.mark.parametrize("until_decided", [True, False], ids=["early look", "bought whole"])
def test_drawn_labels_resample_both_identity_lists(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    until_decided: bool,
) -> None:
    monkeypatch.setenv("COLUMNS", "240")  # each table row on one line
    store, run_id = _audit(tmp_path, until_decided=until_decided)
    expected, n_draws = _planted_by_hand(store, run_id)
    with Workspace.open(store) as ws:
        fixed = ws.analysis.analyze(run_id).numbers[DRAWN]
        shown = ws.audits.read(run_id).numbers[DRAWN]
    if until_decided:
        # The look the gate stopped at has scenes of which one person only is labelled.
        assert fixed["n"] < 2 * n_draws, (fixed["n"], n_draws)
    else:
        assert fixed["n"] == 2 * n_draws == 2 * 2 * len(MASC) * len(FEM)
    lists = {"masculine identity": len(MASC), "feminine identity": len(FEM)}
    assert expected["units"] == lists
    assert fixed["units"] == lists and shown["units"] == lists
    assert fixed["value"] == pytest.approx(expected["value"])
    assert (fixed["ci_low"], fixed["ci_high"]) == pytest.approx(
        (expected["ci_low"], expected["ci_high"])
    )
    # The identities differ far more than a scene's draws: over the draws alone (kept beside
    # it, for these identities only) the interval is much narrower.
    alone = fixed["scenes_only"]
    assert alone["units"] == {"draw": n_draws}
    assert alone["ci_high"] - alone["ci_low"] < 0.7 * (fixed["ci_high"] - fixed["ci_low"])

    # Every surface names the two lists, never the draws.
    counted = f"{len(MASC)} + {len(FEM)} identities"
    data = json.loads((tmp_path / "rep" / "report.json").read_text(encoding="utf-8"))
    (run,) = data["runs"]
    assert run["result"]["numbers"][DRAWN]["units"] == lists
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    crossed = f"{len(MASC)} masculine × {len(FEM)} feminine identities crossed in scenes"
    (said,) = [ln for ln in md.splitlines() if ln.startswith(f"- {DRAWN}: ")]
    assert said.startswith(f"- {DRAWN}: {crossed} — "), said
    assert "draws resampled" not in md
    code, out = call(capsys, "--store", str(store), "show", run_id)
    assert code == 0, out
    (line,) = [ln for ln in out.splitlines() if ln.startswith(f"│ {DRAWN} ") or f" {DRAWN} │" in ln]
    assert counted in line and " draws" not in line, line


def test_draws_that_do_not_name_both_identities_give_no_interval_said_why() -> None:
    """Labels whose draws do not name their scenes' two identities cannot be resampled over
    identities: the figure keeps its value, has no interval and says why, and the interval
    over draws stays beside it for these identities only, never in its place."""
    by_draws = {"value": 12.5, "ci_low": 3.0, "ci_high": 22.0, "p_value": 0.01, "n": 64,
                "units": {"draw": 57}, "design": "clustered"}  # fmt: skip
    figure = over_identities(None, by_draws)
    assert (figure["value"], figure["n"], figure["clusters"]) == (12.5, 64, 57)
    assert (figure["ci_low"], figure["ci_high"], figure["p_value"]) == (None, None, 1.0)
    assert "units" not in figure
    assert no_interval(figure) == (
        "no interval (its draws do not name both identities of their scenes)"
    )
    assert resampled_count(figure) == "—"
    assert figure["scenes_only"]["units"] == {"draw": 57}
    assert figure["scenes_only"]["resampled"] == "draws (these identities only)"
