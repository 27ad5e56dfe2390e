"""A report written again into the folder of a signed report: the manifest and signature its new
files no longer match are removed, and the command says so in one line, so that no later
``verify`` fails on a file nobody tampered with. The same for the first-screen picture the demo
takes after its report."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.evidence.manifest import drop_stale_signature
from diptych.core.report import screenshot
from diptych.core.workspace import Workspace
from tests.core.evidence.conftest import Evidence
from tests.support.cli import call

STALE = (
    "the folder's old signature no longer matched: removed manifest.json, manifest.json.sig; "
    "sign again with --sign"
)


def test_a_signature_its_files_still_match_is_kept(copy: Evidence) -> None:
    assert drop_stale_signature(copy.report) is None
    assert (copy.report / "manifest.json").is_file()
    assert (copy.report / "manifest.json.sig").is_file()


def test_a_report_written_again_removes_the_old_signature_and_says_so(
    copy: Evidence, capsys: pytest.CaptureFixture[str]
) -> None:
    # A note added since the signing: the report written again differs from the signed one.
    with Workspace.open(copy.ws) as ws:
        first = ws.runs.subjects(copy.runs[1])[0]
        ws.review.save_note(copy.runs[1], first["trial_idx"], first["position"],
                            "a second look", reviewer="bo")  # fmt: skip
    code, out = call(capsys, "--store", str(copy.ws), "report", *copy.runs,
                     "--out", str(copy.report))  # fmt: skip
    assert code == 0, out
    assert out.rstrip().splitlines()[-1] == STALE, out
    assert not (copy.report / "manifest.json").exists()
    assert not (copy.report / "manifest.json.sig").exists()
    # Signed again in place, the folder's new signature matches and is kept.
    code, out = call(capsys, "--store", str(copy.ws), "report", *copy.runs,
                     "--out", str(copy.report), "--sign", str(copy.key))  # fmt: skip
    assert code == 0, out
    assert "no longer matched" not in out
    code, out = call(capsys, "--store", str(copy.ws), "verify", str(copy.report),
                     "--allowed-signers", str(copy.allowed))  # fmt: skip
    assert code == 0, out


def test_a_screenshot_taken_after_the_signature_removes_it_and_says_so(
    copy: Evidence, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def picture(html: Path, png: Path) -> Path:
        png.write_bytes(b"\x89PNG another first screen")
        return png

    monkeypatch.setattr(screenshot, "first_screen", picture)
    assert screenshot.main([str(copy.report)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == STALE, out
    assert not (copy.report / "manifest.json").exists()
    assert not (copy.report / "manifest.json.sig").exists()


def test_a_file_added_beside_the_signed_ones_makes_the_signature_stale(copy: Evidence) -> None:
    (copy.report / "notes.txt").write_text("added after signing", encoding="utf-8")
    assert drop_stale_signature(copy.report) == STALE
    assert sorted(p.name for p in copy.report.glob("manifest*")) == []
