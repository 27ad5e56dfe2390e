"""What a plan prints (``run --dry-run``, ``audit check``) is read as a report's text is, and
planning stores nothing: a dry run where there is no workspace leaves none behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.surfaces.text import cut_problems, printed_problems

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "audits" / "smollm2-offline.yaml"


def test_the_cut_check_catches_a_line_ending_mid_phrase() -> None:
    assert len(cut_problems("variance: figures, standing in for a text model's\nnext")) == 1
    assert len(cut_problems("6,560 trials planned, 164 requests to \nrun")) == 1
    assert cut_problems("variance: figures, standing in for a text model's spread\n") == []
    assert cut_problems("run pst-text-1: 164 requests to run\n") == []


def test_a_dry_run_with_one_identity_a_side_says_why_there_is_no_interval(
    no_terminal: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = call(capsys, "run", "pst-text", "-m", "smollm2", "-p", "masculine=carpenter",
                     "--dry-run")  # fmt: skip
    assert code == 0, out
    assert (
        "STS paired (expected from P(he), P(she)): no interval (1 masculine × 20 feminine "
        "identities crossed in scenes: one masculine identity, nothing to resample over)" in out
    )
    assert "standing in for a text model's spread (none is published)" in out
    # No "t inf", no "df 0", no sentence cut short.
    assert printed_problems(out) == [], out
    assert "df 0" not in out


@pytest.mark.parametrize("columns", [None, "200"], ids=["a log", "200 columns"])
def test_audit_check_lays_out_its_plan_with_separators_and_the_cost_in_its_cell(
    no_terminal: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    columns: str | None,
) -> None:
    # Into a log (no terminal, no width) and at a wide terminal alike: as wide as its content,
    # every cell whole, the cost wrapped in its own column only.
    if columns is not None:
        monkeypatch.setenv("COLUMNS", columns)
    code, out = call(capsys, "audit", "check", str(EXAMPLE))
    assert code == 0, out
    rows = [line.rstrip() for line in out.splitlines()]
    header = next(i for i, line in enumerate(rows) if line.startswith("part "))
    # The search's row: at least the trials its placebo words take before a proposal.
    assert rows[header : header + 4] == [
        "part        kind    probe                    trials  stored  requests  cost"
        "                    models",
        "pst-text    probe   pst-text                  6,560       0     1,640  not priced "
        "(computed    smollm2",
        "                                                                       on this machine)",
        "identities  search  pst-text  ≥ 384 (placebo words)       0     ≥ 384  ≤ budget"
        "                identities: 1 round × 2, agent smollm2",
    ]
    assert printed_problems(out) == [], out
    assert cut_problems(out) == [], out


@pytest.mark.parametrize(
    "args",
    [
        ("run", "pst", "-m", "openai-images", "--dry-run"),
        ("run", "pst-text", "-m", "smollm2", "--dry-run"),
        ("audit", "check", str(EXAMPLE)),
        ("audit", "run", str(EXAMPLE), "--dry-run"),
        ("runs",),
        ("show", "pst-1"),
        ("standings",),
        ("audit", "list"),
    ],
    ids=lambda a: " ".join(a[:2]) + (" --dry-run" if "--dry-run" in a else ""),
)
def test_planning_and_reading_leave_no_workspace_behind(
    no_terminal: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    call(capsys, *args)
    assert list(no_terminal.iterdir()) == []


def test_audit_check_at_80_columns_wraps_its_plan_cells_between_words(
    no_terminal: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan decides what is bought: no cell of it is cut or folded inside a word."""
    monkeypatch.setenv("COLUMNS", "80")
    code, out = call(capsys, "audit", "check", str(EXAMPLE))
    assert code == 0, out
    rows = out.splitlines()
    header = next(i for i, line in enumerate(rows) if line.startswith("part "))
    end = next(i for i, line in enumerate(rows) if line.startswith("total: "))
    table = rows[header:end]
    assert max(len(line.rstrip()) for line in table) <= 80
    assert "…" not in "\n".join(table)
    # Each column's text, read down its lines, is the cell's words whole.
    starts = [table[0].index(name) for name in ("cost", "models")]
    search = next(i for i, line in enumerate(table) if line.startswith("identities "))

    def cell(first: int, last: int, column: int) -> str:
        left = starts[column]
        right = starts[column + 1] if column + 1 < len(starts) else None
        return " ".join(" ".join(line[left:right].split()) for line in table[first:last]).strip()

    assert cell(1, search, 0) == "not priced (computed on this machine)"
    assert cell(1, search, 1) == "smollm2"
    assert cell(search, len(table), 1) == "identities: 1 round × 2, agent smollm2"


def test_the_dry_run_says_what_the_searchs_placebo_words_take_and_a_budget_too_small(
    no_terminal: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A search whose max_requests the placebo words use up scores nothing: the plan says so."""
    code, out = call(capsys, "audit", "run", str(EXAMPLE), "--dry-run")
    assert code == 0, out
    assert (
        "search identities: its placebo words take 384 trials of its 1,500 before a proposal "
        "is scored; its held-out test's take 576 more per side tested"
    ) in out
    assert "raise max_requests" not in out
    code, out = call(capsys, "audit", "run", str(EXAMPLE), "--dry-run",
                     "--set", "searches.0.max_requests=400")  # fmt: skip
    assert code == 0, out
    assert (
        "search identities: max_requests 400 scores no proposal (placebo words 384, a proposal's "
        "search 192); raise max_requests to at least 576"
    ) in out
    assert printed_problems(out) == [], out
