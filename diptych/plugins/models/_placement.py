"""Where an in-process torch model runs: the device and dtype, decided before any weights are
read, so that half-precision weights are loaded as such rather than converted.

Nothing here imports torch at module level: listing plugins and computing trial keys must stay
cheap, and the core's import-hygiene test loads every plugin module.
"""

from __future__ import annotations

import importlib.metadata
import re
from typing import Any, Literal

from pydantic import Field

from diptych.core.errors import ModelLoadError

Device = Literal["auto", "cuda", "mps", "cpu"]
DType = Literal["auto", "float16", "bfloat16", "float32"]


def device_param() -> Any:
    """The ``device`` parameter of an in-process model (:func:`resolve_placement`)."""
    return Field(default="auto", description="auto: cuda if available, then mps, then cpu.")


def dtype_param() -> Any:
    """The ``dtype`` parameter of an in-process model (:func:`resolve_placement`)."""
    return Field(default="auto", description="auto: float16 on cuda, float32 elsewhere.")


def resolve_placement(device: str, dtype: str, *, cuda: bool, mps: bool) -> tuple[str, str]:
    """The device and dtype to run on, given what was asked and what torch sees.

    ``auto`` prefers CUDA, then MPS, then the CPU. float16 is the auto dtype on CUDA only: it
    halves memory there, while on MPS and the CPU it is slow or imprecise in places.
    """
    if device == "auto":
        device = "cuda" if cuda else "mps" if mps else "cpu"
    elif device == "cuda" and not cuda:
        raise ModelLoadError(
            "device=cuda was asked for but torch sees no CUDA GPU (a CPU-only torch build, or "
            "no driver); use device=auto or device=cpu"
        )
    elif device == "mps" and not mps:
        raise ModelLoadError(
            "device=mps was asked for but torch sees no Apple GPU; use device=auto or device=cpu"
        )
    if dtype == "auto":
        dtype = "float16" if device == "cuda" else "float32"
    return device, dtype


def placement_for(torch: Any, device: str, dtype: str) -> tuple[str, str]:
    """:func:`resolve_placement` with what this process's torch sees."""
    return resolve_placement(
        device,
        dtype,
        cuda=bool(torch.cuda.is_available()),
        mps=bool(torch.backends.mps.is_available()),
    )


def import_torch(owner: str) -> Any:
    """The torch module, or a ModelLoadError that says how to install it."""
    try:
        import torch
    except ImportError as exc:
        # torch is not in any extra on purpose (its CPU and CUDA builds differ), so the
        # usual "pip install 'diptych[...]'" advice would be wrong here.
        raise ModelLoadError(
            f"The {owner} model needs PyTorch: pip install torch (the build for your GPU is "
            "listed at https://pytorch.org)"
        ) from exc
    return torch


def package_version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def release(version: str) -> tuple[int, ...]:
    """``(major, minor)`` of a version string such as ``4.56.0.dev0``."""
    return tuple(int(x) for x in re.findall(r"\d+", version)[:2])
