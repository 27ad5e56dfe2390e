"""A pst-text run names its own unit: its figures, report.json and agreement sentence resample
draws (one scene in one order, labels drawn once), never images."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from diptych.core.engine import run_probe
from diptych.core.labels.record import Label
from diptych.core.metrics.agreement.tables import agreement_report_tables
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.testing import ScriptedLikelihood, ScriptedParams


class HalfAndHalf(ScriptedLikelihood):
    """P(she) = 0.5 for every person: the drawn labels vary, so every interval is made."""

    def __init__(self) -> None:
        super().__init__(ScriptedParams())

    async def next_token_logprobs(self, prompt: str, candidates: Any) -> dict[str, float]:
        self.calls += 1
        return {" he": -1.0, " she": -1.0}


def _units_and_populations(node: Any) -> list[str]:
    """Every unit key and population sentence anywhere in ``node``."""
    if isinstance(node, dict):
        found = (
            [str(k) for k in node.get("units") or {}] if isinstance(node.get("units"), dict) else []
        )
        found += [node["population"]] if isinstance(node.get("population"), str) else []
        return found + [x for v in node.values() for x in _units_and_populations(v)]
    if isinstance(node, list):
        return [x for v in node for x in _units_and_populations(v)]
    return []


def test_a_text_run_resamples_draws_never_images(tmp_path: Path) -> None:
    ws_path = tmp_path / "ws"
    with open_store(ws_path) as store:
        run = run_probe(
            store,
            "pst-text",
            [HalfAndHalf()],
            probe_params={"masculine": ["carpenter", "sheriff"], "feminine": ["nurse", "editor"]},
        )
        # A reviewer agrees with every label the probe drew: the run has two annotators.
        store.save_annotations(
            (lab.subject_id, "human:alice", Label(lab.position, lab.label))
            for lab in store.labels(run.id)
        )
    with Workspace.open(ws_path) as ws:
        result = ws.analysis.analyze(run.id)
        said = _units_and_populations([result.numbers, result.data])
        assert "draw" in said
        assert not [s for s in said if re.search(r"\bimages?\b", s)], said

        agreement = ws.annotators.agreement(run.id, n_boot=50, seed=1)
        assert agreement.unit == "draw"
        assert agreement.to_dict()["bootstrap"]["resamples"] == "draws"
        notes = " ".join(t.note or "" for t in agreement_report_tables(agreement))
        assert "percentile bootstrap over draws" in notes
        assert "over images" not in notes

        # The report as written (its text checks run on it when the test ends, JSON included).
        out = tmp_path / "report"
        ws.analysis.report([run.id], out, formats=["md", "html", "json"])
        data = json.loads((out / "report.json").read_text(encoding="utf-8"))
        assert not [s for s in _units_and_populations(data) if re.search(r"\bimages?\b", s)]
        assert "bootstrap over draws" in (out / "report.md").read_text(encoding="utf-8")


def test_a_reviewer_who_began_leaves_the_rest_said_automatic_only(tmp_path: Path) -> None:
    ws_path = tmp_path / "ws"
    with open_store(ws_path) as store:
        run = run_probe(
            store,
            "pst-text",
            [HalfAndHalf()],
            probe_params={"masculine": ["carpenter", "sheriff"], "feminine": ["nurse", "editor"]},
        )
        labels = store.labels(run.id)
        # One person labelled by a reviewer: every other still rests on the model's own label.
        first = labels[0]
        store.save_annotations(
            [(first.subject_id, "human:alice", Label(first.position, "masculine"))]
        )
    total = len({lab.subject_id for lab in labels})
    with Workspace.open(ws_path) as ws:
        out = tmp_path / "report"
        ws.analysis.report([run.id], out, formats=["json"])
    actions = json.loads((out / "report.json").read_text(encoding="utf-8"))["actions"]
    said = " ".join(a["text"] for a in actions if a["kind"] == "not measured")
    assert (
        f"Annotator error: {total - 1:,} of {total:,} labels of pst-text are automatic only" in said
    )


def test_where_the_bias_is_largest_and_the_micro_table_name_their_intervals(
    tmp_path: Path,
) -> None:
    planted = {"carpenter": 0.05, "sheriff": 0.2, "nurse": 0.9, "editor": 0.7}
    model = ScriptedLikelihood(ScriptedParams(p_feminine=planted, noise=0.3))
    ws_path = tmp_path / "ws"
    with open_store(ws_path) as store:
        run = run_probe(store, "pst-text", [model], probe_params={
            "masculine": ["carpenter", "sheriff"], "feminine": ["nurse", "editor"]})  # fmt: skip
    with Workspace.open(ws_path) as ws:
        result = ws.analysis.analyze(run.id)
        out = tmp_path / "report"
        ws.analysis.report([run.id], out, formats=["json"])
    # The per-identity table's interval says what it resamples, as the others' do.
    micro = [t for t in result.tables if t.title.startswith("Micro STS per identity")]
    assert micro and all("paired 95% CI resamples" in (t.note or "") for t in micro)
    # "Where the bias is largest" names the intervals it lists, as its chart does.
    actions = json.loads((out / "report.json").read_text(encoding="utf-8"))["actions"]
    (largest,) = [a["text"] for a in actions if a["kind"] == "largest"]
    assert re.search(r"\] \(95% intervals over the identity's partners", largest), largest
