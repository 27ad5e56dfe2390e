"""An audit still being bought batch by batch has not stopped: what ``show`` and ``audit gate``
say of its looks then says how far it is, never a stop, so that it agrees with its status
("running")."""

from __future__ import annotations

from diptych.core.audit.sequential import SequentialSummary


def test_an_audit_with_no_stop_yet_says_how_far_it_is() -> None:
    summary = SequentialSummary(stop=None, looks=3, batches=10, bought=492, planned=1640)
    said = summary.sentence()
    # 492 of 1,640 is 30.0%.
    assert said.startswith(
        "The audit has bought 492 of 1,640 requests (30.0%) so far, at look 3 of 10; "
    ), said
    assert "stopped" not in said


def test_an_audit_its_gates_decided_says_it_stopped_early() -> None:
    summary = SequentialSummary(stop="decided", looks=1, batches=10, bought=164, planned=1640)
    assert summary.sentence().startswith(
        "The audit stopped early (every gate decided) after 164 of 1,640 requests (10.0%), at "
        "look 1 of 10; "
    )
