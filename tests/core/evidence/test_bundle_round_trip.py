"""An evidence bundle carries a run or an audit to a fresh workspace, offline, so that
``diptych report`` there states every figure the original stated; importing again adds
nothing, and a record the workspace holds otherwise is refused with nothing added."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path
from typing import Any

import pytest

from diptych.core.evidence.bundle import MANIFEST_NAME
from diptych.core.store import open_store
from tests.support.bundles import N_IMAGES, N_PEOPLE, cli, labelled_run, run_cli
from tests.support.sequential_audits import FIGURE, planted_audit


def figures(report: Path) -> dict[str, Any]:
    data = json.loads((report / "report.json").read_text())
    # The date the report was written is the one thing two writings of it differ in.
    data.pop("written")
    return data


def table_counts(store: Path) -> dict[str, int]:
    db = sqlite3.connect(store / "diptych.db")
    tables = ["runs", "trials", "results", "subjects", "annotations", "notes", "label_removals",
              "calibrations", "flags", "audits", "audit_parts"]  # fmt: skip
    counts = {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in tables}
    db.close()
    return counts


def test_a_run_imported_from_its_bundle_reports_every_figure_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, run_id = labelled_run(tmp_path, monkeypatch)
    cli(store, "report", run_id, "-o", str(tmp_path / "original"))
    bundle = tmp_path / "evidence.zip"
    said = cli(store, "export", run_id, "--bundle", str(bundle),
               "--report", str(tmp_path / "original"))  # fmt: skip
    assert f"records: 1 run, {N_IMAGES} trials, {N_IMAGES} results, {N_PEOPLE} subjects" in said

    fresh = tmp_path / "fresh"
    said = cli(fresh, "import", str(bundle))
    # alice labels all 46, bob every third (16) less the one taken back.
    assert f" {N_PEOPLE + 16 - 1} labels, 1 note, 1 label removal," in said
    assert " 1 calibration;" in said
    # The fake service draws few distinct images: each is carried once.
    with open_store(store) as s:
        (images,) = s.db.execute("SELECT COUNT(DISTINCT blob) FROM results").fetchone()
    assert f"; {images} blobs added" in said
    assert table_counts(fresh) == table_counts(store)
    # The report directory came along whole, beside the records, inside the workspace.
    imported = fresh / "reports" / "original"
    assert (imported / "report.json").read_bytes() == (
        tmp_path / "original" / "report.json"
    ).read_bytes()

    cli(fresh, "report", run_id, "-o", str(tmp_path / "again"))
    original, again = figures(tmp_path / "original"), figures(tmp_path / "again")
    assert again["fingerprint"] == original["fingerprint"]
    assert again["result"]["numbers"] == original["result"]["numbers"]
    assert again == original

    # Importing again adds nothing and says so.
    said = cli(fresh, "import", str(bundle))
    assert "nothing new; 0 blobs added" in said
    assert table_counts(fresh) == table_counts(store)


def _carried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bundle_name: str, into: str
) -> tuple[Path, Path, Path]:
    """A labelled run exported as the bundle ``bundle_name`` (its format by its suffix) and
    imported into the workspace ``into``: the first workspace, the bundle and the second."""
    store, run_id = labelled_run(tmp_path, monkeypatch)
    bundle = tmp_path / bundle_name
    cli(store, "export", run_id, "--bundle", str(bundle))
    imported = tmp_path / into
    cli(imported, "import", str(bundle))
    return store, bundle, imported


def test_a_workspace_holding_part_of_a_run_gets_only_what_it_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, bundle, partial = _carried(tmp_path, monkeypatch, "evidence.tar", "partial")
    with open_store(partial) as s:
        with s.transaction() as db:
            db.execute("DELETE FROM annotations WHERE annotator = 'human:bob'")
            db.execute("DELETE FROM notes")
    said = cli(partial, "import", str(bundle))
    # bob's 16 labels less the one taken back, and alice's note.
    assert ": 15 labels, 1 note; 0 blobs added" in said
    assert table_counts(partial) == table_counts(store)


def test_a_conflicting_record_is_refused_in_one_line_and_nothing_is_added(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, bundle, other = _carried(tmp_path, monkeypatch, "evidence.zip", "other")
    with open_store(other) as s:
        with s.transaction() as db:
            # alice's label of one person says otherwise here; bob's labels are not here yet.
            db.execute(
                "UPDATE annotations SET label = 'cannot_identify' WHERE id ="
                " (SELECT MIN(id) FROM annotations WHERE annotator = 'human:alice')"
            )
            db.execute("DELETE FROM annotations WHERE annotator = 'human:bob'")
    before = table_counts(other)
    code, _, err = run_cli(["--store", str(other), "import", str(bundle)])
    assert code != 0
    (line,) = err.strip().splitlines()
    assert "already holds labels record" in line and "with another label" in line
    assert "fresh workspace (--store)" in line
    assert table_counts(other) == before


def test_an_audit_with_its_looks_and_report_travels_whole(
    tmp_path: Path, scripted_plugin: None
) -> None:
    store = tmp_path / "ws"
    file = planted_audit(tmp_path / "a.yaml", [{"part": "pst-text", "figure": FIGURE,
                         "below": 95}], ["carpenter", "farmer"], ["nurse", "editor"],
                         name="carried", seed=3)  # fmt: skip
    code, out, err = run_cli(["--store", str(store), "audit", "run", str(file),
                              "--until-decided", "--batches", "2", "--out", str(tmp_path / "rep"),
                              "--quiet"])  # fmt: skip
    # 3: a gate left inconclusive on so small a design; the audit and its report are recorded.
    assert code in (0, 1, 3) and (tmp_path / "rep" / "report.json").is_file(), err
    with open_store(store) as s:
        (audit_id,) = [r["id"] for r in s.db.execute("SELECT id FROM audits")]
        (run_id,) = [r["run_id"] for r in s.db.execute("SELECT run_id FROM audit_parts")]
    bundle = tmp_path / "audit.zip"
    said = cli(store, "export", audit_id, "--bundle", str(bundle))
    assert f"audits: {audit_id}" in said
    with zipfile.ZipFile(bundle) as archive:
        manifest = json.loads(archive.read(MANIFEST_NAME))
        members = {m["path"] for m in manifest["members"]}
    # The audit's recorded report came without being named.
    assert "report/report.json" in members
    assert manifest["audits"] == [audit_id] and manifest["runs"] == [run_id]

    fresh = tmp_path / "fresh"
    cli(fresh, "import", str(bundle))
    assert table_counts(fresh) == table_counts(store)
    cli(store, "report", run_id, "-o", str(tmp_path / "original"))
    cli(fresh, "report", run_id, "-o", str(tmp_path / "again"))
    original, again = figures(tmp_path / "original"), figures(tmp_path / "again")
    # The gates decided on the audit's looks come out the same.
    assert original["gates"] and again["gates"] == original["gates"]
    assert again == original


def test_a_tone_label_travels_as_tone_beside_the_same_reviewers_gender_label(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from diptych.core.labels.tone import TONE
    from diptych.core.workspace import Workspace

    store, run_id = labelled_run(tmp_path, monkeypatch)
    with Workspace.open(store) as ws:
        people = [s for s in ws.runs.subjects(run_id) if s.get("status") == "done"][:3]
        for i, person in enumerate(people):
            ws.labels.save(run_id, person["trial_idx"], person["position"], f"monk-{i + 2}",
                           reviewer="alice", dimension=TONE)  # fmt: skip
    bundle = tmp_path / "evidence.zip"
    cli(store, "export", run_id, "--bundle", str(bundle))
    fresh = tmp_path / "fresh"
    cli(fresh, "import", str(bundle))

    def by_dimension(path: Path) -> list[tuple[str, str, str]]:
        db = sqlite3.connect(path / "diptych.db")
        rows = db.execute(
            "SELECT annotator, dimension, label FROM annotations x JOIN subjects s"
            " ON s.id = x.subject_id ORDER BY s.trial_idx, s.position, annotator, dimension"
        ).fetchall()
        db.close()
        return rows

    assert by_dimension(fresh) == by_dimension(store)
    assert sum(1 for _, dim, _ in by_dimension(fresh) if dim == "tone") == 3
    assert table_counts(fresh) == table_counts(store)
