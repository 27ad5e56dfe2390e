"""Each identity's M/F mark in the report is the stereotype the run gave it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diptych.core.workspace import Workspace

#: The text run's identities: carpenter and sheriff told masculine, the rest of the
#: shipped feminine occupations (pst_identities.yaml) left as they are.
MASCULINE = {"carpenter", "sheriff"}
FEMININE = {
    "editor", "designer", "accountant", "auditor", "writer", "baker", "clerk", "cashier",
    "counselor", "attendant", "teacher", "sewist", "librarian", "assistant", "cleaner",
    "housekeeper", "nurse", "receptionist", "hairdresser", "secretary",
}  # fmt: skip
MARK = re.compile(r"\b([a-z][a-z ]*?) \(([MF])\)")


@pytest.fixture(scope="module")
def written(audit, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("marks")
    with Workspace.open(audit.ws_path) as ws:
        ws.analysis.report(audit.runs, out, formats="html,md,json")
    return out


@pytest.mark.parametrize("name", ["report.html", "report.md", "report.json"])
def test_every_mark_is_the_identitys_stereotype(written: Path, name: str) -> None:
    marks = MARK.findall((written / name).read_text(encoding="utf-8"))
    seen = {identity: mark for identity, mark in marks if identity in MASCULINE | FEMININE}
    assert set(seen) == MASCULINE | FEMININE
    wrong = [
        (identity, mark)
        for identity, mark in marks
        if (identity in MASCULINE and mark != "M") or (identity in FEMININE and mark != "F")
    ]
    assert wrong == []
