"""Which backend builds computed a run's answers.

A local backend's build changes the last digits of what it computes: llama.cpp compiled for
other CPU features runs other kernels, which round differently (the same commit's demo gave a
paired expected STS of 11.51 on one machine and 11.35 on another). A model names its build
(:meth:`~diptych.core.capabilities.Model.build`) and every result stores it as ``build`` in
its provenance. A run whose results came from more than one build says so wherever it is
shown, and resuming it on a build its results did not come from warns before it mixes them
(or, asked for the same build, refuses).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from diptych.core.errors import MixedBuildError


class _Result(Protocol):
    @property
    def model_id(self) -> str: ...
    @property
    def started_at(self) -> float: ...
    @property
    def provenance(self) -> dict[str, object]: ...


def builds_by_model(results: Iterable[_Result]) -> dict[str, list[str]]:
    """Per model id, the builds its stored results name, in the order they were first used
    (results from before builds were recorded name none)."""
    out: dict[str, list[str]] = {}
    for result in sorted(results, key=lambda r: r.started_at):
        build = result.provenance.get("build")
        if isinstance(build, str) and build not in out.setdefault(result.model_id, []):
            out[result.model_id].append(build)
    return {model: builds for model, builds in out.items() if builds}


def build_names(builds: Sequence[str]) -> list[str]:
    """The builds as a reader names them: the backend and its version, without the CPU
    features a build records after ``;`` (``AVX = 1 | AVX2 = 1 | ...``), which stay in the
    results' provenance and the report's JSON, in order, each once."""
    return list(dict.fromkeys(b.split(";")[0].strip() for b in builds))


def mixed_builds_note(builds: Mapping[str, Sequence[str]]) -> str | None:
    """One sentence when some model's results came from more than one build, else None."""
    mixed = {model: b for model, b in builds.items() if len(b) > 1}
    if not mixed:
        return None
    parts = "; ".join(f"{model}: {len(b)} builds" for model, b in mixed.items())
    return (
        f"Mixed builds ({parts}): the run's trials were computed by more than one build of "
        "the backend, whose values differ in their last digits; compare runs made on one build."
    )


def check_build(
    model_id: str, current: str | None, recorded: Sequence[str], *, same_build: bool
) -> str | None:
    """Before adding results of ``current`` to a run whose results name ``recorded``: None
    when nothing would be mixed, else the one-line warning (or :class:`MixedBuildError`
    with ``same_build``)."""
    if current is None or not recorded or current in recorded:
        return None
    said = f"{model_id} was run on another build ({recorded[-1]}) than this one ({current})"
    if same_build:
        raise MixedBuildError(
            f"{said}; resume it where it was made, or drop --same-build to mix the builds."
        )
    return f"{said}: its new results will come from a second build (--same-build refuses)."
