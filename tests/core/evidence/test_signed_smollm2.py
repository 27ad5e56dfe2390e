"""A report of a real run on the bundled SmolLM2, signed end to end: run a small pst-text
design, write the report signed with a key ``ssh-keygen`` made, accept the signature with
``ssh-keygen -Y verify`` and re-derive every figure with ``diptych verify``; a changed file is
then refused. About half a minute on 2 cores."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.core.evidence.conftest import allowed_signers, make_key
from tests.core.evidence.test_signed_report import figures_stated
from tests.support.cli import call

SIGNER = "auditor@example.org"


@pytest.mark.slow
def test_a_smollm2_report_signs_and_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws, report = str(tmp_path / "ws"), tmp_path / "report"
    code, out = call(capsys, "--store", ws, "run", "pst-text", "-m", "smollm2",
                     "-p", "masculine=carpenter,sheriff", "-p", "feminine=nurse,editor",
                     "--quiet")  # fmt: skip
    assert code == 0, out
    code, out = call(capsys, "--store", ws, "runs", "--json")
    (run,) = json.loads(out)
    # 2 × 2 identities, at pst-text's defaults: 4 identities × 3 single prompts, and 4 pairs
    # × 2 orders × 2 paired prompts — 28 trials, every one answered.
    assert run["probe"] == "pst-text" and run["counts"]["done"] == sum(run["counts"].values()) == 28
    key = make_key(tmp_path, SIGNER)
    code, out = call(capsys, "--store", ws, "report", run["id"], "--out", str(report),
                     "--sign", str(key))  # fmt: skip
    assert code == 0, out
    manifest, signature = report / "manifest.json", report / "manifest.json.sig"
    allowed = allowed_signers(tmp_path / "allowed", SIGNER, key)
    done = subprocess.run(
        ["ssh-keygen", "-Y", "verify", "-f", str(allowed), "-I", SIGNER,
         "-n", "diptych-report", "-s", str(signature)],
        stdin=manifest.open("rb"), capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f'Good "diptych-report" signature for {SIGNER}' in done.stdout
    # The results it rests on were computed by llama.cpp: the manifest holds their records.
    listed = json.loads(manifest.read_text())
    assert listed["signer"] == SIGNER
    code, out = call(capsys, "--store", ws, "verify", str(report), "--allowed-signers",
                     str(allowed))  # fmt: skip
    assert code == 0, out
    n = figures_stated(report)
    assert n >= 4 and f"{n} of {n} figures re-derived" in out
    assert f"signed by {SIGNER} with SHA256:" in out
    # One line added to the Markdown: verify names the file and refuses it.
    md = report / "report.md"
    md.write_text(md.read_text(encoding="utf-8") + "\nA line added after signing.\n")
    code, out = call(capsys, "--store", ws, "verify", str(report), "--allowed-signers",
                     str(allowed))  # fmt: skip
    assert code == 1 and "report.md" in out
