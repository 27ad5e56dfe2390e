"""A run its gates decided at look 1, bought on since (``diptych resume``, stopped part way) and
then audited again with the same ``--until-decided`` command (which decides it again on the same
looks, and stores it as decided) never reads as if it held only its look's requests: the
audit's own lines, ``diptych runs``, ``diptych show`` and ``diptych audit list`` say it was
decided at look 1 and bought on since, with what it holds now, and none says the look's
savings; every count they print is the store's."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from diptych.core.audit.record import list_audits
from diptych.core.audit.run_status import trials_asked as asked_trials
from diptych.core.audit.sequential import PartLooks
from diptych.core.digits import figure_text
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import FIGURE
from tests.support.stopped_runs import bought_on_and_audited_again, look_keys

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_a_decided_run_bought_on_then_audited_again_says_what_it_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")  # each table row on one line
    ws = str(tmp_path / "ws")
    run_id, again = bought_on_and_audited_again(capsys, ws, "-M", "latency=0.01")
    with open_store(Path(ws)) as store:
        run = store.get_run(run_id)
        answered, planned = store.requests_answered(run_id)
        counts = store.status_counts(run_id)
        (part,) = [p for a in list_audits(store) for p in a.parts]
    looks = PartLooks.of(part.detail)
    assert looks is not None and looks.last is not None and len(looks.looks) == 1
    # Decided again on the same look, with more bought since than the look read.
    assert run.status == "decided" and looks.last.bought < answered < planned
    words = (
        f"decided at look 1 of 4, bought on since: {answered} of {planned} requests stored, "
        f"{planned - answered} not bought"
    )
    look_saved = f"{planned - looks.last.bought} saved"

    # The audit run again says it, and what is still not bought, once: on the run's line, its
    # stop line only why and where it stopped, and that it bought nothing.
    assert f"run {run_id} {words} (audit " in again, again
    stop = re.search(r"^stopped: .*$", again, re.M)
    assert stop is not None and stop[0] == (
        "stopped: every gate decided in 1 of 4 batches, read from the store, nothing bought"
    ), stop[0]

    code, out = call(capsys, "--store", ws, "runs", "--json")
    (listed,) = json.loads(out)
    assert (listed["status"], listed["status_text"]) == ("decided", words)
    unbought = {"pending": 0, "not_bought": counts["pending"]}
    assert listed["counts"] == {**counts, **unbought}, listed
    code, table = call(capsys, "--store", ws, "runs")
    assert code == 0 and words in table, table

    code, shown = call(capsys, "--store", ws, "show", run_id)
    assert code == 0 and f"status {words}" in " ".join(shown.split()), shown
    trials = ", ".join(f"{'not bought' if k == 'pending' else k} {v}" for k, v in counts.items())
    assert f"trials: {trials}" in shown, shown
    # Its gated figure as its gate read it at the look, the one interval of the row; the value
    # on all its trials stored since beside it, a value only.
    with Workspace.open(ws) as opened:
        now = opened.analysis.analyze(run_id).numbers[FIGURE]
    look = looks.last.numbers[FIGURE]
    row = next(line for line in shown.splitlines() if line.startswith(f"│ {FIGURE} "))
    cells = [c.strip() for c in row.strip("│").split("│")]
    # n is the column before what the interval resamples, with its noun ("164 prompts").
    n = int(cells[-2].split()[0].replace(",", ""))
    assert (cells[1], n) == (figure_text(look["value"]), look["n"]), row
    # All its trials, those its look read and those bought after it, counted apart.
    keys = set(look_keys(Path(ws), run_id, looks.order_seed, looks.last.bought))
    with open_store(Path(ws)) as store:
        at_look = sum(1 for t in store.trials(run_id) if t.key in keys)
    every = asked_trials(counts)
    assert 0 < at_look < every, (at_look, every)
    since = (
        f"{figure_text(now['value'])} on all {every} trials, {at_look} at look 1 and "
        f"{every - at_look} stored since"
    )
    assert cells[2].endswith(f"(95% anytime-valid interval, look 1 of 4; {since})"), row
    assert len(re.findall(r"\[[^\]]*\]", cells[2])) == 1 and "fixed-design" not in row, row

    code, audits = call(capsys, "--store", ws, "audit", "list", "--json")
    ((listed_part,),) = [a["parts"] for a in json.loads(audits)]
    assert listed_part["status"] == "decided, bought on", listed_part
    # The audit and its part in the run's words, in the JSON as in the table.
    assert json.loads(audits)[0]["status_text"] == listed_part["status_text"] == words, audits
    # The table names the look that decided it and what the run holds now (the audit's
    # status; its part by name beside it), and at 60 columns wraps it between words.
    monkeypatch.setenv("COLUMNS", "200")
    code, listed = call(capsys, "--store", ws, "audit", "list")
    assert code == 0, listed
    rows = [line for line in listed.splitlines() if "run-pst-text-" in line]
    assert len(rows) == 1 and rows[0].count(words) == 1, listed
    # Nowhere "bought on" alone, as if no gate had decided it.
    assert listed.count("bought on") == listed.count("decided at look 1 of 4, bought on"), listed
    monkeypatch.setenv("COLUMNS", "60")
    code, narrow = call(capsys, "--store", ws, "audit", "list")
    assert code == 0, narrow
    assert max(len(line) for line in narrow.splitlines()) <= 60, narrow
    words = sorted(w for w in narrow.split() if w.isalpha())
    assert sorted(w for w in listed.split() if w.isalpha()) == words, narrow

    # No listing says the look's savings, nor the look's requests as all the run holds.
    for said in (again, out, table, shown):
        assert look_saved not in said and f"{looks.last.bought} of {planned} requests, " not in said


def test_its_report_keeps_the_stop_and_says_it_was_bought_on_since(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    run_id, _ = bought_on_and_audited_again(capsys, ws, "-M", "latency=0.01")
    with open_store(Path(ws)) as store:
        answered, planned = store.requests_answered(run_id)
        counts = store.status_counts(run_id)
        (part,) = [p for a in list_audits(store) for p in a.parts]
    looks = PartLooks.of(part.detail)
    assert looks is not None and looks.last is not None
    bought = looks.last.bought
    asked = counts["done"] + counts["refused"] + counts["failed"]
    history = f"The audit stopped early (every gate decided) after {bought} of {planned} requests"
    since = (
        f"at look 1 of 4; it was bought on since ({answered} of {planned} requests stored now, "
        f"{asked} trials its runs were asked); the gates below keep their reading at look 1 of "
        "4, each gate's value and interval the look's; its runs' figures (in their reports and "
        "diptych show) are read there too, each with its value on all the trials since beside "
        "it, a value only; their intervals are the anytime-valid ones of its looks"
    )
    out_dir = tmp_path / "rep"
    code, out = call(capsys, "--store", ws, "report", run_id, "-o", str(out_dir))
    assert code == 0, out
    md = (out_dir / "report.md").read_text(encoding="utf-8")
    (heading,) = [line for line in md.splitlines() if line.startswith("Release gates of audit")]
    page = (out_dir / "report.html").read_text(encoding="utf-8")
    found = re.search(r'<p class="gates-heading">(.*?)</p>', page, re.S)
    assert found is not None, page
    drawn = " ".join(html.unescape(re.sub(r"<[^>]+>", "", found[1])).split())
    for said in (heading, drawn):
        # The history kept, what holds now said in one clause, and never that every interval
        # of the report is the looks' anytime-valid one.
        assert history in said and since in said, said
        assert "; its intervals are the anytime-valid ones" not in said, said
    data = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    assert since in data["gates"]["heading"], data["gates"]["heading"]

    # audit gate says the same, and its gate line names its interval by the look it was read at.
    code, gated = call(capsys, "--store", ws, "audit", "gate", "run-pst-text")
    assert since in " ".join(gated.split()), gated
    (line,) = [g for g in gated.splitlines() if f": {FIGURE} = " in g]
    assert re.search(r"\] \(anytime-valid, look 1 of 4\); ", line), line
