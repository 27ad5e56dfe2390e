"""The weights a ``model`` parameter names -- a local ``save_pretrained`` directory, or a hub id
read from the local cache only unless downloads are allowed -- and a version for them that
changes when they do (it is part of every trial key).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from pydantic import Field

from diptych.core.errors import ModelLoadError, ParameterError
from diptych.plugins.models._placement import package_version


def revision_param() -> Any:
    """The ``revision`` parameter of a model read from the hub."""
    return Field(
        default=None, description="Hub branch, tag or commit (hub ids only); default: main."
    )


def cache_dir_param() -> Any:
    """The ``cache_dir`` parameter of a model read from the hub."""
    return Field(default=None, description="Hugging Face cache to read (default: HF_HUB_CACHE).")


#: A full git commit id, as the hub cache names its snapshot folders.
COMMIT = re.compile(r"^[0-9a-f]{40}$")

_MIB = 1 << 20
_WEIGHT_SUFFIXES = frozenset({".safetensors", ".bin", ".ckpt", ".pt", ".pth", ".msgpack"})
#: Files hashed whole: configs, vocabularies, tokenizers -- and chat templates, which decide
#: the prompt a chat model actually sees.
_CONFIG_SUFFIXES = frozenset({".json", ".txt", ".model", ".jinja"})


def directory_fingerprint(directory: Path) -> str:
    """A short hash of what decides a local model's answers.

    Every config, vocabulary and template file is hashed whole; each weight file by its size
    and first MiB, which holds its header and the start of its tensors -- enough to tell
    fine-tunes apart without reading gigabytes on every start. Files up to one folder deep
    count (a diffusers pipeline keeps its components in folders); hidden ones do not.
    """
    digest = hashlib.sha256()
    files = sorted(
        f
        for f in [*directory.glob("*"), *directory.glob("*/*")]
        if f.is_file() and not any(part.startswith(".") for part in f.relative_to(directory).parts)
    )
    for file in files:
        relative = file.relative_to(directory).as_posix()
        if file.suffix in _CONFIG_SUFFIXES:
            digest.update(f"{relative}\0".encode())
            digest.update(file.read_bytes())
        elif file.suffix in _WEIGHT_SUFFIXES:
            with file.open("rb") as handle:
                head = handle.read(_MIB)
            digest.update(f"{relative}\0{file.stat().st_size}\0".encode())
            digest.update(head)
    return digest.hexdigest()[:16]


def commit_of(snapshot: Path | None) -> str | None:
    # The hub cache keeps each revision under snapshots/<commit>/.
    if snapshot is not None and COMMIT.match(snapshot.name):
        return snapshot.name
    return None


def download_command(model: str, revision: str | None) -> str:
    # huggingface_hub 1.0 replaced the huggingface-cli command with hf.
    major = package_version("huggingface_hub").split(".")[0]
    cli = "hf" if major.isdigit() and int(major) >= 1 else "huggingface-cli"
    suffix = f" --revision {revision}" if revision else ""
    return f"{cli} download {model}{suffix}"


class Checkpoint:
    """The weights a ``model`` parameter names: a local directory or a cached hub id.

    Resolved when a plugin is built (cheaply: a few ``stat`` calls and, for a local directory,
    hashing its configs and the heads of its weight files), so that the version -- part of
    every trial key -- is known before anything is loaded.
    """

    def __init__(
        self,
        model: str,
        *,
        revision: str | None,
        cache_dir: str | None,
        marker: str,
        owner: str,
    ) -> None:
        self.model = model
        self.revision = revision
        self.cache_dir = cache_dir
        self.owner = owner
        self.local_dir = self._local_dir(model, marker)
        if self.local_dir is not None and revision is not None:
            raise ParameterError(
                f"model '{owner}': revision applies to hub ids, but {model!r} is a local "
                "directory; drop revision"
            )
        # The cached snapshot a hub id resolves to now (None when not cached): its commit
        # pins the version, and load() refuses early and clearly when it is missing.
        self.snapshot = None if self.local_dir is not None else self._cached_snapshot(marker)

    def _local_dir(self, model: str, marker: str) -> Path | None:
        return local_model_dir(model, marker, self.owner)

    def _cached_snapshot(self, marker: str) -> Path | None:
        try:
            from huggingface_hub import try_to_load_from_cache
        except ImportError:  # transformers (and with it huggingface_hub) absent: load() says so
            return None
        try:
            found = try_to_load_from_cache(
                self.model, marker, cache_dir=self.cache_dir, revision=self.revision
            )
        except ValueError as exc:  # huggingface_hub's HFValidationError: not a repo id
            raise ModelLoadError(
                f"The {self.owner} model {self.model!r} is neither a model directory nor a hub "
                "id (owner/name)"
            ) from exc
        return Path(found).parent if isinstance(found, str) else None

    @property
    def source(self) -> str:
        """What to hand ``from_pretrained``."""
        return str(self.local_dir) if self.local_dir is not None else self.model

    @property
    def commit(self) -> str | None:
        return commit_of(self.snapshot)

    def version(self) -> str:
        if self.local_dir is not None:
            return f"{self.local_dir.name}:{directory_fingerprint(self.local_dir)}"
        commit = self.commit
        revision = self.revision or "main"
        if commit is None and COMMIT.match(revision):
            commit = revision
        # A branch name alone ("main") is what a model had when it was cached; once cached,
        # the commit it resolved to says exactly which weights answered.
        return f"{self.model}@{commit or revision}"

    def check_available(self, allow_download: bool) -> None:
        """Refuse, in one line and without touching the network, weights that are not here."""
        if self.local_dir is None and self.snapshot is None and not allow_download:
            at = f" at revision {self.revision}" if self.revision else ""
            raise ModelLoadError(
                f"The {self.owner} model {self.model!r}{at} is not in the local Hugging Face "
                f"cache and downloads are off: download it with "
                f"`{download_command(self.model, self.revision)}`, or pass a local model "
                "directory as model, or set allow_download=true"
            )

    def load_error(self, exc: BaseException) -> ModelLoadError:
        """A one-line ModelLoadError for a failed ``from_pretrained``, with what to do."""
        text = str(exc).strip()
        first_line = text.splitlines()[0] if text else repr(exc)
        advice = (
            f"check that {self.source} is a complete model directory"
            if self.local_dir is not None
            else f"download it completely with `{download_command(self.model, self.revision)}`"
        )
        return ModelLoadError(
            f"{self.owner} could not load {self.source!r}: {first_line}; {advice}"
        )


def local_model_dir(model: str, marker: str, owner: str) -> Path | None:
    """The directory ``model`` names (it must hold ``marker``), or None when it is a hub id."""
    path = Path(model).expanduser()
    if path.is_dir():
        if not (path / marker).is_file():
            raise ModelLoadError(
                f"{model!r} is a directory without {marker}, so not a model the {owner} "
                "plugin can load; pass a directory written by save_pretrained, or a hub id"
            )
        return path.resolve()
    # A hub id is "name" or "owner/name"; anything else was meant as a path.
    looks_like_path = model.startswith(("/", ".", "~")) or model.count("/") > 1 or "\\" in model
    if looks_like_path or path.exists():
        raise ModelLoadError(
            f"The {owner} model directory {model!r} does not exist; pass a directory "
            "written by save_pretrained, or a hub id"
        )
    return None
