"""Models as the engine holds them during a run: identity, pacing, lazy loading, threads."""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from concurrent.futures import thread as pools
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
    executor: ModelThreads | None = None
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
            self.executor = ModelThreads(self.model.hints.max_concurrency, self.ref.name)
        try:
            # Submitted here, at once: a refusal is the pool's, never the model's.
            work = self.executor.submit(lambda: asyncio.run(fn(*args)))
        except RuntimeError as refused:
            raise stopped_by(refused) from refused
        return await asyncio.wrap_future(work)

    def close(self, *, abandon: bool = False) -> bool:
        """Send this model no further call; ``abandon``: without waiting for the calls in
        flight (a stopped run stores nothing of them). Whether a call was left running, in
        which case the model is not closed under it."""
        if self.executor is None:
            return False
        if abandon:
            self.executor.shutdown(wait=False, cancel_futures=True)
            return self.executor.busy
        self.executor.shutdown(wait=True)
        return False


class ModelThreads(Executor):
    """A blocking model's calls, each run to its end in one of ``workers`` daemon threads.

    A call in C code (llama.cpp mid-generation, a torch forward pass) cannot be interrupted.
    concurrent.futures' pool joins its threads when the interpreter exits, so a call that a
    stop abandoned would hold the process (and the terminal) until it finished; a daemon
    thread does not, and the answer it would have given, which a stopped run never stores,
    goes with it."""

    def __init__(self, workers: int, name: str) -> None:
        self._workers, self._name = workers, name
        self._queue: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]] | None]
        self._queue = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._shut = False
        self._running = 0

    @property
    def busy(self) -> bool:
        """Whether a call is running now."""
        with self._lock:
            return self._running > 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        with self._lock:
            if self._shut:
                raise RuntimeError("cannot schedule new futures after shutdown")
            if getattr(pools, "_shutdown", False):
                # The interpreter is exiting (concurrent.futures' flag, set before it joins
                # the threads left): a run in another thread stops, as with its own pools.
                raise RuntimeError("cannot schedule new futures after interpreter shutdown")
            work: Future[Any] = Future()
            self._queue.put((work, lambda: fn(*args, **kwargs)))
            if len(self._threads) < self._workers:
                thread = threading.Thread(
                    target=self._work, name=f"{self._name}_{len(self._threads)}", daemon=True
                )
                thread.start()
                self._threads.append(thread)
            return work

    def _work(self) -> None:
        while (item := self._queue.get()) is not None:
            work, call = item
            # Counted before it starts: a stop never reads a call about to run as none.
            with self._lock:
                self._running += 1
            try:
                if not work.set_running_or_notify_cancel():
                    continue
                try:
                    result = call()
                except BaseException as error:  # noqa: BLE001 - handed to the awaiting trial
                    work.set_exception(error)
                else:
                    work.set_result(result)
            finally:
                with self._lock:
                    self._running -= 1

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._shut = True
            threads = list(self._threads)
        if cancel_futures:
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    item[0].cancel()
        for _ in threads:
            self._queue.put(None)
        if wait:
            for thread in threads:
                thread.join()


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
