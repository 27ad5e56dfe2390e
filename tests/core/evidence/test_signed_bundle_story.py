"""Signed evidence end to end, as an auditor and a recipient meet it: an audit with a release
gate runs ``pst`` on the fake image service, ``faces`` labels its people and a reviewer labels
them too; the report is signed with a key ``ssh-keygen`` made, OpenSSH accepts the signature,
the bundle is imported into a fresh workspace and ``diptych verify`` re-derives every figure
and gate there. One byte changed anywhere — the report's text, an image, a label in the bundle,
the manifest — is then refused, naming what changed."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

import diptych.testing
from diptych.core import plugins
from diptych.core.evidence.bundle import MANIFEST_NAME
from diptych.core.trials import sha256_hex
from diptych.core.workspace import Workspace
from diptych.testing import FakeOpenAIServer
from tests.core.evidence.conftest import make_key
from tests.support.bundles import run_cli
from tests.support.fake_service_runs import PST, RULE

SIGNER = "auditor@example.org"
GATE = {"part": "pst", "figure": "occupation: STS paired", "below": 95, "name": "below 95"}


@dataclass
class Story:
    """The signed report, its bundle, the fresh workspace it was imported into, and the
    allowed-signers file a recipient keeps."""

    root: Path
    run: str
    report: Path
    bundle: Path
    fresh: Path
    allowed: Path


def _ok(args: list[str]) -> str:
    code, out, err = run_cli(args)
    assert code == 0, err
    return out


def _audit(path: Path, base_url: str) -> Path:
    data: dict[str, Any] = {
        "name": "signed-story",
        "models": {"images": {"plugin": "openai-images", "params": {"base_url": base_url}}},
        "probes": [{"probe": "pst", "models": ["images"], "params": PST}],
        "labels": {"annotators": ["faces"], "policy": "mixed"},
        "report": {"formats": ["json"]},
        "gates": [GATE],
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def story(tmp_path_factory: pytest.TempPathFactory) -> Story:
    root = tmp_path_factory.mktemp("story")
    ws = root / "ws"
    plugins.load_plugins()
    name = plugins.register_plugin(diptych.testing, "testing")
    mp = pytest.MonkeyPatch()
    mp.setenv("OPENAI_API_KEY", "sk-test-story")
    try:
        with FakeOpenAIServer(image_size=(16, 16)) as fake:
            audit = _audit(root / "audit.yaml", fake.base_url)
            code, _, err = run_cli(["--store", str(ws), "audit", "run", str(audit),
                                    "--out", str(root / "audit-report"), "--quiet"])  # fmt: skip
            # faces finds no face in the fake service's pictures: the gate has no figure until
            # the reviewer labels the people, and the audit says so (the report decides it).
            assert code == 2 and "has no part 'pst' with figures" in err, err
        with Workspace.open(ws) as w:
            (run,) = [r.run.id for r in w.runs.list()]
            for subject in w.runs.subjects(run):
                if subject.get("status") == "done":
                    w.labels.save(run, subject["trial_idx"], subject["position"],
                                  RULE[subject["meta"]["identity"]], reviewer="ana")  # fmt: skip
    finally:
        mp.undo()
        plugins.unregister_plugin(name)
    key = make_key(root, SIGNER)
    allowed = root / "allowed_signers"
    # The line a recipient writes: the signer and their public key, no options.
    public = " ".join(key.with_name(key.name + ".pub").read_text().split()[:2])
    allowed.write_text(f"{SIGNER} {public}\n")
    report = root / "signed"
    _ok(["--store", str(ws), "report", run, "--out", str(report), "--sign", str(key)])
    bundle = root / "evidence.zip"
    _ok(["--store", str(ws), "export", run, "--bundle", str(bundle), "--report", str(report)])
    fresh = root / "fresh"
    _ok(["--store", str(fresh), "import", str(bundle)])
    return Story(root, run, report, bundle, fresh, allowed)


def _verify(ws: Path, report: Path, allowed: Path) -> tuple[int, str]:
    code, out, err = run_cli(["--store", str(ws), "verify", str(report),
                              "--allowed-signers", str(allowed)])  # fmt: skip
    return code, out + err


def test_openssh_accepts_it_and_a_fresh_workspace_re_derives_every_figure(story: Story) -> None:
    manifest = story.report / "manifest.json"
    done = subprocess.run(
        ["ssh-keygen", "-Y", "verify", "-f", str(story.allowed), "-I", SIGNER,
         "-n", "diptych-report", "-s", str(manifest) + ".sig"],
        stdin=manifest.open("rb"), capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f'Good "diptych-report" signature for {SIGNER}' in done.stdout
    listed = json.loads(manifest.read_text())["records"]
    # What the report rests on: images, the annotator's labels and the reviewer's, the audit.
    assert listed["blob"] and listed["audit"] and listed["look"]
    annotators = {key.rsplit("/", 1)[1] for key in listed["label"]}
    assert annotators == {"faces", "human:ana"}
    stated = json.loads((story.report / "report.json").read_text())
    (gate,) = stated["gates"]["gates"]
    assert gate["figure"] == GATE["figure"] and gate["run"] == story.run and gate["verdict"]

    imported = story.fresh / "reports" / story.report.name
    signature = (story.report / "manifest.json.sig").read_bytes()
    assert (imported / "manifest.json.sig").read_bytes() == signature
    code, out = _verify(story.fresh, imported, story.allowed)
    assert code == 0, out
    figures = sum(len(r["result"]["numbers"]) for r in stated["runs"])
    figures += len(stated["headlines"]) + len(stated["verdict"]["findings"]) + 1
    assert out.startswith(f"signed by {SIGNER} with SHA256:")
    assert f"{figures} of {figures} figures re-derived" in out
    files = len(json.loads(manifest.read_text())["files"])
    assert f"{files} of {files} files and " in out


def _flip(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 1
    path.write_bytes(bytes(data))


def _report_copy(story: Story, tmp_path: Path) -> Path:
    copy = tmp_path / "report"
    shutil.copytree(story.fresh / "reports" / story.report.name, copy)
    return copy


def test_one_byte_of_the_reports_text_is_named(story: Story, tmp_path: Path) -> None:
    report = _report_copy(story, tmp_path)
    page = (report / "report.html").read_bytes()
    # A letter of the text a reader sees, not a number: the digest catches it all the same.
    _flip(report / "report.html", page.index(b"Stereotype"))
    code, out = _verify(story.fresh, report, story.allowed)
    assert code == 1 and len(out.strip().splitlines()) == 1
    assert "file report.html changed" in out


def test_one_byte_of_an_image_is_named(story: Story, tmp_path: Path) -> None:
    report = _report_copy(story, tmp_path)
    image = sorted(report.rglob("*.png"))[0]
    _flip(image, image.stat().st_size // 2)
    code, out = _verify(story.fresh, report, story.allowed)
    assert code == 1 and len(out.strip().splitlines()) == 1
    assert f"file {image.relative_to(report).as_posix()} changed" in out


@pytest.mark.parametrize(
    ("where", "exit_code", "said"),
    [
        # A digit of the date: still JSON, no longer what was signed.
        (b'"date": "20', 1, "the signature of manifest.json does not verify"),
        # A quote of a key: no longer JSON, refused as the input it is.
        (b'"signer"', 2, "manifest.json is not whole JSON"),
    ],
)
def test_one_byte_of_the_manifest_is_named(
    story: Story, tmp_path: Path, where: bytes, exit_code: int, said: str
) -> None:
    report = _report_copy(story, tmp_path)
    text = (report / "manifest.json").read_bytes()
    _flip(report / "manifest.json", text.index(where) + len(where) - 1)
    code, out = _verify(story.fresh, report, story.allowed)
    assert code == exit_code and len(out.strip().splitlines()) == 1
    assert said in out


def _members(bundle: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(bundle) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def test_one_byte_of_a_label_in_the_bundle_is_refused_on_import(
    story: Story, tmp_path: Path
) -> None:
    members = _members(story.bundle)
    table = bytearray(members["tables/labels.parquet"])
    table[len(table) // 2] ^= 1
    bundle = _zip(tmp_path / "b.zip", {**members, "tables/labels.parquet": bytes(table)})
    code, _, err = run_cli(["--store", str(tmp_path / "ws"), "import", str(bundle)])
    assert code != 0 and len(err.strip().splitlines()) == 1
    assert "member 'tables/labels.parquet' has a SHA-256 other than its manifest states" in err


def test_a_label_changed_in_the_bundle_and_its_digest_is_named_by_verify(
    story: Story, tmp_path: Path
) -> None:
    """One who changes a reviewer's label in the bundle and writes the bundle's manifest again
    (it carries no signature) gets it imported, and ``verify`` names the label."""
    members = _members(story.bundle)
    labels = pq.read_table(io.BytesIO(members["tables/labels.parquet"])).to_pylist()
    row = next(r for r in labels if r["annotator"] == "human:ana")
    row["label"] = "feminine" if row["label"] == "masculine" else "masculine"
    schema = pq.read_schema(io.BytesIO(members["tables/labels.parquet"]))
    out = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(labels, schema=schema), out)
    table = out.getvalue()
    manifest = json.loads(members[MANIFEST_NAME])
    for member in manifest["members"]:
        if member["path"] == "tables/labels.parquet":
            member.update(sha256=sha256_hex(table), size=len(table))
    bundle = _zip(tmp_path / "b.zip", {**members, "tables/labels.parquet": table,
                                       MANIFEST_NAME: json.dumps(manifest).encode()})  # fmt: skip
    received = tmp_path / "ws"
    _ok(["--store", str(received), "import", str(bundle)])
    code, said = _verify(received, received / "reports" / story.report.name, story.allowed)
    assert code == 1 and len(said.strip().splitlines()) == 1
    named = f"label {row['run_id']}/{row['trial_idx']}/{row['position']}/human:ana changed"
    assert named in said
