"""Reading a ``transformers`` checkpoint: in its dtype, onto its device, quietly, and what of
its generation config is recorded with every answer."""

from __future__ import annotations

import contextlib
import importlib.util
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel

from diptych.core.capabilities import Model, ModelHints
from diptych.core.errors import MissingDependencyError
from diptych.plugins.models._checkpoint import COMMIT, Checkpoint
from diptych.plugins.models._placement import import_torch, placement_for, release

#: Reads (processor, model) from a checkpoint's source: ``options`` go to every
#: ``from_pretrained``, ``weights`` (dtype, device map) to the model's.
ReadParts = Callable[[Any, str, dict[str, Any], dict[str, Any]], tuple[Any, Any]]

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


class CheckpointModel(Model):
    """Base of the in-process models whose weights are one ``transformers`` checkpoint (its
    parameters: ``model``, ``revision``, ``cache_dir``, ``batch_size``): the checkpoint and
    its version, what every result records of it, and loading once under a lock.

    Building one is cheap on purpose: the engine builds models to compute trial keys and reads
    the weights (:meth:`load`) only when some trial must actually run. Calls are synchronous:
    ``hints.blocking`` has the engine make them from a worker thread, one at a time; the lock
    guards the model for callers that bypass the engine."""

    #: The file that marks a model directory (checked before loading).
    marker: ClassVar[str] = "config.json"

    def __init__(self, params: BaseModel | None = None) -> None:
        super().__init__(params)
        p: Any = self.params
        self._checkpoint = Checkpoint(
            p.model, revision=p.revision, cache_dir=p.cache_dir, marker=self.marker, owner=self.name
        )
        self._version = self._checkpoint.version()
        self._model: Any = None  # the transformers model once loaded
        self._processor: Any = None
        self._torch: Any = None
        self._device = "unloaded"
        self._dtype = "unloaded"
        self._facts: dict[str, Any] = {}
        self._lock = threading.Lock()
        self.hints = ModelHints(blocking=True, max_concurrency=1, batch_size=p.batch_size)

    @property
    def version(self) -> str:
        return self._version

    def provenance(self) -> dict[str, Any]:
        p: Any = self.params
        return {
            **super().provenance(),
            "backend": "transformers",
            "model_id": p.model,
            "revision": p.revision,
            **self._facts,
        }

    def load(self) -> None:
        with self._lock:
            self._loaded()

    def _loaded(self) -> Any:
        """The model, loaded on first use; call with ``self._lock`` held."""
        raise NotImplementedError

    def _source_facts(self, model: Any) -> dict[str, Any]:
        """Where the loaded ``model`` came from, first of the facts every result records: its
        directory or hub id, the hub commit (its config's, else the cached snapshot's) and its
        architecture."""
        config, model_id = model.config, getattr(self.params, "model", "")
        commit = getattr(config, "_commit_hash", None)
        if not (isinstance(commit, str) and COMMIT.match(commit)):
            commit = self._checkpoint.commit
        return {
            "name_or_path": str(getattr(config, "_name_or_path", "") or model_id),
            "commit": commit,
            "architecture": type(model).__name__,
        }

    async def aclose(self) -> None:
        with self._lock:
            if self._model is None:
                return
            self._model = None
            self._processor = None
            if self._torch is not None and self._torch.cuda.is_available():
                self._torch.cuda.empty_cache()


@dataclass(frozen=True)
class LoadedCheckpoint:
    """A checkpoint read for inference, with the libraries and the placement it was read with."""

    torch: Any
    transformers: Any
    processor: Any
    model: Any
    device: str
    dtype: str


def load_checkpoint(
    checkpoint: Checkpoint, params: Any, read_parts: ReadParts, *, owner: str, extra: str
) -> LoadedCheckpoint:
    """The processor and model ``read_parts`` reads from ``checkpoint``, in the dtype and on
    the device ``params`` (``device``, ``dtype``, ``allow_download``, ``revision``,
    ``cache_dir``) resolve to on this machine, quietly, in evaluation mode.

    A checkpoint that is not there (and may not be downloaded) is refused before anything is
    read; a missing or partial file, the hub's not-found and offline errors (OSError) and a
    config naming no model this transformers knows (ValueError) become the checkpoint's own
    load error, which says what to do."""
    torch = import_torch(owner)
    if importlib.util.find_spec("transformers") is None:
        raise MissingDependencyError("transformers", extra, f"The {owner} model")
    import transformers

    device, dtype = placement_for(torch, params.device, params.dtype)
    checkpoint.check_available(params.allow_download)
    options = checkpoint_options(
        allow_download=params.allow_download, revision=params.revision, cache_dir=params.cache_dir
    )
    weights = weights_options(
        str(transformers.__version__),
        device,
        getattr(torch, dtype),
        accelerate=importlib.util.find_spec("accelerate") is not None,
    )
    try:
        with quiet_transformers(transformers):
            processor, model = read_parts(transformers, checkpoint.source, options, weights)
    except (OSError, ValueError) as exc:
        raise checkpoint.load_error(exc) from exc
    if getattr(model, "hf_device_map", None) is None:
        # Read into CPU memory (on the CPU, or without device-map support): move it.
        model.to(device)
    model.eval()
    return LoadedCheckpoint(torch, transformers, processor, model, device, dtype)


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
