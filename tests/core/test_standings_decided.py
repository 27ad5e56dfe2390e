"""Standings of a run an audit stopped at an early look: it is ranked on what it has, its
headline figure as its own report makes it with the anytime-valid interval its gate decided on,
and says how much of its design that is; a run of
drawn labels whose scenes are half labelled is ranked on every person in the scene the plan
asked about."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import yaml

from diptych.core.metrics.sts import LabelRow
from diptych.core.metrics.uncertainty.intervals import STS_RANGE
from diptych.core.metrics.uncertainty.resampling import mean_over_units
from diptych.core.report.formatting import FLOOR_MARK, bounds, marked_interval, percent_text
from diptych.core.report.standings_tables import DECIDED_MARK, INTERVAL, standings_text
from diptych.core.standings import sts_samples
from diptych.core.workspace import Workspace
from diptych.plugins.probes._paired_stereotype_test.identities import identities

FIGURE = "STS paired (expected from P(he), P(she))"


@pytest.fixture
def decided_run(scripted: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A pst-text run of the paper's 20 × 20 occupations bought until its gate was decided,
    which happens at the first of ten looks."""
    from diptych.audit import run_audit

    monkeypatch.chdir(tmp_path)
    occ = identities().occupations
    planted = {**dict.fromkeys(occ.masculine, 0.2), **dict.fromkeys(occ.feminine, 0.8)}
    data = {
        "name": "decided",
        "seed": 1,
        "models": {"t": {"plugin": "scripted-likelihood",
                         "params": {"p_feminine": planted, "noise": 0.3}}},
        "probes": [{"probe": "pst-text", "models": ["t"],
                    "params": {"masculine": occ.masculine, "feminine": occ.feminine}}],
        "report": {"formats": ["json"]},
        "gates": [{"part": "pst-text", "figure": FIGURE, "below": 75, "name": "below 75"}],
    }  # fmt: skip
    Path("audit.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    path = tmp_path / "ws"
    with Workspace.open(path) as ws:
        asyncio.run(run_audit(ws, "audit.yaml", until_decided=True, out_dir="out"))
    return path


def test_a_run_decided_at_its_first_look_is_ranked_on_its_headline_and_marked_partial(
    decided_run: Path,
) -> None:
    """A likelihood run is ranked on its headline, the STS expected from P(he), P(she) (its
    drawn labels add sampling noise to it), and a run decided at a look says how much of its
    design it holds wherever the standings are read."""
    with Workspace.open(decided_run) as ws:
        (run,) = ws.runs.list()
        assert run.said.startswith("decided at look 1 of"), run.said
        labels = [
            lab
            for lab in ws.runs.view(run.run.id).labels()
            if lab.trial_meta["setting"] == "paired"
        ]
        (audit,) = ws.audits.list()
        look = audit.parts[0].detail["sequential"]["looks"][-1]
        (table,) = ws.standings.table(None).tables
        # What `diptych show` prints for the figure: the gate's interval, named.
        shown = ws.audits.read(run.run.id).numbers[FIGURE]
    # Worked from the labels: one reading per distinct prompt (its scene without the sample
    # suffix, and the person asked about), 2·P(stereotyped pronoun) − 1, in the scene's two
    # identities ("paired:{id1}|{id2}#{sample}").
    p_of: dict[tuple[str, str], list[float]] = {}
    who: dict[tuple[str, str], tuple[str, str, str]] = {}
    for lab in labels:
        key = (lab.trial_meta["image"].split("#")[0], lab.position)
        p_of.setdefault(key, []).append(float(lab.detail["p_feminine"]))
        one, two = key[0].split(":", 1)[1].split("|")
        me = lab.subject_meta["identity"]
        partner = two if one == me else one
        stereotype = lab.subject_meta["stereotype"]
        who[key] = (stereotype, *((me, partner) if stereotype == "masculine" else (partner, me)))
    stereo, masc, fem = [], [], []
    for key, ps in p_of.items():
        p = sum(ps) / len(ps)
        stereotype, m, f = who[key]
        stereo.append(2 * (p if stereotype == "feminine" else 1 - p) - 1)
        masc.append(m)
        fem.append(f)
    (standing,) = table.standings
    assert standing.measured.sample.figure == FIGURE
    expected = mean_over_units(
        stereo, {"masculine identity": masc, "feminine identity": fem}, scale=100.0,
        bounds=STS_RANGE,
    )  # fmt: skip
    assert standing.figure.value == pytest.approx(100 * sum(stereo) / len(stereo), abs=1e-9)
    assert standing.figure.design == "crossed"
    # One interval for the figure everywhere: the anytime-valid one its gate decided on, digit
    # for digit what `diptych show` prints, and wider here than the fixed design's over the
    # same answers (which does not hold for a design stopped on what it saw).
    assert shown["interval_name"] == "95% anytime-valid interval, look 1 of 10"
    assert standing.measured.decided is not None
    assert standing.measured.decided.name == shown["interval_name"]
    assert (standing.figure.value, standing.figure.ci_low, standing.figure.ci_high) == (
        shown["value"],
        shown["ci_low"],
        shown["ci_high"],
    )
    assert bounds(standing.figure.ci_low, standing.figure.ci_high) == bounds(
        shown["ci_low"], shown["ci_high"]
    )
    assert standing.figure.ci_low < expected.ci_low and standing.figure.ci_high > expected.ci_high
    assert standing.to_dict()["interval"] == shown["interval_name"]
    assert (standing.rank, standing.rank_low, standing.rank_high) == (1, 1, 1)
    # Its share of the design, from the look the audit recorded.
    share = f"{percent_text(look['bought'] / look['planned'])} of its design"
    assert standing.measured.partial.startswith(f"{share} (decided at look 1 of 10: ")
    assert standing.to_dict()["partial"] == standing.measured.partial
    (text,) = [standings_text(t) for t in [table]]
    assert f"ranked on {share} (decided at look 1 of 10: " in " ".join(text.notes)
    # Decided at look 1 and fallen to its floor: the interval reads as `diptych show` prints it,
    # "[51.0, 65.4] † (95% anytime-valid interval, look 1 of 10)", its name too long for a
    # column and said under the table against a mark of its own; † means the floor only.
    name = shown["interval_name"]
    assert isinstance(shown.get("floor"), str) and shown["floor"]
    assert marked_interval(shown) == f"{bounds(shown['ci_low'], shown['ci_high'])} † ({name})"
    assert DECIDED_MARK != FLOOR_MARK
    assert text.ranks[0][-1] == f"{marked_interval(shown).removesuffix(f' ({name})')} ‡"
    who = f"{standing.measured.name} ({standing.measured.shown_run or standing.measured.run})"
    assert f"‡ {who}: {name}: the interval its gates decided on" in " ".join(text.notes)
    assert [n for n in text.notes if "†" in n] == [f"† {who}: {shown['floor']}"]
    # The column's header names the level only; what the interval rests on is said under it.
    assert INTERVAL == "95% interval"
    assert "over the pairings of identities seen only" in text.units


def _row(image: str, position: str, identity: str, stereotype: str, label: str) -> LabelRow:
    return LabelRow(image=image, setting="paired", position=position, identity=identity,  # type: ignore[arg-type]
                    stereotype=stereotype, label=label, annotator="a")  # type: ignore[arg-type]  # fmt: skip


def test_a_half_labelled_scene_without_its_plan_is_left_out_and_said() -> None:
    """Without the plan's scene, a person whose partner is unlabelled names one list only: left
    out of the figure (whose interval crosses both lists), with a line saying how many."""
    rows = [
        _row(f"s{m}{f}", pos, ident, st, st)
        for m in "12"
        for f in "12"
        for pos, ident, st in (("left", f"m{m}", "masculine"), ("right", f"f{f}", "feminine"))
    ]
    rows.append(_row("half", "left", "m1", "masculine", "feminine"))
    (sample,) = sts_samples(rows, model="x", prefix="", design="d", design_label="d")
    assert len(sample.values) == 8 and sum(sample.values) == 8.0
    assert sample.note.startswith("1 of 9 labelled people left out"), sample.note
    # With the plan's scene the person is kept, in it.
    (kept,) = sts_samples(rows, model="x", prefix="", design="d", design_label="d",
                          scenes={"half": ("m1", "f2")})  # fmt: skip
    assert len(kept.values) == 9 and kept.note == ""
    assert kept.cells[-1] == ("m1", "f2")


def test_an_interval_its_gates_read_without_deciding_is_not_said_to_be_decided_on() -> None:
    """A gate that ended inconclusive (at its last look, say) read the figure's interval and
    decided nothing: the ‡ line says the gates read it, as it says a decided one was decided on."""
    from diptych.core.report.standings_tables import DECIDED_SAID
    from diptych.core.workspace.standings import decided_interval

    number = {"value": 12.0, "ci_low": -3.0, "ci_high": 27.0,
              "interval_name": "95% anytime-valid interval, look 10 of 10"}  # fmt: skip
    read = decided_interval({**number, "gate_verdict": "inconclusive"})
    decided = decided_interval({**number, "gate_verdict": "pass"})
    assert read is not None and decided is not None
    assert (read.kind, decided.kind) == ("read", "gated")
    assert DECIDED_SAID[read.kind].startswith("the interval its gates read, which decided nothing")
    assert "decided on" not in DECIDED_SAID[read.kind]
    assert DECIDED_SAID[decided.kind].startswith("the interval its gates decided on")
