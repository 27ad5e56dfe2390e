"""What a mitigation search is set to do (its identities' halves, the power of its designs, its
caps) and the state its checkpointed graph carries from node to node."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, TypedDict

from diptych.agent.mitigation.prompts import PAIRED_TEMPLATE
from diptych.agent.scoring import former_cap


@dataclass
class MitigationSettings:
    session: str
    baseline: str
    template: str = PAIRED_TEMPLATE
    rounds: int = 1
    per_round: int = 3
    max_cost: float | None = None
    #: The most requests the session buys (its runs' and its placebo words' together).
    max_requests: int | None = None
    #: The former name of ``max_requests``, read as the same (deprecated).
    max_trials: int | None = None
    #: Stop after this many rounds in a row in which no intervention's search interval lay
    #: below 0 (0: never stop early; ``rounds`` still bounds the session).
    patience: int = 2
    seed: int = 0
    n_boot: int = 2000
    search_identities: dict[str, list[str]] = field(default_factory=dict)
    heldout_identities: dict[str, list[str]] = field(default_factory=dict)
    base_params: dict[str, Any] = field(default_factory=dict)
    #: The power of the search and held-out decisions to find a reduction of the threshold,
    #: as :mod:`diptych.agent.mitigation.power` planned the designs.
    power: dict[str, Any] = field(default_factory=dict)
    #: Measure every intervention on the placebo words before it is scored, and reject one
    #: that moves their P(she) beyond their band (:mod:`diptych.agent.mitigation.behaviour_screen`).
    behaviour_screen: bool = True

    def __post_init__(self) -> None:
        self.max_requests, self.max_trials = former_cap(self.max_requests, self.max_trials), None


class MitigationState(TypedDict, total=False):
    settings: dict[str, Any]
    round: int
    current: list[dict[str, Any]]
    tried: list[dict[str, Any]]
    #: Rounds in a row, up to the last, without an intervention that lowers the STS.
    quiet_rounds: int
    budget: dict[str, Any]
    stop_reason: str
    #: The placebo words without any intervention, and their band (the behavioural screen).
    placebo: dict[str, Any]


def settings_dict(settings: MitigationSettings) -> dict[str, Any]:
    return asdict(settings)
