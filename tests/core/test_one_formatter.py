"""Every figure a user reads prints by one rule of digits (:mod:`diptych.core.digits`): no module
formats a figure by hand with a fixed precision (``{x:.2f}``, ``{x:.0%}``, ``{x:.3e}``), which
would print the same figure with other digits in the CLI, the terminal app and the report."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from diptych.core.digits import figure_text, level_text, p_text, percent_text, signed_text
from tests.support.surfaces.text import percent_problems

PACKAGE = Path(__file__).resolve().parents[2] / "diptych"

#: A format spec with a fixed precision: ``.2f``, ``,.1f``, ``+.1f``, ``.0%``, ``.3e``.
FIXED = re.compile(r"\.\d+[fFeE%]")

#: What is no figure a user reads, by module and the expression formatted ("*": every one).
ALLOWED: dict[str, dict[str, str]] = {
    "diptych/core/digits.py": {"*": "the rule of digits itself"},
    "diptych/core/cost.py": {"value": "dollars to the cent, the one wording of an amount"},
    "diptych/core/report/charts/svg.py": {"*": "SVG coordinates and sizes, not figures"},
    "diptych/cli/bundle_cmd.py": {"n / 1024 ** 2": "a file size"},
    "diptych/core/engine/persisting.py": {"n": "a file size"},
    "diptych/cli/progress.py": {"seconds": "a time left, in seconds"},
    "diptych/core/engine/execution.py": {"delay": "seconds until a retry"},
    "diptych/tui/progress.py": {"self.rate": "a progress bar's requests per second"},
}


def fixed_precision_specs(path: Path) -> list[tuple[int, str, str]]:
    """Each f-string field (and ``format(x, spec)`` call) of a module whose spec fixes the
    precision: line, spec and the expression formatted."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            spec = "".join(
                part.value
                for part in ast.walk(node.format_spec)
                if isinstance(part, ast.Constant) and isinstance(part.value, str)
            )
            if FIXED.search(spec):
                found.append((node.lineno, spec, ast.unparse(node.value)))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "format"
            and len(node.args) == 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and FIXED.search(node.args[1].value)
        ):
            found.append((node.lineno, node.args[1].value, ast.unparse(node.args[0])))
    return found


def hand_formatted(root: Path) -> list[str]:
    """Every fixed-precision spec under ``root`` that the allow-list does not name."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root.parent).as_posix()
        allowed = ALLOWED.get(name, {})
        for line, spec, expr in fixed_precision_specs(path):
            if "*" not in allowed and expr not in allowed:
                bad.append(f"{name}:{line}: {{{expr}:{spec}}}")
    return bad


def test_no_figure_is_formatted_by_hand():
    bad = hand_formatted(PACKAGE)
    assert not bad, "print these by diptych.core.digits (figure_text, percent_text, ...):\n" + (
        "\n".join(bad)
    )


def test_every_allowed_exception_still_exists():
    """An allow-list entry whose module or expression is gone is a stale reason."""
    for name, exprs in ALLOWED.items():
        path = PACKAGE.parent / name
        assert path.exists(), name
        found = {expr for _, _, expr in fixed_precision_specs(path)}
        for expr in exprs:
            assert expr == "*" or expr in found, f"{name}: {expr}"


def test_the_scan_finds_each_kind_of_hand_formatting(tmp_path):
    module = tmp_path / "diptych" / "m.py"
    module.parent.mkdir()
    module.write_text(
        "x = 1.5\n"
        "a = f'{x:.2f}'\n"
        "b = f'{x:+.1f} and {x:,.0f}'\n"
        "c = f'{x:.0%}'\n"
        "d = f'{x:.3e}'\n"
        "e = format(x, '.1f')\n"
        "w = 9\n"
        "g = f'{x:>{w}.2f}'\n"
        "ok = f'{x:g} {x:,} {x:>8} {x}'\n",
        encoding="utf-8",
    )
    assert sorted(b.split(": ", 1)[1] for b in hand_formatted(tmp_path / "diptych")) == sorted([
        "{x:.2f}",
        "{x:+.1f}",
        "{x:,.0f}",
        "{x:.0%}",
        "{x:.3e}",
        "{x:.1f}",
        "{x:>.2f}",
    ])  # fmt: skip


@pytest.mark.parametrize(
    ("share", "text"),
    [(1_424 / 6_560, "21.7%"), (0.1, "10.0%"), (0.9, "90.0%"), (0.125, "12.5%"),
     (0.0417, "4.17%"), (0.4012, "40.1%"), (1.0, "100.0%"), (0.0, "0.00%"), (None, "—")],
)  # fmt: skip
def test_a_share_prints_as_a_percent_by_the_rule(share, text):
    """A round share keeps its decimal: "10%" beside "78.3%" reads as a coarser figure."""
    assert percent_text(share) == text
    assert percent_problems(f"({text})") == []


@pytest.mark.parametrize(
    ("level", "text"), [(0.95, "95%"), (0.975, "97.5%"), (0.05, "5%"), (0.9, "90%")]
)
def test_a_level_set_keeps_the_digits_it_was_given(level, text):
    assert level_text(level) == text


def test_the_percent_check_fails_a_whole_share_and_passes_a_level():
    assert len(percent_problems("prog 21%")) == 1
    assert len(percent_problems("656 of 6,560 requests (10%), saving 5,904 (90%)")) == 2
    assert percent_problems("95% anytime-valid interval; 95% CI; at 95%, not adjusted") == []
    assert percent_problems("21.7% of its design; 10.0%; 4.17%") == []


@pytest.mark.parametrize(
    ("value", "text"),
    [(1.25, "+1.25"), (-0.4, "−0.40"), (12.34, "+12.3"), (-15.8, "−15.8"), (0.001, "0.00"),
     (-0.004, "0.00"), (0, "0"), (None, "—"), (float("inf"), "∞")],
)  # fmt: skip
def test_a_change_prints_its_sign_by_the_rule(value, text):
    assert signed_text(value) == text
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        assert signed_text(value).lstrip("+") == figure_text(value)


def test_p_values_keep_three_decimals():
    assert (p_text(0.0123), p_text(0.0004), p_text(None)) == ("0.012", "< 0.001", "—")


@pytest.mark.parametrize(
    ("value", "printed"),
    [(-9.997, "−10.0"), (9.996, "10.0"), (9.994, "9.99"), (-9.5, "−9.50"), (10.04, "10.0")],
)
def test_a_figure_that_rounds_to_ten_prints_one_decimal(value: float, printed: str) -> None:
    # Two decimals are for figures below 10; one that rounds up to 10 is no longer one.
    assert figure_text(value) == printed
