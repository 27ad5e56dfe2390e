"""A signed report over runs with every kind of record a report rests on: pst on the fake
OpenAI service (images), labelled by ``faces`` (an automatic annotator, with a calibration kept
for it) and by a reviewer (labels and a note), and pst-text on the scripted likelihood model.
Built once; each test signs or tampers with its own copy."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.fake_service_runs import RULE, fake_service_runs

from diptych.core.store import open_store


@dataclass
class Evidence:
    """A workspace, a signed report of its runs, and the key and allowed-signers file."""

    ws: Path
    report: Path
    runs: list[str]
    key: Path
    allowed: Path
    signer: str = "auditor@example.org"


def make_key(directory: Path, comment: str) -> Path:
    key = directory / "id_ed25519"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(key)],
        check=True,
        stdin=subprocess.DEVNULL,
    )
    return key


def allowed_signers(path: Path, principal: str, key: Path) -> Path:
    public = " ".join(key.with_name(key.name + ".pub").read_text().split()[:2])
    path.write_text(f'{principal} namespaces="diptych-report" {public}\n')
    return path


@pytest.fixture(scope="package")
def signed(tmp_path_factory: pytest.TempPathFactory) -> Evidence:
    root = tmp_path_factory.mktemp("evidence")
    path = root / "ws"
    with fake_service_runs(path, "sk-test-evidence") as made:
        ws, pst = made.ws, made.pst
        for subject in ws.runs.subjects(pst.id):
            if subject.get("status") == "done":
                ws.labels.save(
                    pst.id,
                    subject["trial_idx"],
                    subject["position"],
                    RULE[subject["meta"]["identity"]],
                    reviewer="ana",
                )
        first = ws.runs.subjects(pst.id)[0]
        ws.review.save_note(
            pst.id, first["trial_idx"], first["position"], "face in shadow", reviewer="ana"
        )
        runs = [made.text.id, pst.id]
    # The error profile a calibration run would keep for faces (its numbers do not matter
    # here: that the report rests on it does).
    with open_store(path) as store:
        store.save_calibration("faces", "1", {"subset": "all", "accuracy": 0.9})
    key = make_key(root, "auditor@example.org")
    report = root / "report"
    from diptych.cli.main import main

    with pytest.raises(SystemExit) as done:
        main(["--store", str(path), "report", *runs, "--out", str(report), "--sign", str(key)])
    assert done.value.code == 0
    allowed = allowed_signers(root / "allowed", "auditor@example.org", key)
    return Evidence(path, report, runs, key, allowed)


@pytest.fixture
def copy(signed: Evidence, tmp_path: Path) -> Iterator[Evidence]:
    """The signed report and its workspace copied, for a test to change."""
    shutil.copytree(signed.ws, tmp_path / "ws")
    shutil.copytree(signed.report, tmp_path / "report")
    yield Evidence(tmp_path / "ws", tmp_path / "report", signed.runs, signed.key, signed.allowed)
