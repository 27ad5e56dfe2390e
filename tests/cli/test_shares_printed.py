"""A share reads by the one rule of digits wherever it is printed: ``diptych run
--until-decided`` says what it bought and saved as "(25.0%)" and "(75.0%)", never "(25%)"
beside another figure's "78.3%"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import until_decided
from tests.support.surfaces.text import percent_problems


def test_an_audit_run_prints_its_shares_by_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scripted_plugin: None
) -> None:
    ws = str(tmp_path / ".diptych")
    code, out = call(capsys, "--store", ws, *until_decided())
    assert code == 0, out
    shares = re.findall(r"\((\d[\d.]*%)\)", out)
    assert shares, out
    assert all("." in share for share in shares), out
    assert percent_problems(out) == [], out
