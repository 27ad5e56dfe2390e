"""Models as the engine holds them during a run: identity, pacing, lazy loading, threads."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from diptych.core.capabilities import Model
from diptych.core.engine.pacing import RateLimiter
from diptych.core.errors import RunStoppedError
from diptych.core.plugins import get_model
from diptych.core.trials import ModelRef


@dataclass
class ModelSlot:
    """A model in a run: its instance, key identity, pacing and lazy loading."""

    model: Model
    ref: ModelRef
    limiter: RateLimiter | None = None
    executor: ThreadPoolExecutor | None = None
    loaded: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: Why no further request goes to this model in this execution (its service asked to wait
    #: longer than the run obeys); its trials not yet started are left for a resume.
    halted: str | None = None

    @classmethod
    def of(cls, model: Model) -> ModelSlot:
        identity = model.identity_params()
        defaults = _defaults(model)
        changed = {k: v for k, v in identity.items() if k not in defaults or defaults[k] != v}
        ref = ModelRef(model.name, model.version, identity, changed)
        return cls(model=model, ref=ref)

    def halt(self, reason: str) -> None:
        """Send this model no further request in this execution (the first reason is kept)."""
        if self.halted is None:
            self.halted = reason

    async def ensure_loaded(self) -> None:
        async with self.lock:
            if self.loaded:
                return
            await asyncio.to_thread(self.model.load)
            self.loaded = True

    async def call(self, method: str, *args: Any) -> Any:
        fn = getattr(self.model, method)
        if not self.model.hints.blocking:
            return await fn(*args)
        # A blocking backend (llama.cpp, torch) would stall every other trial if awaited on
        # the event loop; its coroutine runs to completion in a worker thread instead.
        if self.executor is None:
            self.executor = ThreadPoolExecutor(
                max_workers=self.model.hints.max_concurrency, thread_name_prefix=self.ref.name
            )
        loop = asyncio.get_running_loop()
        try:
            # Submitted here, at once: a refusal is the pool's, never the model's.
            answer = loop.run_in_executor(self.executor, lambda: asyncio.run(fn(*args)))
        except RuntimeError as refused:
            raise stopped_by(refused) from refused
        return await answer

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=True)


#: How a thread pool refuses work once it is shut down: concurrent.futures' own pools (closed,
#: or closed by the interpreter's exit) and asyncio's default executor.
_POOL_SHUT = ("cannot schedule new futures after", "Executor shutdown has been called")


def pool_shut(error: BaseException) -> bool:
    """Whether ``error`` is a thread pool refusing work because it was shut down: the process
    is stopping (a front end quitting, the interpreter exiting), no fault of the trial's."""
    return isinstance(error, RuntimeError) and str(error).startswith(_POOL_SHUT)


def stopped_by(error: BaseException) -> RunStoppedError:
    """The run's stop, for a thread pool's refusal to take a model call."""
    return RunStoppedError(
        f"the run stopped: this process is shutting down ({error}); its trials so far are "
        "kept and the rest stay pending (resume the run to ask them)"
    )


def _defaults(model: Model) -> dict[str, Any]:
    """The JSON form of each optional parameter's default (required ones have none)."""
    from pydantic import TypeAdapter

    out = {}
    for name, info in type(model.params).model_fields.items():
        if not info.is_required():
            default = info.get_default(call_default_factory=True)
            out[name] = TypeAdapter(Any).dump_python(default, mode="json")
    return out


def resolve_model(model: Model | str | tuple[str, Any]) -> Model:
    """A model instance from an instance, a registered name, or (name, parameters)."""
    if isinstance(model, Model):
        return model
    if isinstance(model, str):
        return get_model(model)
    name, params = model
    return get_model(name, params)
