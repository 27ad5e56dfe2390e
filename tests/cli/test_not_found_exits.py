"""A run, audit or report named wrongly is bad input: every command says so in one line and
exits 2, as it does for a wrongly named probe or option."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import call

WRONG = "nosuchrun"


@pytest.fixture
def workspace(tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]) -> str:
    ws = str(tmp_path / "ws")
    code, out = call(capsys, "--store", ws, "run", "scripted", "-m", "scripted-likelihood",
                     "-p", "n=2", "--quiet")  # fmt: skip
    assert code == 0, out
    return ws


@pytest.mark.parametrize(
    "args",
    [
        ["show", WRONG],
        ["report", WRONG, "--out", "{tmp}/report"],
        ["export", WRONG],
        ["export", WRONG, "--bundle", "{tmp}/evidence.zip"],
        ["annotate", WRONG, "--template", "{tmp}/labels.csv"],
        ["resume", WRONG],
        ["verify", "{tmp}/no-such-report"],
    ],
    ids=lambda args: " ".join(a for a in args if "{" not in a),
)
def test_a_wrong_id_exits_2_with_one_line(
    workspace: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, out = call(capsys, "--store", workspace, *(a.format(tmp=tmp_path) for a in args))
    assert code == 2, out
    said = out.strip().splitlines()
    assert len(said) == 1 and said[0].startswith("error:"), out
    assert WRONG in said[0] or "no-such-report" in said[0]
    # Nothing was written for the run that is not there.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ws"]
