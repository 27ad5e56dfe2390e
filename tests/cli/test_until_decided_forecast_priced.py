"""``audit run --dry-run --until-decided`` forecasts what this command would buy: the same
audit, with and without part of its design stored, forecasts a cost lower by the stored
requests' price, and a share of the design lower by their share.

The audit of :func:`planted_audit` has 144 requests at $0.01 a call, one call a request, bought
in 2 batches of 72. Its figure assumed at −50, far below the limit of 62, is decided at the
first look in every simulated audit."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")

ASSUMED = "-50"
LIMIT = 62
HEAD = "until decided, in 2 batches (each gate alone at its Holm level):\n"


def _words(tmp_path: Path, below: float) -> list[str]:
    gate = {"part": "pst-text", "figure": FIGURE, "below": below}
    file = planted_audit(tmp_path / "a.yaml", [gate], MASC, FEM, name="priced", seed=2,
                         model_params={"price_per_call": 0.01})  # fmt: skip
    return ["--store", str(tmp_path / "ws"), "audit", "run", str(file), "--out",
            str(tmp_path / "rep")]  # fmt: skip


def _forecast(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> list[str]:
    code, out = call(capsys, *_words(tmp_path, LIMIT), "--dry-run", "--until-decided", "--batches",
                     "2", "--assume", ASSUMED)  # fmt: skip
    assert code == 0, out
    return [line.split("): ", 1)[-1] for line in out.split(HEAD, 1)[1].splitlines()]


def test_the_stored_first_batch_is_not_paid_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")
    # Nothing stored: the first look reads 72 requests (50.0% of 144) and decides: $0.72.
    assert _forecast(capsys, tmp_path) == [
        f"  pst-text: {FIGURE} below {LIMIT}: the whole design 144 requests, $1.44 to buy",
        "expected 50.0% ± 0.00% of the design, about 72 requests, $0.72; decided (pass) in 100.0% "
        "of 200 simulated audits",
    ]
    # Gated below 95, the audit decides at its first look: those 72 requests are stored.
    code, out = call(capsys, *_words(tmp_path, 95), "--until-decided", "--batches", "2",
                     "--quiet")  # fmt: skip
    assert code == 0 and "72 of 144 requests" in out, out
    # The forecast's first look is those 72, free: $0.72 less, 72/144 of the design less.
    assert _forecast(capsys, tmp_path) == [
        f"  pst-text: {FIGURE} below {LIMIT}: the whole design 144 requests, 72 stored, "
        "$0.72 to buy",
        "expected 0.00% ± 0.00% of the design, none beyond the 72 stored, $0.00; decided (pass) "
        "in 100.0% of 200 simulated audits",
        # The value the run read, near the limit, is seldom decided: what is bought is a share
        # of the 72 left, 67 of them (46.5% of 144) at $0.01.
        "expected 46.5% ± 0.90% of the design, about 67 requests beyond the 72 stored, $0.67; "
        "decided (pass) in 20.5% of 200 simulated audits",
    ]
