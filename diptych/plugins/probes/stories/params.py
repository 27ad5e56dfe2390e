"""The parameters of a ``stories`` run: which images and prompts, how often, how the texts are
analysed."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from diptych.core.metrics.pairs.lexical import DEFAULT_MIN_COUNT, DEFAULT_THRESHOLD, Processing
from diptych.datasets import pairs
from diptych.plugins.probes.stories.data import story_prompts

Subset = Literal["occupations", "status", "potential_crime"]
DEFAULT_SUBSETS: tuple[Subset, ...] = ("potential_crime",)


class StoriesParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    subsets: list[Subset] = Field(
        default_factory=lambda: list(DEFAULT_SUBSETS),
        description="PAIRS subsets whose scenarios are used (paper: potential_crime, 10)",
    )
    scenarios: list[str] | None = Field(
        None, description="only these scenarios of the subsets (default: all of them)"
    )
    prompts: list[int] | None = Field(
        None, description="only these prompts of Table 1, by number 1-6 (default: all six)"
    )
    runs: int = Field(3, ge=1, description="generations per image and prompt (paper: 3)")
    seed: int = Field(
        0, ge=0, description="sampling seed of run r is seed*1000 + r-1, the same for all images"
    )
    threshold: float = Field(
        DEFAULT_THRESHOLD, description="analysis: keep words scoring above it (paper: 0.6)"
    )
    min_count: int = Field(
        DEFAULT_MIN_COUNT, ge=1, description="analysis: keep words a group uses this often (3)"
    )
    processing: Processing = Field(
        "default",
        description="analysis: the paper's text processing, or raw (lower case, letter runs)",
    )

    @field_validator("subsets")
    @classmethod
    def _subsets(cls, subsets: list[Subset]) -> list[Subset]:
        if not subsets:
            raise ValueError(f"name at least one subset: {', '.join(pairs.SUBSETS)}")
        if len(set(subsets)) != len(subsets):
            raise ValueError("subsets repeated; name each once")
        return subsets

    @model_validator(mode="after")
    def _known(self) -> StoriesParams:
        if self.scenarios is not None:
            known = [s for subset in self.subsets for s in pairs.scenarios(subset)]
            unknown = [s for s in self.scenarios if s not in known]
            if unknown or not self.scenarios:
                raise ValueError(
                    f"unknown scenarios {unknown} of {', '.join(self.subsets)}; known: "
                    f"{', '.join(known)}"
                )
            if len(set(self.scenarios)) != len(self.scenarios):
                raise ValueError("scenarios repeated; name each once")
        if self.prompts is not None:
            known_ids = [p.id for p in story_prompts().prompts]
            unknown_ids = [p for p in self.prompts if p not in known_ids]
            if unknown_ids or not self.prompts:
                raise ValueError(
                    f"unknown prompts {unknown_ids}; Table 1 numbers them "
                    f"{', '.join(map(str, known_ids))}"
                )
            if len(set(self.prompts)) != len(self.prompts):
                raise ValueError("prompts repeated; name each once")
        return self


def chosen_images(params: StoriesParams) -> list[pairs.PairsImage]:
    """The PAIRS images a run with ``params`` shows, in the dataset's order."""
    chosen = [img for subset in params.subsets for img in pairs.images(subset=subset)]
    if params.scenarios is not None:
        wanted = set(params.scenarios)
        chosen = [img for img in chosen if img.scenario in wanted]
    return chosen
