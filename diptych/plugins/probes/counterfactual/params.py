"""The parameters of the counterfactual probes: which sets, how they are filtered and searched."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from diptych.plugins.probes.counterfactual.templates import data

#: ``sets`` naming the latest ``counterfactual-sets`` run; binding the probe records which one
#: (``generated:<run id>``).
GENERATED = "generated"


def _pair(value: str) -> str:
    if value not in data().pairs:
        raise ValueError(f"unknown attribute pair {value!r}; known: {', '.join(data().pairs)}")
    return value


class GenerationParams(BaseModel):
    """``counterfactual-sets``: captions from the paper's templates, N sets per caption."""

    model_config = ConfigDict(extra="forbid")

    pair: str = Field(
        "race-gender", description="attribute pair: race-gender, physical-gender, physical-race"
    )
    occupations: list[str] | None = Field(
        None, description="subjects (default: Table 18's occupations)"
    )
    prefixes: list[int] | None = Field(
        None,
        description="Table 19 prefixes by index: 0 'A/An', 1 'A photo of', 2 'A picture of', "
        "3 'An image of'",
    )
    sets_per_caption: int = Field(1, ge=1, description="sets per caption template (paper: 100)")
    seed: int = Field(0, ge=0, description="base seed; every image of a set shares its seed")
    size: str | None = Field(None, description="image size asked of the generator (e.g. 512x512)")

    @field_validator("pair")
    @classmethod
    def _known_pair(cls, value: str) -> str:
        return _pair(value)

    @field_validator("prefixes")
    @classmethod
    def _prefixes(cls, value: list[int] | None) -> list[int] | None:
        n = len(data().prefixes)
        if value is not None and any(not 0 <= i < n for i in value):
            raise ValueError(f"prefix indices run 0..{n - 1}")
        return value


class RetrievalParams(BaseModel):
    """``counterfactual-retrieval``: the sets, the filter, and the search."""

    model_config = ConfigDict(extra="forbid")

    sets: str = Field(
        "pairs",
        description="pairs | generated (the latest counterfactual-sets run) | generated:<run id> "
        "| a directory holding a saved SocialCounterfactuals dataset",
    )
    k: int | None = Field(
        None, ge=1, description="K of the metrics (default: the set size, as the paper)"
    )
    desired: Literal["pool", "uniform"] = Field("pool", description="desired distribution")
    filter_encoder: str | None = Field(
        None, description="model id of the run's model that filters the sets (default: the first)"
    )
    similarity_threshold: float | None = Field(
        None,
        ge=-1.0,
        le=1.0,
        description="stage 1: keep the sets whose mean image-caption cosine similarity is at "
        "least this (default: 0.2 for generated sets, the SocialCounterfactuals code's CLIP "
        "threshold; curated sets, PAIRS and the released dataset, only when set; -1 keeps all)",
    )
    nsfw_annotator: str = Field(
        "nsfw", description="stage 2: the annotator whose labels drop NSFW images"
    )
    nsfw_labels: list[str] = Field(
        default_factory=lambda: ["nsfw"], description="labels meaning NSFW"
    )
    detectability: bool = Field(True, description="stage 3: the attribute detectability filter")
    approximate: bool = Field(False, description="search with chromadb's approximate index")
    chroma_url: str | None = Field(
        None, description="a chromadb server instead of the workspace's (its --chroma)"
    )
    query: str | None = Field(
        None, description="the query whose group shares are drawn (Figure 13)"
    )
    n_boot: int = Field(2000, ge=100, description="bootstrap resamples of the intervals")
    n_perm: int = Field(
        1000, ge=100, description="label permutations of the random-ranking p-values"
    )
    seed: int = Field(0, ge=0, description="bootstrap and permutation seed")

    def generation_run(self) -> str | None:
        """The ``counterfactual-sets`` run the sets come from, once bound (``generated:<id>``)."""
        if self.sets.startswith(GENERATED + ":"):
            return self.sets.split(":", 1)[1]
        return None
