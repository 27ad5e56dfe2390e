"""Loading llama.cpp safely and fast on the machine at hand: OpenMP threads that sleep while
they wait, every core this process may use, AMX kernels off where they crash, and a context
whose KV cache holds the several sequences a likelihood group decodes in one batch.

``Llama()`` exposes neither the weight buffer types nor the context's sequences, so the
default-parameter factories it calls are wrapped for the duration of a load, under one lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from diptych.core.openmp import passive_openmp
from diptych.plugins.models.llamacpp.likelihood import MAX_SEQUENCES

_LOAD_LOCK = threading.RLock()


@contextmanager
def load_options(bindings: Any, *, extra_buffer_types: bool) -> Iterator[None]:
    """Load with llama.cpp's extra weight buffer types (AMX, repacking) on or off.

    ``Llama()`` does not expose ``use_extra_bufts``, so the default-parameter factory it
    calls is wrapped for the duration of the load (under a lock, then restored).
    """
    if extra_buffer_types:
        yield
        return
    original = bindings.llama_model_default_params

    def without_extra_buffers() -> Any:
        params = original()
        if hasattr(params, "use_extra_bufts"):
            params.use_extra_bufts = False
        return params

    with _LOAD_LOCK:
        bindings.llama_model_default_params = without_extra_buffers
        try:
            yield
        finally:
            bindings.llama_model_default_params = original


@contextmanager
def context_options(bindings: Any) -> Iterator[None]:
    """Create the context with a unified KV cache of several sequences.

    Siblings of a likelihood group are decoded as sequences of one batch sharing their
    prefix's cells, which needs ``kv_unified`` (one cache, one stream: every batch goes to
    llama.cpp whole) and room for the sequences. A single sequence is evaluated as before:
    the values of a prompt stated whole are bit-identical to those of the default context.
    ``Llama()`` exposes neither, so the default-parameter factory is wrapped for the load.
    """
    original = bindings.llama_context_default_params

    def with_sequences() -> Any:
        params = original()
        params.kv_unified = True
        params.n_seq_max = MAX_SEQUENCES
        return params

    with _LOAD_LOCK:
        bindings.llama_context_default_params = with_sequences
        try:
            yield
        finally:
            bindings.llama_context_default_params = original


@contextmanager
def amx_safe_loading() -> Iterator[None]:
    """Inside this block ``llama_cpp.Llama`` loads without AMX kernels where the CPU has AMX.

    For processes that construct ``Llama`` themselves, e.g. llama-cpp-python's server
    started by a test (see ``cpu_has_amx`` for why).
    """
    passive_openmp()
    import llama_cpp.llama_cpp as bindings

    with load_options(bindings, extra_buffer_types=not cpu_has_amx()):
        yield


def cpu_has_amx() -> bool:
    """Whether this CPU has Intel AMX, whose llama.cpp kernels we keep switched off.

    A llama-cpp-python built with GGML_NATIVE uses AMX tiles for batched matrix products
    when the CPU has them, and on some such machines (this project's CI VM among them)
    that segfaults on the first multi-token decode: llama.cpp issue #20824, closed
    without a fix. Turning off the extra buffer types costs a little speed and nothing
    else; elsewhere they stay on.
    """
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as handle:
            return any(line.startswith("flags") and "amx_tile" in line.split() for line in handle)
    except OSError:
        return False
