"""The kill drill counts what a kill really costs: the calls in flight at the kill are asked
again by the resume (their answers never arrived), at most the run's concurrency, and nothing
stored is asked again."""

from __future__ import annotations

from pathlib import Path

from diptych.testing.drills import kill_point


def test_calls_in_flight_at_a_kill_are_counted_as_asked_again(tmp_path: Path) -> None:
    # Slow calls, four at a time, killed after six have started: some are in flight.
    point = kill_point(tmp_path, 6, trials=16, concurrency=4, latency=0.5)
    assert point.killed
    assert point.asked_again == []
    assert 1 <= len(point.in_flight) <= 4
    # Every call in flight at the kill was asked again by the resume, and nothing else was.
    assert point.in_flight_asked_again == point.in_flight
    assert point.unfinished == 0 and point.lost == [] and point.ok
