"""A signed report travels in evidence bundles and verifies in the workspace they are imported
into: the signature, every file and record digest, and every figure re-derived there from the
imported records — and one label changed after the import is caught and named."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path

import pytest

from diptych.cli.main import main
from tests.core.evidence.conftest import Evidence


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as done:
        main(list(args))
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out + err


def test_a_signed_report_verifies_in_a_workspace_imported_from_its_bundles(
    signed: Evidence, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fresh = tmp_path / "received"
    for i, run in enumerate(signed.runs):
        bundle = tmp_path / f"run{i}.zip"
        extra = ["--report", str(signed.report)] if i == 0 else []
        code, out = call(capsys, "--store", str(signed.ws), "export", run, "--bundle",
                         str(bundle), *extra)  # fmt: skip
        assert code == 0, out
        code, out = call(capsys, "--store", str(fresh), "import", str(bundle))
        assert code == 0, out
    report = fresh / "reports" / signed.report.name
    assert (report / "manifest.json.sig").is_file()
    stated = json.loads((report / "report.json").read_text())
    assert len(stated["runs"]) == len(signed.runs)

    code, out = call(capsys, "--store", str(fresh), "verify", str(report),
                     "--allowed-signers", str(signed.allowed))  # fmt: skip
    assert code == 0, out
    assert "signed by auditor@example.org" in out
    assert " figures re-derived" in out and "differ" not in out

    # The imported records are what the figures are re-derived from: one label changed there
    # is named, though the report's files are untouched.
    with sqlite3.connect(fresh / "diptych.db") as db:
        rowid, label = db.execute(
            "SELECT id, label FROM annotations WHERE annotator LIKE 'human:%' LIMIT 1"
        ).fetchone()
        other = "feminine" if label == "masculine" else "masculine"
        db.execute("UPDATE annotations SET label = ? WHERE id = ?", (other, rowid))
    code, out = call(capsys, "--store", str(fresh), "verify", str(report),
                     "--allowed-signers", str(signed.allowed))  # fmt: skip
    assert code != 0
    assert "label" in out and "changed" in out, out


def test_a_workspace_kept_in_its_reports_folder_stays_out_of_the_bundle(
    copy: Evidence, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The demo keeps its workspace in its report's folder: the bundle carries the report's
    # files as the signed manifest lists them (and the manifest and its signature), never a
    # second workspace for the recipient.
    inside = copy.report / ".diptych"
    copy.ws.rename(inside)
    (inside / ".setup.lock").write_bytes(b"")
    listed = json.loads((copy.report / "manifest.json").read_text())["files"]
    bundle = tmp_path / "evidence.zip"
    code, out = call(capsys, "--store", str(inside), "export", copy.runs[0], "--bundle",
                     str(bundle), "--report", str(copy.report))  # fmt: skip
    assert code == 0, out
    assert f"report files: {len(listed)} (with its signed manifest)" in out, out
    with zipfile.ZipFile(bundle) as archive:
        carried = sorted(
            name.removeprefix("report/")
            for name in archive.namelist()
            if name.startswith("report/")
        )
    assert carried == sorted([*listed, "manifest.json", "manifest.json.sig"])

    fresh = tmp_path / "received"
    code, out = call(capsys, "--store", str(fresh), "import", str(bundle))
    assert code == 0, out
    assert not (fresh / "reports" / copy.report.name / ".diptych").exists()
