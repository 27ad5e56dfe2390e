"""A report signed with an SSH key: OpenSSH and sshsig accept its signature, ``diptych verify``
re-derives every figure it states, and a change to any one thing it rests on — a label, an
image, a trial's output, a note, a calibration, a run, a file of the report — is caught and
named."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest
import sshsig

from diptych.core.evidence.manifest import canonical_text
from diptych.core.workspace import Workspace
from tests.core.evidence.conftest import Evidence, make_key
from tests.support.cli import call


def verify(capsys: pytest.CaptureFixture[str], ev: Evidence, *extra: str) -> tuple[int, str]:
    return call(capsys, "--store", str(ev.ws), "verify", str(ev.report), *extra)


def figures_stated(report: Path) -> int:
    """The figures report.json states, counted from it: each run's and comparison's numbers,
    each headline, each finding of the verdict, each gate."""
    data = json.loads((report / "report.json").read_text())
    numbers = sum(len(r["result"]["numbers"]) for r in data["runs"])
    numbers += sum(len(c["result"]["numbers"]) for c in data["comparisons"])
    gates = len((data["gates"] or {}).get("gates") or [])
    return numbers + len(data["headlines"]) + len(data["verdict"]["findings"]) + gates


def test_openssh_and_sshsig_accept_the_signature(signed: Evidence) -> None:
    manifest = signed.report / "manifest.json"
    signature = signed.report / "manifest.json.sig"
    done = subprocess.run(
        ["ssh-keygen", "-Y", "verify", "-f", str(signed.allowed), "-I", signed.signer,
         "-n", "diptych-report", "-s", str(signature)],
        stdin=manifest.open("rb"), capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert 'Good "diptych-report" signature for auditor@example.org' in done.stdout
    public = signed.key.with_name("id_ed25519.pub").read_text()
    key = sshsig.PublicKey.from_openssh_str(" ".join(public.split()[:2]))
    found = sshsig.verify(manifest.read_bytes(), signature.read_bytes(), [key], "diptych-report")
    assert found == key
    # Another namespace (a git commit's) does not accept it: a report's signature is its own.
    with pytest.raises(sshsig.InvalidSignature):
        sshsig.verify(manifest.read_bytes(), signature.read_bytes(), [key], "git")


def test_the_manifest_lists_every_file_and_kind_of_record(signed: Evidence) -> None:
    data = json.loads((signed.report / "manifest.json").read_text())
    assert data["signer"] == "auditor@example.org"
    assert data["report"]["runs"] == signed.runs
    on_disk = sorted(
        p.relative_to(signed.report).as_posix()
        for p in signed.report.rglob("*")
        if p.is_file() and p.name not in ("manifest.json", "manifest.json.sig")
    )
    assert sorted(data["files"]) == on_disk
    assert {"report.json", "report.md", "report.html"} <= set(data["files"])
    records = data["records"]
    for kind in ("run", "trial", "result", "blob", "subject", "label", "note", "calibration",
                 "version"):  # fmt: skip
        assert records.get(kind), kind
    with sqlite3.connect(signed.ws / "diptych.db") as db:
        trials = db.execute("SELECT COUNT(*) FROM trials").fetchone()[0]
        labels = db.execute("SELECT COUNT(*) FROM annotations").fetchone()[0]
        blobs = db.execute("SELECT COUNT(DISTINCT blob) FROM results WHERE blob IS NOT NULL")
        n_blobs = blobs.fetchone()[0]
    assert len(records["trial"]) == trials and len(records["label"]) == labels
    assert len(records["blob"]) == n_blobs > 0
    assert set(records["calibration"]) == {"faces"}
    assert set(records["version"]) == {"diptych", "probe/pst", "probe/pst-text"}
    # Canonical: the text is its own canonical form, keys sorted all the way down.
    text = (signed.report / "manifest.json").read_text()
    assert text == canonical_text(json.loads(text))


def test_verify_re_derives_every_figure(
    signed: Evidence, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = verify(capsys, signed, "--allowed-signers", str(signed.allowed))
    assert code == 0, out
    n = figures_stated(signed.report)
    assert n > 20
    assert f"{n} of {n} figures re-derived" in out
    assert "signed by auditor@example.org with SHA256:" in out
    assert "numbers printed in report.md re-derived" in out
    assert "numbers printed in report.html re-derived" in out
    code, out = verify(capsys, signed, "--key", str(signed.key) + ".pub")
    assert code == 0 and f"{n} of {n} figures re-derived" in out


def test_two_signings_differ_only_in_date_and_signature(copy: Evidence) -> None:
    before = json.loads((copy.report / "manifest.json").read_text())
    signature = (copy.report / "manifest.json.sig").read_text()
    with Workspace.open(copy.ws) as ws:
        ws.evidence.sign(copy.report, copy.runs, copy.key, formats=["html", "md", "json"])
    after = json.loads((copy.report / "manifest.json").read_text())
    assert {k for k in before if before[k] != after[k]} <= {"date"}
    # ed25519 signatures are deterministic: the same bytes signed give the same signature.
    same = before["date"] == after["date"]
    assert ((copy.report / "manifest.json.sig").read_text() == signature) == same


def test_an_unsigned_manifest_verifies_its_digests_and_says_unsigned(
    copy: Evidence, capsys: pytest.CaptureFixture[str]
) -> None:
    with Workspace.open(copy.ws) as ws:
        ws.evidence.sign(copy.report, copy.runs, None, formats=["html", "md", "json"])
    assert not (copy.report / "manifest.json.sig").exists()
    code, out = verify(capsys, copy)
    assert code == 0, out
    assert out.startswith("unsigned")
    code, out = verify(capsys, copy, "--key", str(copy.key) + ".pub")
    assert code == 1 and "is unsigned" in out


def _db(ev: Evidence) -> sqlite3.Connection:
    return sqlite3.connect(ev.ws / "diptych.db")


def _change_label(ev: Evidence) -> str:
    with _db(ev) as db:
        rowid, run, idx, pos, label = db.execute(
            "SELECT a.rowid, s.run_id, s.trial_idx, s.position, a.label FROM annotations a"
            " JOIN subjects s ON s.id = a.subject_id WHERE a.annotator = 'human:ana'"
            " ORDER BY s.trial_idx, s.position LIMIT 1"
        ).fetchone()
        other = "feminine" if label == "masculine" else "masculine"
        db.execute("UPDATE annotations SET label = ? WHERE rowid = ?", (other, rowid))
    return f"label {run}/{idx}/{pos}/human:ana changed"


def _change_image(ev: Evidence) -> str:
    with _db(ev) as db:
        (sha,) = db.execute(
            "SELECT blob FROM results WHERE blob IS NOT NULL ORDER BY key LIMIT 1"
        ).fetchone()
    path = ev.ws / "blobs" / sha[:2] / sha[2:]
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    return f"blob {sha} changed"


def _change_output(ev: Evidence) -> str:
    with _db(ev) as db:
        key, output = db.execute(
            "SELECT key, output FROM results WHERE capability = 'text_likelihood'"
            " ORDER BY key LIMIT 1"
        ).fetchone()
        at = next(i for i, c in enumerate(output) if c.isdigit() and c != "9")
        changed = output[:at] + str(int(output[at]) + 1) + output[at + 1 :]
        db.execute("UPDATE results SET output = ? WHERE key = ?", (changed, key))
    return f"result {key} changed"


def _change_note(ev: Evidence) -> str:
    with _db(ev) as db:
        run, idx, pos = db.execute(
            "SELECT s.run_id, s.trial_idx, s.position FROM notes n"
            " JOIN subjects s ON s.id = n.subject_id"
        ).fetchone()
        db.execute("UPDATE notes SET note = 'face in shadov'")
    return f"note {run}/{idx}/{pos}/human:ana changed"


def _change_calibration(ev: Evidence) -> str:
    with _db(ev) as db:
        db.execute("UPDATE calibrations SET profile = replace(profile, '0.9', '0.8')")
    return "calibration faces changed"


def _change_run(ev: Evidence) -> str:
    with _db(ev) as db:
        db.execute("UPDATE runs SET probe_version = '2' WHERE id = ?", (ev.runs[1],))
    return f"run {ev.runs[1]} changed"


def _change_file(name: str) -> object:
    def change(ev: Evidence) -> str:
        path = ev.report / name
        text = path.read_text()
        at = next(i for i, c in enumerate(text) if c.isdigit() and c not in "9")
        path.write_text(text[:at] + str(int(text[at]) + 1) + text[at + 1 :])
        return f"file {name} changed"

    return change


def _change_svg(ev: Evidence) -> str:
    chart = sorted((ev.report / "figures" / "charts").glob("*.svg"))[0]
    data = bytearray(chart.read_bytes())
    data[len(data) // 2] ^= 1
    chart.write_bytes(bytes(data))
    return f"file {chart.relative_to(ev.report).as_posix()} changed"


def _add_file(ev: Evidence) -> str:
    (ev.report / "figures" / "extra.png").write_bytes(b"\x89PNG")
    return "file figures/extra.png is new"


def _cut_short(ev: Evidence) -> str:
    path = ev.report / "report.md"
    os.truncate(path, path.stat().st_size // 2)
    return "file report.md changed"


def _add_huge_file(ev: Evidence) -> str:
    # 64 GiB, sparse: named as new without being read (reading it would take minutes).
    huge = ev.report / "figures" / "huge.png"
    huge.touch()
    os.truncate(huge, 64 * 1024**3)
    return "file figures/huge.png is new"


CHANGES = {
    "one reviewer's label": _change_label,
    "one byte of one image": _change_image,
    "one digit of one trial's output": _change_output,
    "one letter of a reviewer's note": _change_note,
    "the calibration in use": _change_calibration,
    "a run's probe version": _change_run,
    "one digit of report.md": _change_file("report.md"),
    "one digit of report.json": _change_file("report.json"),
    "one digit of report.html": _change_file("report.html"),
    "one byte of a chart": _change_svg,
    "a file added to the report": _add_file,
    "report.md cut short": _cut_short,
    "a huge file added to the report": _add_huge_file,
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_one_change_is_caught_and_named(
    change: str, copy: Evidence, capsys: pytest.CaptureFixture[str]
) -> None:
    named = CHANGES[change](copy)  # type: ignore[operator]
    code, out = verify(capsys, copy, "--allowed-signers", str(copy.allowed))
    assert code == 1, out
    assert len(out.strip().splitlines()) == 1
    assert named in out, out


def test_a_changed_label_with_a_manifest_made_again_fails_on_its_figures(
    copy: Evidence, capsys: pytest.CaptureFixture[str]
) -> None:
    """Someone who changes a label and writes the manifest again (unsigned: they lack the
    key) still fails: the report's figures are no longer what its records give."""
    _change_label(copy)
    with Workspace.open(copy.ws) as ws:
        ws.evidence.sign(copy.report, copy.runs, None, formats=["html", "md", "json"])
    code, out = verify(capsys, copy)
    assert code == 1, out
    assert f"figure run {copy.runs[1]}: " in out and "the records give" in out


def test_a_changed_number_with_a_manifest_made_again_names_the_figure(
    copy: Evidence, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads((copy.report / "report.json").read_text())
    name = next(iter(data["runs"][0]["result"]["numbers"]))
    data["runs"][0]["result"]["numbers"][name]["ci_high"] += 0.01
    (copy.report / "report.json").write_text(json.dumps(data, indent=2))
    with Workspace.open(copy.ws) as ws:
        ws.evidence.sign(copy.report, copy.runs, None, formats=["html", "md", "json"])
    code, out = verify(capsys, copy)
    assert code == 1, out
    assert f"figure run {copy.runs[0]}: {name} (ci_high)" in out


def test_a_changed_printed_number_with_a_manifest_made_again_names_its_line(
    copy: Evidence, capsys: pytest.CaptureFixture[str]
) -> None:
    path = copy.report / "report.md"
    lines = path.read_text().splitlines(keepends=True)
    n = next(i for i, line in enumerate(lines) if "STS paired" in line and "interval" in line)
    at = next(i for i, c in enumerate(lines[n]) if c.isdigit() and c != "9")
    digit = lines[n][at]
    lines[n] = lines[n][:at] + str(int(digit) + 1) + lines[n][at + 1 :]
    path.write_text("".join(lines))
    with Workspace.open(copy.ws) as ws:
        ws.evidence.sign(copy.report, copy.runs, None, formats=["html", "md", "json"])
    code, out = verify(capsys, copy)
    assert code == 1, out
    assert f"report.md line {n + 1} prints" in out and "where the records give" in out


def _listing(*dirs: Path) -> dict[str, str]:
    """Every file under ``dirs`` with the digest of its bytes: SQLite's write-ahead log and
    shared-memory index (``-wal``, ``-shm``) included, which a reader must not leave behind."""
    return {
        str(p): hashlib.sha256(p.read_bytes()).hexdigest()
        for d in dirs
        for p in sorted(d.rglob("*"))
        if p.is_file()
    }


def test_verify_leaves_the_workspace_and_report_as_they_were(
    copy: Evidence, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _listing(copy.ws, copy.report)
    assert not any(name.endswith(("-wal", "-shm")) for name in before)
    code, out = verify(capsys, copy, "--allowed-signers", str(copy.allowed))
    assert code == 0, out
    assert _listing(copy.ws, copy.report) == before


def test_a_wrong_key_is_refused_and_nothing_is_written(
    copy: Evidence, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = make_key(tmp_path, "mallory@example.org")
    before = _listing(copy.ws, copy.report)
    code, out = verify(capsys, copy, "--key", str(other) + ".pub")
    assert code == 1 and len(out.strip().splitlines()) == 1
    assert "does not verify" in out and "ask the signer for their public key" in out
    assert _listing(copy.ws, copy.report) == before
    code, out = verify(capsys, copy)
    assert code == 2 and "give --allowed-signers FILE or --key PUB" in out
    wrong = tmp_path / "allowed"
    wrong.write_text(f"mallory@example.org {other.with_name('id_ed25519.pub').read_text()}")
    code, out = verify(capsys, copy, "--allowed-signers", str(wrong))
    assert code == 1 and "lets no key sign as 'auditor@example.org'" in out
    # The signer's name could have been changed in the manifest: the line says so before it
    # says to add a key.
    assert "signer was changed after it was signed" in out
    code, out = verify(capsys, copy, "--key", str(copy.key))
    assert code == 2 and "this is a private key; give its public half (id_ed25519.pub)" in out
    assert _listing(copy.ws, copy.report) == before


def test_report_sign_with_a_missing_key_writes_nothing(
    signed: Evidence, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "never"
    code, out = call(capsys, "--store", str(signed.ws), "report", signed.runs[0],
                     "--out", str(out_dir), "--sign", str(tmp_path / "nokey"))  # fmt: skip
    assert code == 2 and "no such key file" in out and len(out.strip().splitlines()) == 1
    assert not out_dir.exists()
