"""``diptych audit run`` closes with what it spent in the estimate's words: dollars only for
the requests that have a price, "not priced" for the rest, and the requests answered (the
probe's, one for all the trials that ask the same, and its agent searches' with their agent's
calls) in their unit; rerun, a part finished before is named by its run or its session, never
"None"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diptych.core.store import open_store
from tests.support.cli import call
from tests.support.searched_audits import searched_audit


def _audit(price: str) -> str:
    """The audit of a paired part of three samples a pair and an identity search, each model
    at ``price`` (its ``params`` words, or none)."""
    models = (
        f"  target: {{plugin: scripted-likelihood{price}}}\n"
        f"  agent: {{plugin: scripted-chat{price}}}\n"
    )
    return searched_audit("spend-words", models, params="      samples_paired: 3\n")


PRICE = ", params: {price_per_call: 0.01}"

CLOSING = re.compile(
    r"^audit \S+ complete: cost (.+); ([\d,]+) requests answered now and ([\d,]+) agent "
    r"calls?; report ",
    re.M,
)
#: Run again with every part finished: it asks nothing, and says what its runs hold apart, and
#: the search's agent calls, which no run holds.
AGAIN = re.compile(
    r"^audit \S+ complete: none answered now; the runs hold ([\d,]+) answered requests, "
    r"the agent's calls ([\d,]+) more, cost (.+); report ",
    re.M,
)


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], *, priced: bool) -> tuple[str, ...]:
    from diptych.agent import session
    from diptych.agent.memory import HashingEmbedder

    file = tmp_path / "audit.yaml"
    price = PRICE if priced else ""
    file.write_text(_audit(price), encoding="utf-8")
    ws = str(tmp_path / "ws")
    command = ("--store", ws, "audit", "run", str(file), "--out", str(tmp_path / "r"), "--quiet")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COLUMNS", "200")  # a line read whole, as a terminal this wide shows it
        mp.setattr(session, "SentenceEmbedder", HashingEmbedder)
        code, out = call(capsys, *command)
        assert code == 0, out
        code, again = call(capsys, *command)
    assert code == 0, again
    return ws, out, again


def _requests(ws: str) -> tuple[int, int]:
    """The distinct requests the audit's probe run answered, and those of every run (the
    search's too)."""
    with open_store(Path(ws)) as store:
        runs = [r.id for r in store.list_runs()]
        probe = [r for r in runs if store.get_run(r).params.get("samples_paired") == 3]
        answered = {r: store.requests_answered(r)[0] for r in runs}
    (probe_run,) = probe
    return answered[probe_run], sum(answered.values())


@pytest.mark.usefixtures("scripted")
def test_a_priced_audit_says_its_dollars_and_every_request_it_ran(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws, out, again = _run(tmp_path, capsys, priced=True)
    found = CLOSING.search(out)
    assert found is not None, out
    cost, requests, calls = found[1], int(found[2].replace(",", "")), int(found[3])
    probe, runs = _requests(ws)
    # Three samples of a likelihood ask one request: the probe's requests, not its trials;
    # the search adds its runs' requests, and its agent's one call is said apart.
    assert probe < runs and (requests, calls) == (runs, 1), (probe, runs, out)
    assert cost == f"${(requests + calls) / 100:.2f}", out
    held = AGAIN.search(again)
    assert held is not None and "answered now" not in again.replace("none answered now", ""), again
    assert (int(held[1].replace(",", "")), int(held[2]), held[3]) == (runs, 1, cost), again
    assert "None" not in again, again
    assert re.search(r"^part identities: finished before \(session audit-\S+\), reused$",
                     again, re.M), again  # fmt: skip


@pytest.mark.usefixtures("scripted")
def test_an_unpriced_audit_says_not_priced_and_every_request_it_ran(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws, out, again = _run(tmp_path, capsys, priced=False)
    found = CLOSING.search(out)
    assert found is not None, out
    probe, runs = _requests(ws)
    assert found[1] == "not priced" and "$" not in out, out
    assert (int(found[2].replace(",", "")), int(found[3])) == (runs, 1), (probe, runs, out)
    assert "None" not in again, again
