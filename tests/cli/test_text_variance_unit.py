"""A plan's variance read from an earlier text run counts what the run holds in its own unit:
a pst-text run's persons are pronoun draws, as its report calls them, in the gated
``--dry-run`` as in ``audit check``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import FIGURE
from tests.support.surfaces.text import FOREIGN_UNITS

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
LISTS = ["-p", "masculine=" + ",".join(MASC), "-p", "feminine=" + ",".join(FEM)]

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_a_text_runs_variance_counts_draws(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = ["--store", str(tmp_path / "ws")]
    code, out = call(capsys, *store, "run", "pst-text", "-m", "scripted-likelihood", *LISTS,
                     "--quiet")  # fmt: skip
    assert code == 0, out
    code, out = call(capsys, *store, "run", "pst-text", "-m", "scripted-likelihood", *LISTS,
                     "--gate", f"{FIGURE} below 95", "--until-decided", "--dry-run")  # fmt: skip
    assert code == 0, out
    said = [line.strip() for line in out.splitlines() if line.strip().startswith("variance: run")]
    assert said, out
    foreign = [line for line in said if set(line.split()) & set(FOREIGN_UNITS["pst-text"])]
    assert not foreign, said
    assert [line for line in said if line.endswith(" draws")], said
