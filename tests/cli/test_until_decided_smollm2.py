"""The example audit on the real bundled SmolLM2, bought until its gate is decided: its paired
expected STS (about 12, an interval of about ±7 on the complete design) sits far below the
gate's 25, so the audit stops long before its 1,640 prompts and says what it saved. About a
minute and a half on 2 cores."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.cli import call

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "audits" / "smollm2-offline.yaml"
REQUESTS = 1640


@pytest.mark.slow
def test_the_offline_example_stops_once_its_gate_is_decided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "report"
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "audit", "run", str(EXAMPLE),
                     "--until-decided", "--out", str(out_dir), "--quiet")  # fmt: skip
    assert code == 0, out
    # The status line counts what was bought and saved; the stop line under it says why.
    found = re.search(r"decided at look \d+ of 10: ([\d,]+) of 1,640 requests", out)
    assert found is not None, out
    bought = int(found.group(1).replace(",", ""))
    # Stopped at a batch's end, before the design's: a tenth of it at a time.
    assert bought < REQUESTS and bought % 164 == 0
    assert f"of 1,640 requests, {REQUESTS - bought:,} saved" in out
    assert "stopped: every gate decided in " in out
    assert "not run (no gate reads them): identities" in out
    assert "1 passed, 0 failed, 0 inconclusive → exit 0" in out
    report = json.loads((out_dir / "report.json").read_text())
    assert report["scope"]["sequential"]["bought"] == bought
    assert "its intervals are the anytime-valid ones" in report["gates"]["heading"]
