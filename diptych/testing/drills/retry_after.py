"""The Retry-After drill: a service that asks to be left alone for an hour.

A 429 whose Retry-After is over the run's cap (``max_retry_wait``) must fail its trial with the
reason at once, leave the model's other trials for a resume, and never hang the run; one under
the cap must be obeyed. Each round answers one request with an hour-long Retry-After written one
way (seconds, an HTTP date, OpenAI's ``retry-after-ms``); a last resume, the service quiet
again, must finish every trial.
"""

from __future__ import annotations

import asyncio
import io
import json
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from diptych.core.workspace import RetryPolicy, RunOptions, Workspace
from diptych.testing.drills.faults import InjectingService

IMAGES_PATH = "/v1/images/generations"
#: The Retry-After forms the drill sends, one round each.
FORMS = ("seconds", "http-date", "ms")
#: What a hostile service asks for: an hour.
HOUR_S = 3600.0
#: Seconds past the cap a retry may come late (a busy machine's scheduling) and not count as
#: having obeyed the service.
SLACK_S = 2.0


class Recorded(Protocol):
    path: str
    prompt: str | None
    status: int | None
    received_at: float
    answered_at: float | None


@dataclass
class RetryAfterDrill:
    """What the drill saw (nothing wrong, when ``ok``)."""

    trials: int
    cap: float
    rounds: int
    #: 429s after which the client waited past the cap (or was still waiting at the watchdog).
    waited_past_cap: int = 0
    #: Rounds whose hour-long Retry-After failed a trial with the reason, at once.
    failed_with_reason: int = 0
    #: Whether the Retry-After under the cap was obeyed (the retry came after it).
    obeyed_under_cap: bool = False
    #: Trials not done after the last resume.
    unfinished: int = 0
    statuses: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            self.waited_past_cap == 0
            and self.failed_with_reason == self.rounds
            and self.obeyed_under_cap
            and self.unfinished == 0
        )


def retry_after_drill(
    workspace: Workspace, service: InjectingService, *, trials: int = 8, cap: float = 1.0
) -> RetryAfterDrill:
    """Generate ``trials`` images through ``openai-images`` with Retry-After capped at ``cap``
    seconds while the service asks for half the cap once, then for an hour once per round."""
    model = ("openai-images", {"base_url": service.base_url, "model": "dall-e-3"})
    params = {"n": trials, "capability": "image_generator"}
    # One request at a time, so that each round's 429 meets the first trial left.
    retry = RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.02, max_retry_wait=cap)
    options = RunOptions(retry=retry, concurrency=1)
    drill = RetryAfterDrill(trials=trials, cap=cap, rounds=len(FORMS))
    service.inject("rate_limit", retry_after=cap / 2, prompt_contains="request 0", times=1)
    for form in FORMS:
        service.inject("rate_limit", retry_after=HOUR_S, retry_after_form=form, times=1)
        waited, status, reason = _round(workspace, service, model, params, options, cap)
        drill.waited_past_cap += waited
        drill.failed_with_reason += reason
        drill.statuses.append(status)
    service.clear_faults()
    waited, status, _ = _round(workspace, service, model, params, options, cap)
    drill.waited_past_cap += waited
    drill.statuses.append(status)
    first = [r for r in service.requests if r.path == IMAGES_PATH and r.prompt == "request 0"]
    drill.obeyed_under_cap = (
        len(first) >= 2
        and first[0].status == 429
        and first[0].answered_at is not None
        and first[1].received_at - first[0].answered_at >= cap / 2
    )
    drill.unfinished = sum(1 for row in _rows(workspace) if row["status"] != "done")
    return drill


def _round(
    workspace: Workspace,
    service: InjectingService,
    model: tuple[str, dict[str, Any]],
    params: dict[str, Any],
    options: RunOptions,
    cap: float,
) -> tuple[int, str, int]:
    """One run (or resume) under a watchdog: the 429s it waited past the cap for, the run's
    status, and 1 when a trial failed with the over-cap reason."""
    seen = len(service.requests)
    started = time.time()  # the clock results are stored by

    async def run() -> str:
        # Far longer than any obeyed wait, far shorter than the hour asked for.
        watchdog = cap * 10 + 30
        job = workspace.runs.run("scripted", [model], params=params, options=options)
        try:
            return (await asyncio.wait_for(job, watchdog)).status
        except TimeoutError:
            return "hung"

    status = asyncio.run(run())
    requests: list[Recorded] = service.requests[seen:]
    waited = 0
    for i, answer in enumerate(requests):
        if answer.status != 429 or answer.answered_at is None:
            continue
        later = [r.received_at for r in requests[i + 1 :] if r.prompt == answer.prompt]
        end = later[0] if later else (time.monotonic() if status == "hung" else None)
        if end is not None and end - answer.answered_at > cap + SLACK_S:
            waited += 1
    reasons = [
        row
        for row in _rows(workspace)
        if row["status"] == "failed"
        and "--max-retry-wait" in (row["error"] or "")
        and row["finished_at"] >= started
    ]
    return waited, status, 1 if reasons else 0


def _rows(workspace: Workspace) -> list[dict[str, Any]]:
    """Every trial of the workspace's run as exported, with when its result was stored."""
    (summary,) = workspace.runs.list()
    view = workspace.runs.view(summary.run.id)
    out = io.StringIO()
    workspace.runs.export(summary.run.id, "jsonl", out)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    finished = {key: result.finished_at for key, result in view.results.items()}
    for row in rows:
        row["finished_at"] = finished.get(row["key"], 0.0)
    return rows
