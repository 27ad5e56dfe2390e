"""Reading a diffusers pipeline: where a local one lives, which hub commit a loaded one came
from, the dtype keyword and scheduler its diffusers release takes, and loading it without
progress bars. What the ``diffusers`` model plugin needs besides the pipeline's own calls."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from diptych.core.errors import ModelLoadError
from diptych.plugins.models._checkpoint import COMMIT, download_command, local_model_dir


def local_pipeline_dir(model: str) -> Path | None:
    """The pipeline directory ``model`` names, or None when it is a hub id."""
    return local_model_dir(model, "model_index.json", "diffusers")


def loaded_commit(pipe: Any) -> str | None:
    """The hub commit the loaded pipeline came from, read off its components.

    diffusers records each component's source directory (``_name_or_path``, a
    ``snapshots/<commit>/`` folder for a cached hub model); transformers models may carry
    ``_commit_hash``.
    """
    for component in pipe.components.values():
        config = getattr(component, "config", None)
        if config is None:
            continue
        commit = getattr(config, "_commit_hash", None)
        if isinstance(commit, str) and COMMIT.match(commit):
            return commit
        where = config.get("_name_or_path") if isinstance(config, dict) else None
        where = where or getattr(config, "_name_or_path", None)
        if isinstance(where, str):
            parts = Path(where).parts
            for before, after in zip(parts, parts[1:], strict=False):
                if before == "snapshots" and COMMIT.match(after):
                    return after
    return None


def not_cached_message(model: str, revision: str | None) -> str:
    at = f" at revision {revision}" if revision else ""
    return (
        f"The diffusers model {model!r}{at} is not in the local Hugging Face cache and "
        f"downloads are off: download it with `{download_command(model, revision)}`, "
        "or pass a local pipeline directory as model, or set allow_download=true"
    )


def dtype_keyword(version: str) -> str:
    # diffusers 0.42 renamed from_pretrained's torch_dtype to dtype (torch_dtype is
    # deprecated); older releases ignore an unknown dtype and would load float32.
    numbers = tuple(int(x) for x in re.findall(r"\d+", version)[:2])
    return "dtype" if numbers >= (0, 42) else "torch_dtype"


def scheduler_like(diffusers: Any, current: Any, name: str) -> Any:
    """A ``name`` scheduler configured like ``current`` (betas, prediction type ...)."""
    compatible = sorted(c.__name__ for c in getattr(current, "compatibles", ()))
    cls: Any = getattr(diffusers, name, None)
    is_scheduler = isinstance(cls, type) and issubclass(cls, diffusers.SchedulerMixin)
    if not is_scheduler:
        raise ModelLoadError(
            f"{name!r} is not a diffusers scheduler; this pipeline can use: "
            + ", ".join(compatible)
        )
    if compatible and name not in compatible and name != type(current).__name__:
        raise ModelLoadError(
            f"scheduler {name!r} does not fit this pipeline's {type(current).__name__}; "
            "choose one of: " + ", ".join(compatible)
        )
    return cls.from_config(current.config)


@contextlib.contextmanager
def quiet_loading() -> Iterator[None]:
    """Loading without diffusers' and transformers' progress bars (the core never prints).

    Both libraries keep the switch in a global; it is put back as it was.
    """
    import diffusers.utils.logging as diffusers_logging

    modules: list[Any] = [diffusers_logging]
    with contextlib.suppress(ImportError):
        import transformers.utils.logging as transformers_logging

        modules.append(transformers_logging)
    enabled = [m.is_progress_bar_enabled() for m in modules]
    for module in modules:
        module.disable_progress_bar()
    try:
        yield
    finally:
        for module, was in zip(modules, enabled, strict=True):
            if was:
                module.enable_progress_bar()
