"""What a mitigation session's outcomes say in one line, and the decisions its statuses rest
on (an interval below 0)."""

from __future__ import annotations

from typing import Any

from diptych.core.digits import figure_text, signed_text

#: Statuses of an intervention that was run and measured (its search change has a figure).
SCORED = ("finding", "not confirmed", "no finding", "scored")


def outcome_counts(tried: list[dict[str, Any]]) -> str:
    """What a session measured, in one line: "3 interventions scored (1 finding, 2 no
    finding); 1 unscored, 4 rejected"."""
    statuses = [str(t.get("status", "")) for t in tried]
    scored = [s for s in statuses if s in SCORED]
    parts = ", ".join(f"{scored.count(s)} {s}" for s in SCORED if s in scored)
    text = f"{len(scored)} intervention{'' if len(scored) == 1 else 's'} scored"
    text += f" ({parts})" if parts else ""
    others = [f"{statuses.count(s)} {s}" for s in ("unscored", "rejected") if s in statuses]
    return text + (f"; {', '.join(others)}" if others else "")


def empty_front(tried: list[dict[str, Any]]) -> str:
    """Why the Pareto front is empty: nothing could be scored, or nothing scored lowered the
    STS on held-out data."""
    if not any(t.get("status") in SCORED for t in tried):
        return "(no intervention could be scored)"
    return "(no intervention lowered the STS on held-out data)"


def _below_zero(score: dict[str, Any]) -> bool:
    """Whether a change's interval lies below 0 (an interval that could not be made is
    (-inf, inf), written "-inf" / "inf")."""
    return "difference" in score and float(score["ci_high"]) < 0


def _interval(score: dict[str, Any]) -> str:
    if score.get("reason"):
        return f"{signed_text(score['difference'])} ({score['reason']})"
    low, high = figure_text(score["ci_low"]), figure_text(score["ci_high"])
    return f"{signed_text(score['difference'])} [{low}, {high}]"


def nothing_new(proposed: int) -> str:
    """Why a session stops where a round's proposals were all tried before (or it had none)."""
    said = "only interventions already tried" if proposed else "no intervention"
    return f"the agent proposed {said}: nothing new is left to propose"
