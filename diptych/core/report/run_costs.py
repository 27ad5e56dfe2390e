"""What a run cost: its answered calls at the models' declared prices (the estimate a budget
is held to) and the dollars the services reported for them, as the report and an audit's
budget read them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from diptych.core.capabilities import Capability
from diptych.core.cost import SERVICE, Cost, computed_here, dollars_text, price_kind
from diptych.core.errors import DiptychError
from diptych.core.plugins import model_class

if TYPE_CHECKING:
    from diptych.core.runview import RunView

__all__ = ["ActualCost", "cost_actual", "cost_of_calls", "cost_paid"]


def cost_paid(view: RunView) -> Cost | None:
    """Dollars the run's answered calls cost at the models' declared prices, answers paid for
    but unusable included; None when no call had a price (:func:`cost_of_calls` says why)."""
    cost = cost_of_calls(view)
    return cost if cost.priced else None


def cost_of_calls(
    view: RunView, *, since: float | None = None, counted: set[str] | None = None
) -> Cost:
    """The run's answered requests (one for all the trials that ask the same) at the models'
    declared prices, answers paid for but unusable included, with how many had no price and
    how many of those were computed on this machine (a local model costs nothing that diptych
    can count); and the kinds of price its models have, so that a run none of whose requests
    was answered still says "not priced" for a model with no price.

    ``since`` (the store's clock) counts only the answers stored from then on: what a command
    that began then asked, never an answer it found stored. ``counted``, the requests another
    run counted already (shared by the runs of one sum, and added to), counts a request shared
    by runs once."""
    prices: dict[str, Any] = {}
    for m in view.run.models:
        name = m.get("name") or str(m["model_id"]).split("@")[0]
        try:
            cls = model_class(name)
            prices[m["model_id"]] = cls(cls.Params.model_validate(m.get("params") or {}))
        # A model whose SDK is absent, or whose parameters changed since, has no price here;
        # the report says the cost is unknown rather than failing.
        except (DiptychError, ValueError, TypeError):
            prices[m["model_id"]] = None
    total, priced, unpriced, local = 0.0, 0, 0, 0
    kinds: dict[str, str] = {}
    # Trials that ask the same thing share one request (a likelihood's samples): counted once.
    asked: set[str] = set()
    for trial in view.trials:
        if trial.key in asked:
            continue
        asked.add(trial.key)
        model = prices.get(trial.model_id)
        result = view.results.get(trial.key)
        if result is not None and (
            (since is not None and result.finished_at < since)
            or (counted is not None and trial.key in counted)
        ):
            result = None  # answered before ``since``, or counted by another run
        elif result is not None and counted is not None:
            counted.add(trial.key)
        # Every answer paid for but unusable was billed as well, whatever the outcome.
        unusable = 0 if result is None else result.provenance.get("paid_unusable", 0)
        calls = int(result is not None and result.status in ("done", "refused")) + (
            unusable if isinstance(unusable, int) else 0
        )
        if not calls and trial.model_id in kinds:
            continue
        price = None if model is None else model.price(Capability(trial.capability), trial.payload)
        # A model's kind of price from its first trial, answered or not.
        kinds.setdefault(trial.model_id, SERVICE if model is None else price_kind(model, price))
        if not calls:
            continue
        if price is not None:
            total, priced = total + price * calls, priced + calls
        else:
            unpriced += calls
            local += calls if model is not None and computed_here(model) else 0
    return Cost(total, priced=priced, unpriced=unpriced, local=local, kinds=set(kinds.values()))


@dataclass(frozen=True)
class ActualCost:
    """The dollars the services reported for a run's answered calls (from their token
    counts), beside which the report shows the estimate ``--max-cost`` reserved."""

    #: The sum of the reported costs; None when no call reported one.
    usd: float | None
    #: Answered calls that reported a cost, and answered calls in all.
    reported: int
    answered: int

    @property
    def text(self) -> str:
        if self.usd is None:
            return "not reported"
        if self.reported < self.answered:
            # The rest were answered by a service that sent no token counts (or before
            # diptych read them): the sum is a lower bound.
            return (
                f"{dollars_text(self.usd)} ({self.reported:,} of {self.answered:,} calls reported)"
            )
        return dollars_text(self.usd)


def cost_actual(view: RunView) -> ActualCost:
    """What the services reported the run's answered calls cost (``cost_usd`` in each
    result's provenance)."""
    total, reported, answered = 0.0, 0, 0
    for result in view.results.values():
        if result.status not in ("done", "refused"):
            continue
        answered += 1
        cost = result.provenance.get("cost_usd")
        if isinstance(cost, int | float) and not isinstance(cost, bool) and math.isfinite(cost):
            total, reported = total + float(cost), reported + 1
    return ActualCost(total if reported else None, reported, answered)
