"""The runs an audit run whole buys the rest of on purpose only, found in one place for every
front end (``diptych audit run``, the Audit screen's ``ctrl+r``): a part its gates stopped
short of its design, by the part's record, while its run has the rest to buy — decided, or
bought on since and stopped part way — and no longer once the run is bought whole."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.sequential_audits import file_decided_and_bought_on

pytestmark = pytest.mark.usefixtures("scripted_plugin")


@pytest.fixture(autouse=True)
def _run_from_its_temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An audit run without --out writes audit-NAME/ where it is run from: the test's temp dir."""
    monkeypatch.chdir(tmp_path)


def test_a_stopped_part_has_the_rest_to_buy_until_its_run_is_bought_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Decided (the helper asserts it is found then), bought on and stopped part way: its
    # listing says "interrupted", and the rest of its design is still to buy.
    ws, _, run_id = file_decided_and_bought_on(capsys, tmp_path)
    with Workspace.open(ws) as opened:
        (audit,) = opened.audits.list()
        assert opened.runs.get(run_id).status == "interrupted"
        (part,) = opened.audits.as_now(audit).parts
        assert part.status == "interrupted"
        assert opened.audits.decided_runs(audit.id) == [run_id]
        assert opened.audits.decided_runs("no-such-audit") == []

        # Bought whole: nothing left to buy.
        asyncio.run(opened.runs.resume(run_id))
        assert opened.runs.get(run_id).status == "complete"
        assert opened.audits.decided_runs(audit.id) == []
