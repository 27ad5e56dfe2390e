"""The shortest name printed for a run names that run alone, in every command's lookup."""

from __future__ import annotations

from diptych.core.run_names import runs_named, short_names
from diptych.core.store import RunRecord


def run(run_id: str, probe: str = "pst-text") -> RunRecord:
    return RunRecord(
        id=run_id, probe=probe, probe_version="1", params={}, models=[], fingerprint="f",
        status="complete", n_trials=1, diptych_version="0", created_at=0.0, updated_at=0.0,
    )  # fmt: skip


def test_two_runs_of_one_design_are_printed_with_the_digits_that_tell_them_apart() -> None:
    first = run("pst-text-0663f62e")
    # Two runs of the same design asked for anew: 8 hex digits, then a time stamp each.
    again = run("pst-text-0663f62e-1764381234ab12")
    later = run("pst-text-0663f62e-1764381299cd34")
    other = run("pairs-91a2b3c4", probe="pairs")
    runs = [first, again, later, other]
    names = short_names(runs)
    # "0663f62e" is the first run's whole short id; the others share its 8 digits and their
    # stamps' first 8 ("17643812"), and part at the 18th character.
    assert names == {
        first.id: "0663f62e",
        again.id: "0663f62e-176438123",
        later.id: "0663f62e-176438129",
        other.id: "91a2b3c4",
    }
    for record in runs:
        assert runs_named(runs, names[record.id]) == [record]
    # One character fewer names two runs (or, for a name of 8, is never printed).
    assert runs_named(runs, "0663f62e-17643812") == [again, later]
    assert runs_named(runs, "0663f62") == [first, again, later]


def test_a_lone_run_is_printed_with_eight_digits_and_a_name_never_ends_on_its_dash() -> None:
    only = run("pst-text-0663f62e-1764381234ab12")
    assert short_names([only]) == {only.id: "0663f62e"}
    # Beside the first run of its design, 9 characters would do; "0663f62e-" reads as cut.
    first = run("pst-text-0663f62e")
    assert short_names([first, only])[only.id] == "0663f62e-1"
