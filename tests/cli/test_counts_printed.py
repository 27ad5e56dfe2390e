"""What ``export --bundle``, ``import`` and ``show`` print is read as a report's text is: every
count through the one formatter (thousands separators, a noun agreeing with its count)."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.cli.bundle_cmd import records
from diptych.core.store import open_store
from tests.support.cli import call
from tests.support.surfaces.text import printed_problems

#: Over a thousand trials, in one run: the counts a bundle of it holds need separators.
N = 1200


def test_the_printed_check_catches_a_bare_count_and_a_plural_after_one() -> None:
    assert len(printed_problems("records: 1 runs, 1720 trials")) == 2
    assert len(printed_problems("trials: done 656, not bought 5904")) == 1
    assert len(printed_problems("look 1/10  PASS  STS paired: 2.5")) == 1
    assert printed_problems("records: 1 run, 1,720 trials; seed 1234; look 1 of 10") == []


def test_a_bundles_records_are_counted_by_kind() -> None:
    counts = {"runs": 1, "trials": 1720, "notes": 0, "label_removals": 1, "audits": 1}
    assert records(counts) == "1 run, 1,720 trials, 1 label removal, 1 audit"
    assert records({"runs": 2, "results": 1640}) == "2 runs, 1,640 results"


def test_export_import_and_show_print_counts_as_the_reports_do(
    tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]
) -> None:
    ws, fresh, bundle = tmp_path / "ws", tmp_path / "fresh", tmp_path / "evidence.zip"
    code, out = call(capsys, "--store", str(ws), "run", "scripted", "-m", "scripted-likelihood",
                     "-p", f"n={N}", "--quiet")  # fmt: skip
    assert code == 0, out
    with open_store(ws) as store:
        (run,) = store.list_runs()

    code, shown = call(capsys, "--store", str(ws), "show", run.id)
    assert code == 0, shown
    assert "trials: done 1,200, refused 0, failed 0" in shown

    code, exported = call(capsys, "--store", str(ws), "export", run.id, "--bundle", str(bundle))
    assert code == 0, exported
    assert "records: 1 run, 1,200 trials, 1,200 results" in exported

    code, imported = call(capsys, "--store", str(fresh), "import", str(bundle))
    assert code == 0, imported
    assert ": 1 run, 1,200 trials, 1,200 results; 0 blobs added" in imported

    for printed in (shown, exported, imported):
        assert printed_problems(printed) == [], printed


def test_the_progress_bar_counts_with_separators() -> None:
    import io

    from diptych.cli.console import SafeConsole
    from diptych.cli.progress import RichReporter
    from diptych.core.workspace import RunRecord

    out = io.StringIO()
    # A terminal: where the bar is drawn (into no terminal, plain lines go out instead).
    reporter = RichReporter(
        SafeConsole(file=out, width=120, force_terminal=True, color_system=None)
    )
    run = RunRecord(id="pst-text-1", probe="pst-text", probe_version="1", params={}, models=[],
                    fingerprint="", status="running", n_trials=1720, diptych_version="",
                    created_at=0.0, updated_at=0.0)  # fmt: skip
    reporter.run_started(run, 1720, 80, 1640)
    for _ in range(1640):
        reporter.trial_finished("smollm2", "done", None)
    reporter.stop()
    printed = out.getvalue()
    assert "1,720 trials planned, 80 already stored, 1,640 requests to run" in printed
    assert "1,640/1,640 done 1,640" in printed
    assert printed_problems(printed) == []
