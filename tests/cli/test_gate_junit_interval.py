"""``audit gate --junit`` names each gate's interval as the command's own line does: an audit
stopped early decided on anytime-valid intervals ("look 1 of 4"), and a CI page reading the
XML must not take them for fixed ones."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import FIGURE

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
LISTS = ["-p", "masculine=" + ",".join(MASC), "-p", "feminine=" + ",".join(FEM)]

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _gated(capsys: pytest.CaptureFixture[str], store: Path, *more: str) -> None:
    code, out = call(capsys, "--store", str(store), "run", "pst-text", "-m",
                     "scripted-likelihood", *LISTS, "--gate", f"{FIGURE} below 95", *more,
                     "--quiet")  # fmt: skip
    assert code == 0, out


def _junit_and_line(
    capsys: pytest.CaptureFixture[str], store: Path, junit: Path
) -> tuple[str, str]:
    """The gate's JUnit ``<system-out>`` and the command's own lines."""
    code, out = call(capsys, "--store", str(store), "audit", "gate", "run-pst-text",
                     "--junit", str(junit))  # fmt: skip
    assert code == 0, out
    (said,) = ET.parse(junit).getroot().iter("system-out")
    return str(said.text), out


def test_the_junit_message_names_an_anytime_valid_interval_and_its_look(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _gated(capsys, tmp_path / "ws", "--until-decided", "--batches", "4")
    said, out = _junit_and_line(capsys, tmp_path / "ws", tmp_path / "gates.xml")
    assert "at look 1 of 4" in out and "anytime-valid" in out, out
    first = said.splitlines()[0]
    assert "(anytime-valid, look 1 of 4); below 95" in first, said
    # The method at length, as the command's "interval:" line gives it.
    (method,) = [x.strip() for x in out.splitlines() if x.strip().startswith("interval:")]
    assert said.splitlines()[1] == method, said


def test_the_junit_message_names_a_fixed_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _gated(capsys, tmp_path / "ws")
    said, out = _junit_and_line(capsys, tmp_path / "ws", tmp_path / "gates.xml")
    assert "anytime-valid" not in out and "anytime-valid" not in said, (out, said)
    assert "(fixed-design); below 95" in said, said
