"""``diptych run --dry-run`` and ``diptych audit check`` state the expected half-width of each
headline figure before anything is paid for, warn of designs too small to decide anything, and
name the smallest design reaching ``--target-width``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from diptych.core.digits import figure_text
from diptych.core.metrics.uncertainty.intervals import STS_RANGE
from diptych.core.metrics.uncertainty.precision import (
    PlannedDesign,
    expected_interval,
    smallest_design,
)
from diptych.core.workspace import Workspace
from diptych.plugins.probes._paired_stereotype_test.precision import PAPER_COMPONENTS, UNITS
from tests.support.cli import call

DRY_RUN = [
    "run", "pst", "-m", "openai-images", "--dry-run",
    "-p", "masculine=carpenter,driver,janitor", "-p", "feminine=nurse,editor,housekeeper",
]  # fmt: skip


@pytest.fixture
def dummy_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # A dry run builds the model (which wants a key) and calls nothing.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-dummy-never-sent")


def test_the_dry_run_states_the_half_width_and_warns_of_3_by_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], dummy_key: None
) -> None:
    code, out = call(capsys, "--store", str(tmp_path / "ws"), *DRY_RUN)
    assert code == 0, out
    # 3 × 3 scenes, both orders, two people, one sample: 36 paired images; 6 single
    # identities × 3 samples; the power aspect's 6 occupations: 6 × 2 orders × 3 + 12 × 3.
    assert "108 trials planned, 0 already stored, 108 requests to run" in out
    line = next(x for x in out.splitlines() if x.strip().startswith("occupation: STS paired:"))
    crossed = "3 masculine × 3 feminine identities crossed in scenes"
    found = re.search(rf"±([\d.]+) \({crossed}, df 2, t 4\.30\)", line)
    assert found, line
    # The printed half-width is the one the core measures for this design and assumption
    # (three significant figures).
    design = PlannedDesign("grid", UNITS, (3, 3), 4, "identities")
    expected = expected_interval(
        design, PAPER_COMPONENTS[("occupation", "paired")], bounds=STS_RANGE
    )
    assert float(found.group(1)) == pytest.approx(expected.half_width, rel=5e-3)
    assert "variance: the PST paper's DALL-E 3 figures (Tables 14 and 16)" in out
    warnings = [x for x in out.splitlines() if x.startswith("warning:")]
    # One line for the design, naming the first figure whose lists are under 4 (the occupation
    # aspect's); the power aspect's 6 pairs are enough.
    assert warnings == [
        f"warning: {crossed} leave occupation: STS paired a t interval with 2 degrees of freedom "
        "(t 4.30): enough for a gate's test but too wide for a finding; use at least 4 per "
        "list (name more with -p masculine=... -p feminine=...)"
    ]
    with Workspace.open(tmp_path / "ws") as ws:
        assert ws.runs.list() == []  # nothing stored, nothing asked


def test_target_width_names_the_smallest_design(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], dummy_key: None
) -> None:
    code, out = call(capsys, "--store", str(tmp_path / "ws"), *DRY_RUN, "--target-width", "10")
    assert code == 0, out
    design = PlannedDesign("grid", UNITS, (3, 3), 4, "identities")
    comp = PAPER_COMPONENTS[("occupation", "paired")]
    target = smallest_design(design, comp, 10.0, bounds=STS_RANGE)
    assert target is not None and 4 <= target.sizes[0] <= 20
    n = target.sizes[0]
    crossed = f"{n} masculine × {n} feminine identities crossed in scenes"
    assert f"occupation: STS paired: ±10.0 needs {crossed} (expected ±" in out
    # The single setting's spread is all in its persons: ±10 needs more than Table 7's 20.
    assert re.search(
        r"occupation: STS single: ±10\.0 needs \d+ masculine and \d+ feminine identities as "
        "separate lists, more than",
        out,
    )


def test_target_width_is_refused_without_a_dry_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], dummy_key: None
) -> None:
    args = [a for a in DRY_RUN if a != "--dry-run"]
    code, out = call(capsys, "--store", str(tmp_path / "ws"), *args, "--target-width", "10")
    assert code != 0
    assert "--target-width plans a design: give it with --dry-run" in out
    code, out = call(capsys, "--store", str(tmp_path / "ws"), *DRY_RUN, "--target-width", "0")
    assert code == 2 and "not a half-width above 0" in out


AUDIT = """\
name: small-pst
models:
  dalle3:
    plugin: openai-images
probes:
  - probe: pst
    models: [dalle3]
    params:
      aspects: [occupation]
      setting: paired
      masculine: [carpenter, driver]
      feminine: [nurse, editor, housekeeper]
budget:
  max_cost: 5
"""


def test_audit_check_states_each_parts_precision(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], dummy_key: None
) -> None:
    audit = tmp_path / "audit.yaml"
    audit.write_text(AUDIT)
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "audit", "check", str(audit))
    assert code == 0, out
    assert "part pst:" in out
    crossed = "2 masculine × 3 feminine identities crossed in scenes"
    assert re.search(rf"occupation: STS paired: ±[\d.]+ \({crossed}, df 1, t 12\.7\)", out)
    # Two masculine identities: one degree of freedom.
    warning = next(x for x in out.splitlines() if x.strip().startswith("warning:"))
    assert f"{crossed} leave occupation: STS paired a t interval with 1 degree" in warning
    assert "of freedom (t 12.7): too wide to say anything" in warning
    code, out = call(
        capsys, "--store", str(tmp_path / "ws"), "audit", "check", str(audit), "--json",
        "--target-width", "20",
    )  # fmt: skip
    assert code == 0, out
    part = json.loads(out)["parts"][0]
    figure = part["precision"]["figures"][0]
    assert figure["figure"] == "occupation: STS paired"
    assert figure["design"]["units"] == {"masculine identity": 2, "feminine identity": 3}
    # The design's one warning is the plan's; the figure's t·se is not the reason it is said.
    assert figure["df"] == 1 and figure["warnings"] == []
    assert [w.split(" a t interval")[0] for w in part["precision"]["warnings"]] == [
        "2 masculine × 3 feminine identities crossed in scenes leave occupation: STS paired"
    ]
    assert figure["target_design"]["shape"] == "grid"
    assert figure["target_half_width"] <= 20 * 1.05


GATED = AUDIT.replace(
    "masculine: [carpenter, driver]", "masculine: [carpenter, driver, janitor, ceo]"
)
GATED = GATED.replace("feminine: [nurse, editor, housekeeper]",
                      "feminine: [nurse, editor, housekeeper, secretary]")  # fmt: skip
GATED += """\
gates:
  - part: pst
    figure: "occupation: STS paired"
    below: 20
  - part: pst
    figure: "occupation: STS paired"
    within: [-10, 10]
  - part: pst
    figure: "occupation: Pearson r, %F paired vs %F BLS (over occupations)"
    not_below: 0.2
"""


def test_audit_check_relates_each_gates_limit_to_the_expected_half_width(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], dummy_key: None
) -> None:
    from scipy.stats import t

    audit = tmp_path / "audit.yaml"
    audit.write_text(GATED)
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "audit", "check", str(audit))
    assert code == 0, out
    design = PlannedDesign("grid", UNITS, (4, 4), 4, "identities")
    expected = expected_interval(
        design, PAPER_COMPONENTS[("occupation", "paired")], bounds=STS_RANGE
    )
    h = expected.half_width
    # Three gates under Holm: the first is decided at 1 − 0.05/3, its interval wider by the
    # ratio of t's quantiles at the plan's df.
    holm = h * t.ppf(1 - 0.05 / 6, expected.df) / t.ppf(0.975, expected.df)
    lines = out.splitlines()
    below = next(x for x in lines if x.strip().startswith("pst: occupation: STS paired below 20"))
    shown = figure_text(holm)
    assert f"expected ±{figure_text(h)} (±{shown} at the Holm level of its 3 gates)" in below
    assert below.endswith(f"decided only if the figure is more than {shown} from the limit 20")
    within = next(x for x in lines if "STS paired within [\N{MINUS SIGN}10, 10]" in x)
    # ±h on 4 × 4 identities is wider than half of [−10, 10]: that gate can never pass.
    assert holm > 10
    band = "[\N{MINUS SIGN}10, 10]"
    assert f"passes only if the figure lies more than {figure_text(holm)} inside {band}" in within
    assert within.endswith(f"it cannot pass: {band} is narrower than the interval")
    pearson = next(x for x in lines if "Pearson r" in x and x.startswith("  pst:"))
    assert pearson.endswith(": the probe plans no such figure")
    code, out = call(
        capsys, "--store", str(tmp_path / "ws"), "audit", "check", str(audit), "--json"
    )  # fmt: skip
    assert code == 0, out
    gates = json.loads(out)["gates"]
    assert [g["half_width"] is None for g in gates] == [False, False, True]
    assert gates[0]["holm_half_width"] == pytest.approx(holm, rel=1e-9)
