"""The surface check that a report's labels per annotator are counted on the trials its figures
read, the look named where those are the look's (:mod:`tests.support.surfaces.read_trials`)."""

from __future__ import annotations

from typing import Any

from tests.support.surfaces.read_trials import labels_look_problems

LOOK = "look 1 of 10"


def _report(labels_at: str | None, *, bought_on: bool = True, whole: bool = False) -> Any:
    number = {"value": 11.8, "bought_on": True, "stopped_at": LOOK} if bought_on else {"value": 1}
    return {
        "runs": [
            {
                "run": "r",
                "result": {"numbers": {"STS paired": number}},
                "read_all_since": whole,
                "review": {"labels": {"self": 656}, "labels_at": labels_at},
            }
        ]
    }


def test_labels_of_the_looks_trials_named_at_the_look_pass() -> None:
    assert labels_look_problems(_report(LOOK)) == []
    assert labels_look_problems(_report(None, bought_on=False)) == []
    # The look's trials not rebuilt: its tables and labels read all, the look not named.
    assert labels_look_problems(_report(None, whole=True)) == []


def test_labels_beside_figures_of_other_trials_fail() -> None:
    (found,) = labels_look_problems(_report(None))
    assert "figures read the trials at look 1 of 10" in found, found
    (found,) = labels_look_problems(_report(LOOK, whole=True))
    assert "figures read all its trials" in found, found
    (found,) = labels_look_problems(_report("look 2 of 10"))
    assert "counted at look 2 of 10" in found, found
