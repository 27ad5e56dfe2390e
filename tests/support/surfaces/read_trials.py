"""What a report's counts beside its figures read: of a run bought on since its gates stopped it
early, the figures are read at the look they stopped at (each number ``bought_on``, with its
``stopped_at``) and so are its tables, unless the look's trials cannot be rebuilt
(``read_all_since``: its tables then read all its trials). Its labels per annotator must be
counted on the trials its tables read, and the page name the look where those are the look's
(``review.labels_at``); never a count of one set of trials beside figures of another, unnamed."""

from __future__ import annotations

from typing import Any


def labels_look_problems(data: dict[str, Any]) -> list[str]:
    """Each run whose labels are counted on other trials than its figures read, or on its
    look's trials without the page naming the look."""
    problems = []
    for run in data.get("runs") or []:
        result = run.get("result") or {}
        review = run.get("review") or {}
        if not review.get("labels"):
            continue
        looks = {
            str(n.get("stopped_at"))
            for n in (result.get("numbers") or {}).values()
            if isinstance(n, dict) and n.get("bought_on")
        }
        whole = bool(run.get("read_all_since"))
        expected = None if whole or len(looks) != 1 else next(iter(looks))
        if review.get("labels_at") != expected:
            problems.append(
                f"run {run.get('run')}: its figures read "
                f"{'the trials at ' + expected if expected else 'all its trials'}, its labels "
                f"per annotator are said counted at {review.get('labels_at') or 'all its trials'}"
            )
    return problems
