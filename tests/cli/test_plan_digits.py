"""A plan's expected half-widths (``run --dry-run``, the New run screen's plan) and Review's
probabilities print by the one rule of digits the report follows: one decimal from 10 up, two
below, never a whole "±11" or a third decimal ("±0.432")."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text

from diptych.tui.review.text import text_output
from tests.support.cli import call
from tests.support.surfaces.text import digit_problems, printed_problems, spread_problems


def test_the_checks_catch_a_half_width_off_the_rule() -> None:
    assert len(spread_problems("STS paired: ±11 (20 × 20 identities, df 19, t 2.09)")) == 1
    assert len(printed_problems("STS paired: ±11 (20 × 20 identities)")) == 1
    assert len(digit_problems("association score, man: ±0.432 (20 scenarios)")) == 1
    assert spread_problems("±11.0, ±0.43, ±1,204.5") == []


@pytest.mark.parametrize(
    "args",
    [
        ("run", "pst-text", "-m", "smollm2", "--dry-run", "--target-width", "10"),
        ("run", "pairs", "-m", "openai-vision", "--dry-run"),
        ("run", "pst", "-m", "openai-images", "--dry-run"),
    ],
    ids=lambda a: a[1],
)
def test_a_plans_figures_follow_the_rule_of_digits(
    no_terminal: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    code, out = call(capsys, *args)
    assert code == 0, out
    plan = [line for line in out.splitlines() if "±" in line]
    assert plan, out
    assert [p for line in plan for p in digit_problems(line) + spread_problems(line)] == []


def test_review_prints_a_probability_as_the_report_does() -> None:
    shown = text_output(None, None, [(" he", 0.988), (" she", 0.012)], Text()).plain
    assert "she  1.20% " in shown and " he  98.8% " in shown, shown
    assert "(together 100.0% of the next word)" in shown, shown
