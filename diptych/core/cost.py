"""What requests cost, and the one way every surface says it.

A model declares its price per call (``Model.price``), or declares none: a service whose price
nobody gave, or a model computed on this machine, which buys nothing. A dollar figure summed
over requests of which some have no price would read as the whole cost, and "$0.00" for a
local model as a price someone declared; so a :class:`Cost` carries, beside its dollars, how
many requests were priced and how many were not (and of those, how many were computed here),
and :func:`cost_text` prints a dollar figure only for what was priced:

* ``$1.20``: every request priced (``$0.00`` only where they were and came to nothing);
* ``not priced (computed on this machine)``, ``not priced``: no request priced;
* ``$1.20 + 300 requests not priced``, ``$1.20 + 40 requests computed on this machine``: a
  mix, both said.

A Cost also keeps which kinds of price its models have (:attr:`Cost.kinds`), so that requests
none of which was answered (every one failed, or none was left to run) still say "not priced"
for a model with no price rather than "$0.00"; in a mix, a kind with no request counted is said
with its 0.
"""

from __future__ import annotations

from typing import Any

#: What a request of a model with no price that runs in this process is (nothing is bought).
COMPUTED_HERE = "computed on this machine"

#: The kinds of price a model's request has (:attr:`Cost.kinds`): one priced, one of a service
#: that declares no price, one computed on this machine.
PRICED, SERVICE, LOCAL = "priced", "service", "local"


def computed_here(model: Any) -> bool:
    """Whether a model's requests with no price buy nothing: its backend runs in this process
    (``hints.blocking``: llama.cpp, torch), where a service's price may simply be unknown."""
    return bool(model.hints.blocking)


def price_kind(model: Any, price: float | None) -> str:
    """The kind of a request of ``model`` priced at ``price`` (None: no price declared)."""
    if price is not None:
        return PRICED
    return LOCAL if computed_here(model) else SERVICE


class Cost(float):
    """US dollars at the models' declared prices: a float wherever one is read (a budget's
    arithmetic, a JSON number), with what the dollars leave out. Added to another Cost (or
    :func:`sum` of several), the counts add up too."""

    #: Requests priced (their prices are the dollars), requests whose model declares no price,
    #: and of those, the ones computed on this machine.
    priced: int
    unpriced: int
    local: int
    #: The kinds of price (:data:`PRICED`, :data:`SERVICE`, :data:`LOCAL`) of the models
    #: behind these requests, whether or not a request of theirs is counted: the kinds of the
    #: requests counted, and those given.
    kinds: frozenset[str]

    def __new__(cls, usd: float = 0.0, *, priced: int = 0, unpriced: int = 0, local: int = 0,
                kinds: frozenset[str] | set[str] = frozenset()):  # fmt: skip
        cost = super().__new__(cls, usd)
        cost.priced, cost.unpriced, cost.local = priced, unpriced, min(local, unpriced)
        counted = {PRICED: priced, SERVICE: unpriced - cost.local, LOCAL: cost.local}
        cost.kinds = frozenset(kinds) | {kind for kind, n in counted.items() if n}
        return cost

    def __add__(self, other: Any) -> Any:
        if isinstance(other, Cost):
            return Cost(float(self) + float(other), priced=self.priced + other.priced,
                        unpriced=self.unpriced + other.unpriced,
                        local=self.local + other.local,
                        kinds=self.kinds | other.kinds)  # fmt: skip
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:
            return self  # sum()'s start
        return float(self) + other

    def __radd__(self, other: Any) -> Any:
        return self.__add__(other)

    def share(self, fraction: float) -> Cost:
        """What ``fraction`` of these requests would cost, at their mean price (the requests
        counted whole)."""
        return Cost(float(self) * fraction, priced=round(self.priced * fraction),
                    unpriced=round(self.unpriced * fraction),
                    local=round(self.local * fraction), kinds=self.kinds)  # fmt: skip

    @property
    def known(self) -> bool:
        """Whether the dollars are the whole cost: no request without a price."""
        return not self.unpriced


def dollars_text(value: float) -> str:
    """An amount of dollars and cents that is known (a budget, a priced sum)."""
    return f"${value:,.2f}"


def cost_text(cost: float | None) -> str:
    """The one wording of a cost (see the module): a plain float is dollars known; None is a
    cost nothing priced."""
    if cost is None:
        return "not priced"
    if not isinstance(cost, Cost) or cost.kinds <= {PRICED}:
        return dollars_text(cost)
    service = cost.unpriced - cost.local
    left = [
        f"{n:,} {'request' if n == 1 else 'requests'} {what}"
        for n, what, kind in ((service, "not priced", SERVICE), (cost.local, COMPUTED_HERE, LOCAL))
        if kind in cost.kinds
    ]
    if PRICED in cost.kinds:
        return " + ".join([dollars_text(cost), *left])
    return "not priced" if SERVICE in cost.kinds else f"not priced ({COMPUTED_HERE})"


def answered(cost: float) -> int:
    """The requests ``cost`` counts, priced or not (none for a plain float)."""
    return cost.priced + cost.unpriced if isinstance(cost, Cost) else 0


def answered_since(now: Cost, before: Cost) -> Cost:
    """What the requests answered between ``before`` and ``now`` cost (``now`` counts the
    same requests and more): what a command asked, where the runs it continued held
    ``before`` already."""
    return Cost(
        max(float(now) - float(before), 0.0),
        priced=max(now.priced - before.priced, 0),
        unpriced=max(now.unpriced - before.unpriced, 0),
        local=max(now.local - before.local, 0),
        kinds=now.kinds,
    )


def requests_and_cost(
    cost: float,
    now: float | None = None,
    *,
    reused: int = 0,
    agent_calls: int = 0,
    agent_now: int = 0,
) -> str:
    """What was spent, as an audit's closing line says it: the cost in the one wording and the
    requests it counts, priced or not, in the unit the estimate counts ("requests to run").
    With ``now``, what this command asked (sent to a model), said apart from what the runs
    hold (``cost``, of which ``agent_calls`` are a search's agent's calls, which no run holds)
    and from the answers its new runs found stored (``reused``): "cost $0.42; 300 requests
    answered now" where it asked them all, "cost $0.10 for 100 requests answered now; the runs
    hold 300 answered requests, cost $0.42" where the runs held some before, "none answered
    now, 1,640 reused, stored by an earlier run; the runs hold 1,640 answered requests, cost
    not priced (computed on this machine)" where it asked none. Of ``now``, ``agent_now`` are
    the agent's calls, said apart as ``agent_calls`` are: "384 requests answered now and 1
    agent call". A plain float is its cost alone: what it counts is not known."""
    if not isinstance(cost, Cost):
        return f"cost {cost_text(cost)}"
    n = cost.priced + cost.unpriced
    if not isinstance(now, Cost):
        return f"cost {cost_text(cost)}; {_requests(n)} answered"
    k = answered(now)
    runs = n - agent_calls
    held = f"the runs hold {runs:,} answered {'request' if runs == 1 else 'requests'}"
    if agent_calls:
        held += f", the agent's calls {agent_calls:,} more"
    found = f", {reused:,} reused, stored by an earlier run" if reused else ""
    # The agent's calls asked now are said apart from the runs' requests, as in what is held.
    asked = f"{_requests(k - agent_now)} answered now"
    if agent_now:
        asked += f" and {agent_now:,} agent {'call' if agent_now == 1 else 'calls'}"
    if k >= n:
        return f"cost {cost_text(now)}; {asked}"
    if k == 0:
        return f"none answered now{found}; {held}, cost {cost_text(cost)}"
    return f"cost {cost_text(now)} for {asked}{found}; {held}, cost {cost_text(cost)}"


def _requests(n: int) -> str:
    return f"{n:,} {'request' if n == 1 else 'requests'}"


def cost_fields(cost: float) -> dict[str, Any]:
    """``cost`` as a JSON record keeps it: the dollars priced, the requests priced and not
    (of those, computed on this machine), the kinds of price, and the one wording of it."""
    if not isinstance(cost, Cost):
        cost = Cost(cost, kinds={PRICED})
    return {
        "usd": float(cost),
        "priced_requests": cost.priced,
        "unpriced_requests": cost.unpriced,
        "computed_here_requests": cost.local,
        "price_kinds": sorted(cost.kinds),
        "text": cost_text(cost),
    }


def cost_of_fields(fields: Any, usd: float = 0.0) -> Cost:
    """The :class:`Cost` that :func:`cost_fields` wrote (``usd`` alone where only dollars were
    kept: a record written before the counts)."""
    if not isinstance(fields, dict):
        return Cost(usd)
    return Cost(
        float(fields.get("usd") or 0.0),
        priced=int(fields.get("priced_requests") or 0),
        unpriced=int(fields.get("unpriced_requests") or 0),
        local=int(fields.get("computed_here_requests") or 0),
        kinds=frozenset(str(k) for k in fields.get("price_kinds") or ()),
    )
