"""A look of an audit bought until decided reads the requests of the batches bought by then and
no others: answers an unrelated earlier run stored for requests of later batches are reused
when their batch comes (never asked again), but neither count into an earlier look's figure nor
its ``bought``, nor make the audit skip a batch. The looks and their verdicts are then the same
whatever an earlier run happened to store."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from diptych.audit import run_audit
from diptych.audit.runner import AuditOutcome
from diptych.core.audit.sequential import Look, PartLooks, bought_words
from diptych.core.cost import LOCAL, Cost
from diptych.core.engine.purchase import batch_size, purchase_order
from diptych.core.workspace import Workspace
from tests.support.sequential_audits import FIGURE, planted_audit

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer", "driver", "sheriff"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher", "baker", "clerk"]
#: 8 × 8 scenes, both orders, both people: 256 distinct prompts in 4 batches of 64.
REQUESTS = 256
BATCHES = 4
#: A limit the planted figure (near 60) is not decided against at the first look, so that the
#: audit takes several looks.
GATE = {"part": "pst-text", "figure": FIGURE, "below": 65}


def _asked(calls: Path) -> list[str]:
    lines = calls.read_text(encoding="utf-8").splitlines() if calls.exists() else []
    return [json.loads(line)["text"] for line in lines]


def _audit(path: Path, calls: Path, masc: list[str], fem: list[str], name: str) -> Path:
    # Every identity planted in both audits: the same model, so the same requests share answers.
    planted = {**{m: 0.2 for m in MASC}, **{f: 0.8 for f in FEM}}
    model = {"calls_log": str(calls), "max_concurrency": 1, "p_feminine": planted}
    return planted_audit(path, [GATE], masc, fem, name=name, seed=11, model_params=model)


def _until_decided(
    ws: Workspace, path: Path, seen: list[tuple[int, str, float | None]]
) -> AuditOutcome:
    return asyncio.run(
        run_audit(
            ws, path, out_dir=ws.path.parent / "rep", until_decided=True, batches=BATCHES,
            on_look=lambda k, n, r: seen.append((k, r.results[0].verdict, r.results[0].ci_high)),
        )
    )  # fmt: skip


def _figures(look: Look) -> tuple[int, int, float, float]:
    number = look.numbers[FIGURE]
    return look.batch, look.bought, number["value"], number["se"]


def _bought(
    directory: Path, prior: tuple[list[str], list[str]] | None
) -> tuple[AuditOutcome, list[tuple[int, str, float | None]], Workspace, list[str], list[str]]:
    """The audit of all identities bought until decided in a workspace of its own, after
    ``prior``'s identities were run whole there by an audit of their own (None: nothing
    stored before); the outcome, each look's verdict, the workspace (closed), the prompts the
    prior run asked and those the audit asked."""
    calls = directory / "calls.jsonl"
    seen: list[tuple[int, str, float | None]] = []
    with Workspace.open(directory / "ws") as ws:
        if prior is not None:
            first = _audit(directory / "prior.yaml", calls, *prior, name="prior")
            asyncio.run(run_audit(ws, first, out_dir=directory / "prior-rep"))
        before = _asked(calls)
        outcome = _until_decided(ws, _audit(directory / "a.yaml", calls, MASC, FEM, "seq"), seen)
    return outcome, seen, ws, before, _asked(calls)[len(before) :]


def _order(directory: Path, looks: PartLooks, run_id: str) -> list[str]:
    """The prompts of the audit's run in the order its seed fixes."""
    with Workspace.open(directory / "ws") as ws:
        prompt_of = {t.key: t.payload["prompt"] for t in ws.runs.view(run_id).trials}
    return [prompt_of[k] for k in purchase_order(list(prompt_of), looks.order_seed)]


def _looks(outcome: AuditOutcome) -> PartLooks:
    (part,) = outcome.parts
    looks = PartLooks.of(part.detail)
    assert looks is not None
    return looks


def test_answers_stored_for_later_batches_change_no_look(tmp_path: Path) -> None:
    (tmp_path / "fresh").mkdir()
    (tmp_path / "stored").mkdir()
    fresh, fresh_seen, *_ = _bought(tmp_path / "fresh", None)
    # An unrelated audit of 4 × 4 of the identities stored 64 of the design's answers,
    # scattered over its four batches.
    stored, stored_seen, _, prior, asked = _bought(tmp_path / "stored", (MASC[:4], FEM[:4]))
    assert len(prior) == 64
    fresh_looks, stored_looks = _looks(fresh), _looks(stored)
    assert len(fresh_looks.looks) >= 2, "the gate must take more than one look"
    # Each look read exactly the batches bought by then: 64 requests a batch.
    assert [look.bought for look in stored_looks.looks] == [
        64 * k for k in range(1, len(stored_looks.looks) + 1)
    ]
    # The same looks, figure for figure, and the same verdict at each.
    assert [_figures(look) for look in stored_looks.looks] == [
        _figures(look) for look in fresh_looks.looks
    ]
    assert stored_seen == fresh_seen
    assert stored.status == fresh.status
    # The stored answers were reused, never asked again: the audit asked the requests of the
    # batches it read less those the prior audit had stored.
    order = _order(tmp_path / "stored", stored_looks, stored.parts[0].run_id or "")
    read = order[: batch_size(REQUESTS, len(stored_looks.looks) / BATCHES)]
    assert not set(asked) & set(prior)
    assert sorted(asked) == sorted(set(read) - set(prior))
    reused = len(set(read) & set(prior))
    assert 0 < reused < 64 and len(asked) == stored_looks.looks[-1].bought - reused
    # So the stop line's words hold: of the requests read, those asked now, the rest stored.
    now = Cost(0.0, unpriced=len(asked), local=len(asked), kinds=frozenset({LOCAL}))
    last = stored_looks.looks[-1]
    assert bought_words(last.bought, REQUESTS, now) == (
        f"bought {last.bought} of {REQUESTS} requests ({100 * last.bought / REQUESTS:.1f}%), "
        f"{len(asked)} of them now, the rest read from the store"
    )


def test_answers_stored_for_later_batches_skip_no_batch(tmp_path: Path) -> None:
    # 6 × 6 of the identities stored: 144 of the 256 answers, about 108 of them beyond the
    # first batch — counted into look 1, they would put it past the end of batch 2.
    stored, seen, _, prior, asked = _bought(tmp_path, (MASC[:6], FEM[:6]))
    looks = _looks(stored)
    assert [look.batch for look in looks.looks] == list(range(1, len(looks.looks) + 1))
    assert [look.bought for look in looks.looks] == [64 * k for k in range(1, len(looks.looks) + 1)]
    assert [k for k, *_ in seen] == list(range(1, len(looks.looks) + 1))
    order = _order(tmp_path, looks, stored.parts[0].run_id or "")
    beyond = set(order[64:]) & set(prior)
    assert len(beyond) > 64, "the stored answers beyond batch 1 must outnumber a batch"
    # Every look after the first still had a batch to buy: what it read, no more.
    held = [look.held for look in looks.looks]
    assert held[0] == 64 + len(beyond)
    assert not set(asked) & set(prior)
