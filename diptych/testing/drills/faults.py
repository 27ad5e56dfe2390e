"""The fault drill: a run against a service that fails a share of its requests."""

from __future__ import annotations

import io
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

from diptych.core.workspace import RetryPolicy, RunOptions, Workspace

IMAGES_PATH = "/v1/images/generations"
#: What the service refuses in a prompt (the scripted probe's "request 3", "request 30" ...).
REFUSED = "request 3"
#: Every kind of fault the drill injects.
FAULT_KINDS = ("rate_limit", "server_error", "timeout", "dropped", "truncated")


class Recorded(Protocol):
    path: str
    prompt: str | None
    status: int | None


class FaultService(Protocol):
    """An OpenAI-compatible service that can fail on purpose (``diptych.testing``'s fake)."""

    @property
    def base_url(self) -> str: ...

    requests: list[Any]
    random_faults: Counter[str]

    def refuse(self, containing: str) -> Any: ...

    def inject_randomly(
        self, rate: float, kinds: Any = ..., *, seed: int = 0, hold: float = 1.0
    ) -> None: ...


class InjectingService(Protocol):
    """An OpenAI-compatible service that fails or spoils chosen requests on purpose
    (``diptych.testing``'s fake): a 429 with a Retry-After, an unusable answer ..."""

    @property
    def base_url(self) -> str: ...

    requests: list[Any]

    def inject(
        self,
        kind: Any,
        *,
        times: int | None = ...,
        prompt_contains: str | None = ...,
        retry_after: float | None = ...,
        retry_after_form: Any = ...,
    ) -> Any: ...

    def clear_faults(self) -> None: ...


@dataclass
class FaultDrill:
    """What one fault drill did and what went wrong (nothing, when ``ok``)."""

    trials: int
    requests: int
    faults: dict[str, int]
    outcomes: dict[str, int]
    #: Prompts whose image the service delivered more than once (paid twice).
    paid_twice: list[str] = field(default_factory=list)
    #: Trials that ended failed or refused without saying why.
    without_reason: int = 0
    #: Trials whose prompt the service refuses (content policy).
    refusals: int = 0
    #: Requests that got no answer after they were sent (a timeout, a dropped connection):
    #: a real service may have billed them. Not sent again within a run; each resume asks
    #: them again, as an auditor would.
    maybe_paid: int = 0
    #: Resumes it took until no trial was left failed that way.
    resumes: int = 0

    @property
    def faults_injected(self) -> int:
        return sum(self.faults.values())

    @property
    def ok(self) -> bool:
        return (
            not self.paid_twice
            and not self.without_reason
            and self.outcomes.get("pending", 0) == 0
            and self.outcomes.get("refused", 0) == self.refusals
            and sum(self.outcomes.values()) == self.trials
        )


def fault_drill(
    workspace: Workspace,
    service: FaultService,
    *,
    trials: int = 40,
    rate: float = 0.2,
    seed: int = 0,
) -> FaultDrill:
    """Generate ``trials`` images through ``openai-images`` while ``rate`` of the service's
    answers are faults of every kind; check the run's outcomes and the service's ledger."""
    service.inject_randomly(rate, FAULT_KINDS, seed=seed, hold=3.0)
    # One prompt the service refuses for good (content policy): a terminal, stated outcome.
    service.refuse(REFUSED)
    # Short timeouts and backoff keep the drill quick; enough attempts that a trial failing
    # for good (rate ** attempts) is rare but, when it happens, is a stated outcome.
    # The timeout is well above an answer's time on a busy machine: a request the service
    # answers after the client gave up would be paid for twice once asked again.
    retry = RetryPolicy(max_attempts=8, base_delay=0.01, max_delay=0.1, timeout=2.0)
    options = RunOptions(retry=retry, concurrency=8, seed=seed)
    model = ("openai-images", {"base_url": service.base_url, "model": "dall-e-3", "timeout": 2.0})
    params = {"n": trials, "capability": "image_generator"}
    run = workspace.runs.run_sync("scripted", [model], params=params, options=options)
    maybe_paid, resumes = 0, 0
    while True:
        rows = _rows(workspace, run.id)
        late = [row for row in rows if (row["error"] or "").startswith("may have been paid")]
        maybe_paid += sum(1 for row in late if row["status"] == "failed")
        if not late or resumes == MAX_RESUMES:
            break
        resumes += 1
        run = workspace.runs.run_sync("scripted", [model], params=params, options=options)
    service.inject_randomly(0)
    outcomes = Counter(row["status"] for row in rows)
    delivered = Counter(
        r.prompt for r in service.requests if r.path == IMAGES_PATH and r.status == 200
    )
    return FaultDrill(
        trials=trials,
        requests=sum(1 for r in service.requests if r.path == IMAGES_PATH),
        faults=dict(service.random_faults),
        outcomes={k: outcomes.get(k, 0) for k in ("done", "refused", "failed", "pending")},
        paid_twice=sorted(str(p) for p, n in delivered.items() if n > 1),
        refusals=sum(1 for i in range(trials) if REFUSED in f"request {i}"),
        without_reason=sum(
            1 for row in rows if row["status"] in ("failed", "refused") and not row["error"]
        ),
        maybe_paid=maybe_paid,
        resumes=resumes,
    )


#: Resumes the drill allows for trials whose request may have been paid (each resume meets
#: faults at the same rate, so a few are needed).
MAX_RESUMES = 6


def _rows(workspace: Workspace, run_id: str) -> list[dict[str, Any]]:
    out = io.StringIO()
    workspace.runs.export(run_id, "jsonl", out)
    return [json.loads(line) for line in out.getvalue().splitlines()]
