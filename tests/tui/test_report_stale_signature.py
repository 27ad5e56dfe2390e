"""The Run screen's ``w`` writes its report as the CLI does: into the folder of a signed report
its new files no longer match, the old manifest and signature are removed and the status line
says so, so that no later ``verify`` fails on a file nobody tampered with."""

from __future__ import annotations

from pathlib import Path

from steps import SIZE, write_report

from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp


def _signed_report(workspace: Path, run_id: str, folder: Path) -> None:
    """A report in ``folder`` with its manifest and a signature beside it, and a file added
    since: the signature no longer matches the folder."""
    with Workspace.open(workspace) as ws:
        ws.analysis.report(run_id, folder)
        ws.evidence.sign(folder, [run_id], None)
    (folder / "manifest.json.sig").write_text("-----BEGIN SSH SIGNATURE-----\n", encoding="utf-8")
    (folder / "notes.txt").write_text("added after signing", encoding="utf-8")


async def test_writing_a_report_over_a_stale_signature_removes_it_and_says_so(
    pst_text_run: str, workspace: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "signed"
    _signed_report(workspace, pst_text_run, folder)
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        said = " ".join((await write_report(pilot, pst_text_run, folder)).split())
    assert not (folder / "manifest.json").exists()
    assert not (folder / "manifest.json.sig").exists()
    assert str((folder / "report.html").resolve()) in said.replace(" ", "")
    assert (
        "The folder's old signature no longer matched: removed manifest.json, "
        "manifest.json.sig; sign again with --sign." in said
    )


async def test_writing_a_report_into_a_new_folder_says_only_where(
    pst_text_run: str, workspace: Path, tmp_path: Path
) -> None:
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        assert "signature" not in await write_report(pilot, pst_text_run, tmp_path / "fresh")
