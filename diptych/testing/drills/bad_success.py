"""The bad-success drill: a service that answers 200 with something that cannot be used.

Every such answer is billed by a real service. The run must store each as a paid failure with
its reason and count, buy answers again only within the allowance of paid retries it was given
(in the run, by a resume that was given none, and by a resume given some on purpose), and a
``--dry-run`` must say beforehand what that resume will buy.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from diptych.core.workspace import RetryPolicy, RunOptions, Workspace
from diptych.testing.drills.faults import InjectingService

IMAGES_PATH = "/v1/images/generations"
#: The unusable answers, by prompt: ``times`` None answers every request so, 1 only the first.
SPOILT: dict[str, tuple[str, int | None]] = {
    "request 1": ("unreadable_image", None),
    "request 2": ("empty_data", None),
    "request 5": ("url_instead", None),
    "request 7": ("unreadable_image", 1),
}


@dataclass
class BadSuccessDrill:
    """What the drill saw (nothing wrong, when ``ok``)."""

    trials: int
    #: Paid retries allowed in all: the run's, then a plain resume's (0), then a deliberate one's.
    allowed: int
    #: Answers the service delivered (each billed), and the trials they were for.
    delivered: int = 0
    delivered_trials: int = 0
    #: Answers bought again beyond the allowances (want 0).
    beyond_budget: int = 0
    #: Requests a plain resume (no paid retries) sent for stored paid failures (want 0).
    plain_resume_requests: int = 0
    #: What the dry run before the deliberate resume said it would run, and what it ran.
    dry_run_to_run: int = -1
    deliberate_requests: int = 0
    #: Trials whose stored count of unusable answers differs from the service's ledger.
    miscounted: list[str] = field(default_factory=list)
    #: Failed trials without the paid-failure reason.
    without_reason: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return (
            self.beyond_budget == 0
            and self.plain_resume_requests == 0
            and self.dry_run_to_run == self.deliberate_requests
            and not self.miscounted
            and self.without_reason == 0
        )


def bad_success_drill(
    workspace: Workspace,
    service: InjectingService,
    *,
    trials: int = 10,
    paid_retries: int = 2,
    deliberate: int = 1,
) -> BadSuccessDrill:
    """Generate ``trials`` (at most 10: prompts are matched by their text) images through
    ``openai-images`` while some answers are unusable; run with ``paid_retries``, resume with
    none, then resume with ``deliberate`` paid retries after a dry run."""
    if not 8 <= trials <= 10:
        raise ValueError("the drill spoils requests 1, 2, 5 and 7: give 8 to 10 trials")
    for prompt, (kind, times) in SPOILT.items():
        service.inject(kind, prompt_contains=prompt, times=times)
    model = ("openai-images", {"base_url": service.base_url, "model": "dall-e-3"})
    params = {"n": trials, "capability": "image_generator"}
    retry = RetryPolicy(max_attempts=6, base_delay=0.01, max_delay=0.02)
    # One request at a time, so that the allowance goes to the trials in plan order.
    first = RunOptions(retry=retry, concurrency=1, paid_retries=paid_retries)
    run = workspace.runs.run_sync("scripted", [model], params=params, options=first)
    drill = BadSuccessDrill(trials=trials, allowed=paid_retries + deliberate)
    seen = len(service.requests)
    workspace.runs.resume_sync(run.id, options=RunOptions(retry=retry, concurrency=1))
    drill.plain_resume_requests = _images(service.requests[seen:])
    again = RunOptions(retry=retry, concurrency=1, paid_retries=deliberate)
    drill.dry_run_to_run = workspace.runs.plan(
        "scripted", [model], params=params, options=again
    ).to_run
    seen = len(service.requests)
    workspace.runs.resume_sync(run.id, options=again)
    drill.deliberate_requests = _images(service.requests[seen:])
    service.clear_faults()
    answered = Counter(
        r.prompt for r in service.requests if r.path == IMAGES_PATH and r.status == 200
    )
    drill.delivered = sum(answered.values())
    drill.delivered_trials = len(answered)
    drill.beyond_budget = max(0, drill.delivered - drill.delivered_trials - drill.allowed)
    rows = _rows(workspace, run.id)
    drill.outcomes = dict(Counter(row["status"] for row in rows))
    for row in rows:
        prompt = row["payload"]["prompt"]
        unusable = answered[prompt] - (1 if row["status"] == "done" else 0)
        stored = (row["provenance"] or {}).get("paid_unusable", 0)
        if stored != unusable:
            drill.miscounted.append(prompt)
        if row["status"] == "failed" and not (row["error"] or "").startswith("paid for, unusable"):
            drill.without_reason += 1
    return drill


def _images(requests: list[Any]) -> int:
    return sum(1 for r in requests if r.path == IMAGES_PATH)


def _rows(workspace: Workspace, run_id: str) -> list[dict[str, Any]]:
    out = io.StringIO()
    workspace.runs.export(run_id, "jsonl", out)
    return [json.loads(line) for line in out.getvalue().splitlines()]
