"""The benchmark of the figures no gate read, of null audits their gates stopped early, runs on a
tiny design and measures what it says: a share of the stopped audits whose printed interval
covers the truth, beside the fixed-design interval's share, the target the nominal level."""

from __future__ import annotations

import pytest

from bench.harness import BENCHES
from bench.sequential import stopped


def test_the_stopped_coverage_bench_gives_shares_of_the_audits_stopped_early() -> None:
    found = stopped.stopped_coverage(40, side=6, seed=0)
    # Four of 40 null audits of 6 × 6 identities stopped before their last look at this seed;
    # at two of those looks the fixed-design interval of the figure no gate read missed the
    # truth (0), and the anytime-valid interval of its own looks covered it at all four.
    assert found["stopped"] == 4 and found["unmade"] == 0
    assert 0.0 <= found["coverage"] <= 1.0 and 0.0 <= found["fixed_design"] <= 1.0
    assert found["coverage"] == 1.0
    assert found["fixed_design"] == pytest.approx(2 / 4)


def test_the_figure_is_registered_with_its_nominal_level_and_yields_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (registered,) = [b for b in BENCHES if "sequential.stopped_coverage" in b.figures]
    assert registered.figures == {"sequential.stopped_coverage": ">= 0.95"}
    monkeypatch.setattr(stopped, "AUDITS", 40)
    monkeypatch.setattr(stopped, "SIDE", 6)
    monkeypatch.setattr(stopped, "SEED", 0)
    (line,) = list(registered.fn())
    assert line.name == "sequential.stopped_coverage" and 0.0 <= line.value <= 1.0
    assert line.want == ">= 0.95" and line.ok is (line.value >= 0.95)
    assert line.extra is not None and line.extra["stopped_early"] == 4
    assert line.extra["fixed_design"] == pytest.approx(2 / 4, abs=1e-4)
