"""Reading a ``transformers`` checkpoint: in its dtype, onto its device, quietly, and what of
its generation config is recorded with every answer."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from diptych.plugins.models._placement import release

#: Generation settings left out of provenance: sampling (the trial's own settings govern it)
#: and bookkeeping that cannot change an answer.
_NOT_RECORDED = frozenset(
    {
        "do_sample",
        "temperature",
        "top_p",
        "top_k",
        "min_p",
        "typical_p",
        "num_beams",
        "max_length",
        "max_new_tokens",
        "use_cache",
        "output_attentions",
        "output_hidden_states",
        "output_scores",
        "output_logits",
        "return_dict_in_generate",
        "pad_token_id",
        "bos_token_id",
        "eos_token_id",
        "decoder_start_token_id",
        "transformers_version",
        "_from_model_config",
    }
)


def non_sampling_settings(config: Any) -> dict[str, Any]:
    """The generation settings a checkpoint sets beyond the defaults, except sampling ones."""
    try:
        diff = config.to_diff_dict()
    except (AttributeError, TypeError, ValueError):
        return {}
    return {
        k: v
        for k, v in diff.items()
        if k not in _NOT_RECORDED and isinstance(v, str | int | float | bool | list | None)
    }


@contextlib.contextmanager
def quiet_transformers(transformers: Any) -> Iterator[None]:
    """Loading without transformers' progress bars (the core never prints; a bar would also
    break a TUI's layout). The switch is a global; it is put back as it was."""
    logging = transformers.utils.logging
    enabled = logging.is_progress_bar_enabled()
    logging.disable_progress_bar()
    try:
        yield
    finally:
        if enabled:
            logging.enable_progress_bar()


def weights_options(
    transformers_version: str, device: str, dtype: Any, *, accelerate: bool
) -> dict[str, Any]:
    """``from_pretrained`` arguments that read a model's weights in ``dtype`` onto ``device``.

    The dtype is given at load time, so half-precision weights are read as such instead of
    being read in float32 (twice the memory) and converted. On a GPU the weights also go
    straight onto it through a device map, rather than through CPU memory first -- which
    for a 7B model in float16 is 14 GB of RAM. transformers reads device maps itself from
    version 5 on, with accelerate before; without either, the caller moves the model.
    """
    options: dict[str, Any] = {dtype_keyword(transformers_version): dtype}
    if device != "cpu" and (accelerate or release(transformers_version) >= (5, 0)):
        options["device_map"] = device
    return options


def checkpoint_options(
    *, allow_download: bool, revision: str | None, cache_dir: str | None
) -> dict[str, Any]:
    """``from_pretrained`` arguments that say where a checkpoint is read from: the local cache
    only, unless downloads are allowed (an audit must never fetch weights behind the user's
    back), at ``revision`` and from ``cache_dir`` when given."""
    options: dict[str, Any] = {"local_files_only": not allow_download}
    if revision is not None:
        options["revision"] = revision
    if cache_dir is not None:
        options["cache_dir"] = cache_dir
    return options


def dtype_keyword(transformers_version: str) -> str:
    # transformers 4.56 renamed from_pretrained's torch_dtype to dtype (torch_dtype is
    # deprecated); older releases would take an unknown dtype for a config field and load
    # float32.
    return "dtype" if release(transformers_version) >= (4, 56) else "torch_dtype"
