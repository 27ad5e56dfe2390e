"""Flags of ``diptych run``, ``diptych resume`` and ``diptych audit run`` that were taken and
did nothing, or were missing where a neighbouring command has them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import diptych.cli.audit_cmd as audit_cmd
from tests.support.cli import call
from tests.support.sequential_audits import FEM, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")

RAY_ALONE = "error: --ray-address needs --executor ray: give both, or neither"


def _lines(out: str) -> list[str]:
    return out.strip().splitlines()


@pytest.mark.parametrize(
    "command",
    [
        ["run", "pst-text", "-m", "scripted-likelihood", "--quiet"],
        ["run", "pst-text", "-m", "scripted-likelihood", "--dry-run"],
        ["run", "pst-text", "-m", "scripted-likelihood", "--executor", "local"],
        ["resume", "abc123"],
        ["resume", "abc123", "--dry-run"],
    ],
    ids=["run", "run-dry", "run-local", "resume", "resume-dry"],
)
def test_a_ray_address_without_the_ray_executor_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    """--ray-address was taken and silently ignored: the run ran in this process."""
    ws = tmp_path / "ws"
    code, out = call(capsys, "--store", str(ws), *command, "--ray-address", "ray://head:10001")
    assert code == 2, out
    assert _lines(out) == [RAY_ALONE]
    assert not ws.exists()


def test_audit_run_takes_q_for_quiet_as_run_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``diptych run -q`` hid the progress bars; ``diptych audit run -q`` was no such option."""
    seen: list[bool] = []
    real = audit_cmd.RichReporter

    def reporter(console: Any, *, quiet: bool = False) -> Any:
        seen.append(quiet)
        return real(console, quiet=quiet)

    monkeypatch.setattr(audit_cmd, "RichReporter", reporter)
    file = planted_audit(tmp_path / "a.yaml", [], MASC, FEM, name="q", seed=2)
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "audit", "run", str(file),
                     "--out", str(tmp_path / "rep"), "-q")  # fmt: skip
    assert code == 0, out
    assert seen == [True]
    assert any(line.startswith("audit ") for line in _lines(out)), out
