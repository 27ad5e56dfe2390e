"""A decided run bought on (``diptych resume RUN --yes``, a plain run of its design, a resume of
that buy-on stopped part way) is bought in the random order its audit's seed fixed over the
design's distinct requests, the order its looks drew from: stopped part way, it holds a random
part of its design, never the plan's first identities (docs/gates.md, *Buying on*)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from diptych.audit import run_audit
from diptych.core.audit.sequential import PartLooks
from diptych.core.engine import RunOptions
from diptych.core.workspace import Workspace
from diptych.testing.drills.kills import kill_after, scripted_cli
from tests.support.cli import call
from tests.support.sequential_audits import FIGURE, planted_audit

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer", "driver", "sheriff"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher", "baker", "clerk"]
#: 8 × 8 scenes, both orders, both people: 256 distinct prompts, bought in 4 batches of 64.
REQUESTS, BATCHES, LOOKED = 256, 4, 64
#: USD a call: a resume's ``--max-cost`` stops it after a known number of requests.
PRICE = 0.001


def _audit(
    tmp_path: Path, seed: int, planted: dict[str, float] | None = None, name: str = "a"
) -> tuple[Path, Path]:
    """The audit file (its gate far from the figure: decided at look 1) and its calls' log."""
    calls = tmp_path / f"{name}-calls.jsonl"
    params = {"calls_log": str(calls), "max_concurrency": 1, "price_per_call": PRICE}
    if planted is not None:
        params["p_feminine"] = planted  # type: ignore[assignment]
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    path = planted_audit(tmp_path / f"{name}.yaml", gates, MASC, FEM, name="order", seed=seed,
                         model_params=params)  # fmt: skip
    return path, calls


def _decided(ws: Workspace, path: Path) -> tuple[str, PartLooks]:
    """Buy the audit until decided: its run's id and looks (decided at look 1 of 4)."""
    outcome = asyncio.run(
        run_audit(ws, path, until_decided=True, batches=BATCHES, out_dir=ws.path.parent / "rep")
    )
    (part,) = outcome.parts
    looks = PartLooks.of(part.detail)
    assert outcome.status == "decided" and part.run_id is not None and looks is not None
    assert [look.bought for look in looks.looks] == [LOOKED]
    return part.run_id, looks


def _permutation(ws: Workspace, run_id: str, seed: int) -> list[str]:
    """The design's distinct requests in the order the seed fixes, worked out here: each
    request's rank is the sha256 of the seed and its key (docs/gates.md)."""
    keys = {t.key for t in ws.runs.view(run_id).trials}
    return sorted(keys, key=lambda k: hashlib.sha256(f"{seed}:{k}".encode()).hexdigest())


def _plan_order(ws: Workspace, run_id: str) -> list[str]:
    """The design's distinct requests in plan order (the first identities first)."""
    return list(dict.fromkeys(t.key for t in ws.runs.view(run_id).trials))


def _held(ws: Workspace, run_id: str) -> set[str]:
    return {k for k, r in ws.runs.view(run_id).results.items() if r.status != "failed"}


def _prompts(ws: Workspace, run_id: str) -> dict[str, str]:
    return {t.key: t.payload["prompt"] for t in ws.runs.view(run_id).trials}


def _asked(calls: Path) -> list[str]:
    lines = calls.read_text(encoding="utf-8").splitlines() if calls.exists() else []
    return [json.loads(line)["text"] for line in lines]


def _bought_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, seed: int, n: int, name: str = "a"
) -> tuple[set[str], list[str], list[str], list[str]]:
    """A run decided at look 1 of 4 on ``seed``, bought on with ``diptych resume RUN --yes``
    until ``--max-cost`` stops it after ``n`` requests: what it holds, the requests in the
    seed's order and in plan order, and the prompts the resume asked, in order."""
    path, calls = _audit(tmp_path, seed, name=name)
    where = tmp_path / f"{name}-ws"
    with Workspace.open(where) as ws:
        run_id, looks = _decided(ws, path)
        assert looks.order_seed == seed
    before = len(_asked(calls))
    code, out = call(capsys, "--store", str(where), "resume", run_id, "--yes", "--concurrency",
                     "1", "--max-cost", f"{(n + 0.5) * PRICE:.6f}")  # fmt: skip
    # Stopped by the cost cap after n requests, the rest left for a later resume.
    assert (
        code == 1
        and f"over-budget: {REQUESTS} trials ({LOOKED + n} done, {REQUESTS - LOOKED - n} pending)"
        in out
    )
    # The line that says what the resume buys stays true: the rest of the design.
    rest = REQUESTS - LOOKED
    assert f"Resuming buys the remaining {rest:,}\u00a0requests ({rest:,}\u00a0trials)" in out, out
    with Workspace.open(where) as ws:
        held = _held(ws, run_id)
        order = _permutation(ws, run_id, seed)
        planned = _plan_order(ws, run_id)
    return held, order, planned, _asked(calls)[before:]


def test_a_decided_run_bought_on_part_way_holds_the_first_of_its_seeded_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    n = 40
    held, order, planned, asked = _bought_on(capsys, tmp_path, 11, n)
    # The look's 64 requests and the next 40 of the same order: a prefix of the permutation.
    assert len(held) == LOOKED + n
    assert held == set(order[: LOOKED + n])
    # Not what plan order buys on: the look's requests and the plan's first 40 of the rest.
    looked = set(order[:LOOKED])
    in_plan = looked | set([k for k in planned if k not in looked][:n])
    assert held != in_plan
    assert len(asked) == n
    # The same seed holds the same requests; another seed other ones.
    again, *_ = _bought_on(capsys, tmp_path, 11, n, name="b")
    other, other_order, *_ = _bought_on(capsys, tmp_path, 12, n, name="c")
    assert again == held
    assert other == set(other_order[: LOOKED + n]) and other != held


#: The effect lies with the plan's first identities: the first four masculine identities are
#: given "he" (P(she) 0.2), the last four "she" (0.8), the feminine ones either at even odds;
#: the whole design's figure is near 0, the plan's first half of it far above.
BY_POSITION = {**{m: 0.2 for m in MASC[:4]}, **{m: 0.8 for m in MASC[4:]}}


def _these_identities(number: dict[str, Any]) -> tuple[float, float, float]:
    """The figure and its interval for these identities (scenes resampled): the whole design
    is these identities, so a random part of it should hold the whole design's value."""
    scenes = number["scenes_only"]
    return number["value"], scenes["ci_low"], scenes["ci_high"]


def _part_way(tmp_path: Path, n: int) -> tuple[tuple[float, float, float], float]:
    """The planted design decided at look 1, bought on ``n`` more requests (a cost cap stops
    the resume): the figure then, and the whole design's once the rest is bought."""
    tmp_path.mkdir()
    path, _ = _audit(tmp_path, 11, BY_POSITION)
    with Workspace.open(tmp_path / "ws") as ws:
        run_id, _ = _decided(ws, path)
        capped = RunOptions(concurrency=1, max_cost=(n + 0.5) * PRICE)
        assert ws.runs.resume_sync(run_id, options=capped).status == "over-budget"
        part = _these_identities(ws.analysis.analyze(run_id).numbers[FIGURE])
        assert ws.runs.resume_sync(run_id).status == "complete"
        whole = ws.analysis.analyze(run_id).numbers[FIGURE]["value"]
    return part, whole


def test_a_part_way_buy_on_reads_near_the_whole_design_where_plan_order_would_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Half the rest bought on: 64 + 96 of 256 requests.
    (value, low, high), whole = _part_way(tmp_path / "seeded", 96)
    assert abs(whole) < 2.0  # the planted effects cancel over the whole design
    assert low <= whole <= high and abs(value - whole) < 5.0
    # Bought on in plan order (no seed for the order: what a resume did before), the same
    # part-way buy-on holds the first identities' requests, and its figure is far off.
    import diptych.core.engine.runs as engine

    monkeypatch.setattr(engine, "purchase_seed", lambda store, run_id: None)
    (value, low, high), whole_again = _part_way(tmp_path / "planned", 96)
    assert whole_again == pytest.approx(whole)
    assert not low <= whole <= high and value - whole > 10.0


def test_a_buy_on_killed_and_resumed_continues_the_order_and_asks_nothing_twice(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path, calls = _audit(tmp_path, 11)
    where = tmp_path / "ws"
    with Workspace.open(where) as ws:
        run_id, _ = _decided(ws, path)
        order = _permutation(ws, run_id, 11)
        prompt = _prompts(ws, run_id)
    before = len(_asked(calls))
    # `diptych resume RUN --yes`, killed (SIGKILL) once it has asked 30 more requests.
    proc = subprocess.Popen(scripted_cli(where, "resume", run_id, "--yes", "--concurrency", "1"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    kill_after(proc, calls, before + 30)
    assert proc.returncode == -signal.SIGKILL
    with Workspace.open(where) as ws:
        kept = _held(ws, run_id)
    m = len(kept) - LOOKED
    assert 0 < m < REQUESTS - LOOKED
    # What the kill left is a prefix of the seeded order too.
    assert kept == set(order[: LOOKED + m])
    seen = len(_asked(calls))
    # A plain resume of the interrupted buy-on, stopped by a cost cap after 40 more.
    code, out = call(capsys, "--store", str(where), "resume", run_id, "--yes", "--concurrency",
                     "1", "--max-cost", f"{40.5 * PRICE:.6f}")  # fmt: skip
    assert code == 1 and re.search(
        rf"over-budget: [\d,]+ trials \({LOOKED + m + 40} done[,)]", out
    ), out
    with Workspace.open(where) as ws:
        assert _held(ws, run_id) == set(order[: LOOKED + m + 40])
    # It asked the next 40 of the same order, in that order, none stored before the kill.
    asked = _asked(calls)[seen:]
    assert asked == [prompt[k] for k in order[LOOKED + m : LOOKED + m + 40]]
    stored = {prompt[k] for k in kept}
    assert set(asked) & stored == set()
    # Over the whole buy-on, a request was asked twice only if the kill caught it in flight
    # (one at a time: at most one), and it was not stored then.
    bought_on = _asked(calls)[before:]
    twice = {p for p in bought_on if bought_on.count(p) > 1}
    assert len(twice) <= 1 and twice & stored == set()


def test_a_run_killed_in_its_first_batch_is_resumed_and_run_on_in_its_seeded_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path, calls = _audit(tmp_path, 11)
    where = tmp_path / "ws"
    # `audit run --until-decided`, killed (SIGKILL) before its first look: 20 of 64 asked.
    args = ("audit", "run", str(path), "--until-decided", "--batches", str(BATCHES), "--quiet",
            "--out", str(tmp_path / "rep"))  # fmt: skip
    proc = subprocess.Popen(scripted_cli(where, *args), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    kill_after(proc, calls, 20)
    assert proc.returncode == -signal.SIGKILL
    with Workspace.open(where) as ws:
        ((summary,),) = [ws.runs.list()]
        run_id = summary.run.id
        order = _permutation(ws, run_id, 11)
        kept = len(_held(ws, run_id))
        assert 0 < kept < LOOKED
    # `diptych resume RUN --yes` of it (its audit buys it batch by batch, so a resume asks
    # before it buys the whole design), stopped by a cost cap after 30 more requests.
    code, out = call(capsys, "--store", str(where), "resume", run_id, "--yes", "--concurrency", "1",
                     "--max-cost", f"{30.5 * PRICE:.6f}")  # fmt: skip
    assert code == 1 and re.search(rf"over-budget: [\d,]+ trials \({kept + 30} done[,)]", out), out
    with Workspace.open(where) as ws:
        assert _held(ws, run_id) == set(order[: kept + 30])
        # A plain run of its design (found by its fingerprint) goes on in the same order.
        run = ws.runs.get(run_id)
        models = [(m["name"], m["params"]) for m in run.models]
        capped = RunOptions(concurrency=1, max_cost=50.5 * PRICE)
        again = ws.runs.run_sync(run.probe, models, params=run.params, options=capped)
        assert again.id == run_id
        assert _held(ws, run_id) == set(order[: kept + 80])
