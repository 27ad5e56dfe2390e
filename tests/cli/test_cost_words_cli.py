"""The CLI says a cost in the one wording (diptych.core.cost): an audit bought until decided on
a model with no price says "not priced" and what it saved in requests only; on a priced one,
its dollars and what stopping saved at the plan's prices; a dry run of a priced and an
unpriced model says both."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tests.support.cli import call
from tests.support.sequential_audits import FIGURE, planted_audit

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
#: 6 × 6 scenes, both orders, both people: 144 distinct prompts.
REQUESTS = 144

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _bought(tmp_path: Path, capsys: pytest.CaptureFixture[str], price: float | None) -> str:
    params = {} if price is None else {"price_per_call": price}
    file = planted_audit(tmp_path / "a.yaml", [{"part": "pst-text", "figure": FIGURE,
                         "below": 95}], MASC, FEM, name="cost-words", seed=2,
                         model_params=params)  # fmt: skip
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "audit", "run", str(file),
                     "--until-decided", "--batches", "4", "--out", str(tmp_path / "rep"),
                     "--quiet")  # fmt: skip
    assert code == 0, out
    return out


def test_an_unpriced_model_is_said_not_priced_and_saves_requests_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _bought(tmp_path, capsys, None)
    assert "$" not in out, out
    stopped = next(line for line in out.splitlines() if line.startswith("stopped:"))
    bought, saved = _counted(out)
    # What was bought and saved, counted in requests, said once; its cost unpriced.
    assert f"saved; cost not priced; {bought} requests answered now; report " in out, out
    assert saved == REQUESTS - bought
    assert re.fullmatch(r"stopped: every gate decided in \d of 4 batches", stopped), stopped


def _counted(out: str) -> tuple[int, int]:
    """The requests the closing line says were bought and saved, as `audit list` says them."""
    found = re.search(r"^audit \S+ decided at look \d of 4: (\d+) of 144 requests, (\d+) saved",
                      out, re.M)  # fmt: skip
    assert found is not None, out
    return int(found[1]), int(found[2])


def test_a_priced_model_says_its_dollars_and_what_stopping_saved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _bought(tmp_path, capsys, 0.01)
    stopped = next(line for line in out.splitlines() if line.startswith("stopped:"))
    bought, saved = _counted(out)
    # One cent a request: what was bought, and the rest of the design left unbought.
    assert f"saved; cost ${bought / 100:.2f}; {bought} requests answered now; report " in out, out
    assert saved == REQUESTS - bought
    assert stopped.endswith(f"; saved about ${saved / 100:.2f} at the plan's prices"), stopped


def test_a_plan_of_a_priced_and_an_unpriced_model_says_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = planted_audit(tmp_path / "a.yaml", [], MASC, FEM, name="cost-mix", seed=2,
                         model_params={"price_per_call": 0.01})  # fmt: skip
    audit = yaml.safe_load(file.read_text())
    audit.pop("gates", None)
    audit["models"]["free"] = {"plugin": "scripted-likelihood", "params": {"noise": 0.1}}
    audit["probes"][0]["models"] = ["target", "free"]
    file.write_text(yaml.safe_dump(audit))
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "audit", "run", str(file),
                     "--dry-run")  # fmt: skip
    assert code == 0, out
    total = next(line for line in out.splitlines() if line.startswith("total: "))
    assert total.endswith(
        f"estimated ${REQUESTS / 100:.2f} + {REQUESTS} requests not priced; budget —"
    ), total


def test_a_run_stopped_by_max_cost_says_its_dollars_and_counts_as_every_cost_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One cent a request under a five-cent limit: five requests bought, the stop line in
    dollars and cents and its count of trials with thousands separators."""
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "run", "pst-text", "-m",
                     "scripted-likelihood", "-M", "price_per_call=0.01", "--max-cost", "0.05",
                     "--concurrency", "1")  # fmt: skip
    line = next(line for line in out.splitlines() if "stopped before exceeding" in line)
    left = re.search(r"committed, ([\d,]+) trials left$", line)
    assert left is not None and int(left[1].replace(",", "")) >= 1_000, line
    assert line.startswith("stopped before exceeding --max-cost $0.05: $0.05 committed, "), line
    assert f"{int(left[1].replace(',', '')):,}" == left[1], line
