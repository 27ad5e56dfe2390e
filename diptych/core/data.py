"""Loading the data files shipped in ``diptych/prompts`` (prompts, identity lists, tables).

Every file is validated by a pydantic model with ``extra="forbid"`` so that a typo in a key is an
error rather than a silently ignored setting. A user may override a shipped file by putting a
file of the same name in the directory named by ``DIPTYCH_PROMPTS``.
"""

from __future__ import annotations

import os
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from diptych.core.capabilities import Sampling
from diptych.core.errors import InputFileError
from diptych.core.trials import sha256_hex
from diptych.core.yaml_input import load_yaml

M = TypeVar("M", bound=BaseModel)


#: The bundled data files a figure or table may draw on, with their source and licence as a
#: report's "Data licenses" names them (``prompts/SOURCES.md``). A table's or chart's note that
#: draws on one names its file, and the report lists the licence of every file so named.
BUNDLED_DATA = {
    "winobias_bls_pct_female.tsv": (
        "winobias_bls_pct_female.tsv (%F BLS: the share of women per occupation): U.S. Bureau "
        "of Labor Statistics figures as tabulated by WinoBias (Zhao et al., NAACL 2018); U.S. "
        "government statistics, public domain in the U.S., shipped with attribution to the "
        "WinoBias authors"
    ),
}


def bundled_data_named(text: str) -> list[str]:
    """The licences of the bundled data files ``text`` names (:data:`BUNDLED_DATA`)."""
    return [licence for name, licence in BUNDLED_DATA.items() if name in text]


def data_path(name: str) -> Path:
    """The file to read for ``name``: the user's override if there is one, else the shipped one."""
    override = os.environ.get("DIPTYCH_PROMPTS")
    if override and (Path(override) / name).is_file():
        return Path(override) / name
    return _shipped_dir() / name


@lru_cache(maxsize=1)
def _shipped_dir() -> Path:
    # Resolving the package's resources costs more than reading a cached file: probes ask
    # for their prompts once per trial.
    return Path(str(resources.files("diptych.prompts")))


@lru_cache(maxsize=64)
def _read_yaml(path: Path, mtime: float) -> Any:
    return load_yaml(path)


def load_data(name: str, schema: type[M]) -> M:
    """The data file ``name`` validated by ``schema``. The validated model is kept per file
    version (path and modification time): probes ask for their prompts once per trial, and a
    plan has thousands. Treat it as read-only."""
    path = data_path(name)
    try:
        mtime = path.stat().st_mtime
    except FileNotFoundError as error:
        raise InputFileError(f"data file {path} is missing; reinstall diptych") from error
    return _validated(path, mtime, schema)


@lru_cache(maxsize=128)
def _validated(path: Path, mtime: float, schema: type[M]) -> M:
    # A malformed file (a user's override: not UTF-8, a duplicate key, too deep) is one line.
    raw = _read_yaml(path, mtime)
    try:
        return schema.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputFileError(f"{path}: '{where}': {first['msg']}") from error


@cache
def image_sha(path: Path) -> str:
    """The sha256 of a bundled image's bytes: its blob name, and so its part of a trial key."""
    return sha256_hex(path.read_bytes())


# --- paper settings ---------------------------------------------------------------------------

PAIRS_SAMPLING_FILE = "pairs_sampling.yaml"


class PairsSampling(BaseModel):
    """``pairs_sampling.yaml``: how the PAIRS paper sampled its vision-language models."""

    model_config = ConfigDict(extra="forbid")

    source: str
    temperature: float = Field(ge=0)
    top_p: float = Field(gt=0, le=1)
    max_tokens: int = Field(ge=1)


def pairs_sampling() -> Sampling:
    """The PAIRS paper's sampling (temperature 0.75, top-p 1, at most 512 tokens; its Appendix
    B): the default of the PAIRS probes and of the vision-language models it asked."""
    settings = load_data(PAIRS_SAMPLING_FILE, PairsSampling)
    return Sampling(
        temperature=settings.temperature, top_p=settings.top_p, max_tokens=settings.max_tokens
    )
