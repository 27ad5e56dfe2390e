"""The run engine: plan -> skip what is stored -> execute the rest -> persist as results arrive.

One module per concept:

* :mod:`.options` — :class:`RunOptions`, how a run is carried out;
* :mod:`.planning` — fingerprints, trials, what is stored already, dry-run estimates;
* :mod:`.dispatch` — how a model is called, one row per capability;
* :mod:`.pacing` — retries with backoff, rate limits, the spending guard, paid retries;
* :mod:`.slots` — models as a run holds them (identity, lazy loading, threads);
* :mod:`.execution` — calling one trial or batch and persisting each result as it arrives;
* :mod:`.executors` — where the pending trials run: ``local`` (asyncio + threads), ``ray``;
* :mod:`.finishing` — status, self labels and review flags from what is stored;
* :mod:`.lease` — one process at a time per run, claims of paid requests;
* :mod:`.runs` — the entry points: run, resume;
* :mod:`.reporting` — the :class:`Reporter` protocol (the engine never prints).
"""

from __future__ import annotations

from diptych.core.engine.dispatch import (
    BATCH_METHODS,
    DISPATCH,
    Batched,
    Dispatch,
    call_batch,
    call_trial,
)
from diptych.core.engine.executors import execute, executor_for
from diptych.core.engine.finishing import (
    derive_self_labels,
    final_status,
    finish_run,
    finish_sharing,
    refresh_flags,
    settled,
)
from diptych.core.engine.lease import RunLeasedError
from diptych.core.engine.options import RunOptions
from diptych.core.engine.pacing import Budget, PaidRetries, RateLimiter, RetryPolicy
from diptych.core.engine.planning import (
    Estimate,
    RunPlan,
    bind_probe,
    check_capabilities,
    estimate,
    plan_trials,
    prepare_run,
    run_fingerprint,
    store_input_blobs,
)
from diptych.core.engine.reporting import NullReporter, Reporter
from diptych.core.engine.runs import probe_and_models_of, resume_run, run_async, run_probe
from diptych.core.engine.slots import ModelSlot, resolve_model

__all__ = [
    "BATCH_METHODS",
    "DISPATCH",
    "Batched",
    "Budget",
    "Dispatch",
    "Estimate",
    "ModelSlot",
    "NullReporter",
    "PaidRetries",
    "RateLimiter",
    "Reporter",
    "RetryPolicy",
    "RunLeasedError",
    "RunOptions",
    "RunPlan",
    "bind_probe",
    "call_batch",
    "call_trial",
    "check_capabilities",
    "derive_self_labels",
    "estimate",
    "execute",
    "executor_for",
    "final_status",
    "finish_run",
    "finish_sharing",
    "plan_trials",
    "prepare_run",
    "probe_and_models_of",
    "refresh_flags",
    "resolve_model",
    "resume_run",
    "run_async",
    "run_fingerprint",
    "run_probe",
    "settled",
    "store_input_blobs",
]
