"""No secret enters an evidence bundle: API keys planted in the environment, a user, password
and key written into ``base_url``, model options holding tokens, keys and headers (as a
third-party plugin might have stored them). The bundle's bytes, and every member unpacked, are
searched for each planted value: none is found. A blob that holds a secret stops the export."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from diptych.core.evidence.bundle.scrub import REDACTED
from diptych.core.store import ResultRecord, TrialRow, open_store
from diptych.testing import FakeOpenAIServer
from tests.support.bundles import run_cli

ENV_KEY = "sk-proj-BUNDLEsecret0123456789abcdefXYZ"
HF_TOKEN = "hf_PLANTEDtoken0123456789abcdef"
PASSWORD = "PASSWORDin-url-4321"
QUERY_KEY = "QUERYKEYin-url-8765"
OPTION_KEY = "OPTIONkey-0123456789abcdef"
HEADER = "Bearer HEADERtoken-0123456789"
PLANTED = [ENV_KEY, HF_TOKEN, PASSWORD, QUERY_KEY, OPTION_KEY, HEADER, "HEADERtoken-0123456789"]


def hits(bundle: Path) -> list[str]:
    """Every planted value found in the archive's bytes or in any member unpacked."""
    found = [f"archive: {s}" for s in PLANTED if s.encode() in bundle.read_bytes()]
    with zipfile.ZipFile(bundle) as archive:
        for name in archive.namelist():
            data = archive.read(name)
            found += [f"{name}: {s}" for s in PLANTED if s.encode() in data]
    return found


def plant_a_third_party_run(store: Path, url: str) -> str:
    """A run whose model stored its options whole: a key, headers, a URL with credentials; and
    a failed result whose error quotes the key from the environment."""
    with open_store(store) as s:
        s.create_run(
            "thirdparty-00000001",
            probe="scripted",
            probe_version="1",
            params={"n": 1, "callback": url},
            models=[{"name": "acme", "version": "1", "model_id": "acme", "params": {
                "api_key": OPTION_KEY, "headers": {"Authorization": HEADER},
                "base_url": url, "api_key_env": "OPENAI_API_KEY"}}],
            fingerprint="f" * 64,
            diptych_version="test",
        )  # fmt: skip
        s.add_trials(
            "thirdparty-00000001",
            [
                TrialRow(
                    "thirdparty-00000001",
                    0,
                    "acme",
                    "k" * 64,
                    "chat",
                    0,
                    {"messages": [], "token": OPTION_KEY},
                    {"i": 0},
                )
            ],  # fmt: skip
            [],
        )
        s.save_result(
            ResultRecord(
                key="k" * 64, model_id="acme", model_version="1", capability="chat",
                status="failed", output=None, blob=None,
                error=f"401: key {ENV_KEY} rejected at {url}", attempts=1,
                started_at=0.0, finished_at=1.0, provenance={"endpoint": url},
            )
        )  # fmt: skip
    return "thirdparty-00000001"


def test_no_planted_secret_is_found_in_a_bundle(
    scripted: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "ws"
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    monkeypatch.setenv("HF_TOKEN", HF_TOKEN)
    with FakeOpenAIServer(image_size=(16, 16)) as fake:
        host = fake.base_url.split("://", 1)[1].removesuffix("/v1")
        served_url = f"http://auditor:{PASSWORD}@{host}/v1"
        code, said, err = run_cli(["--store", str(store), "run", "scripted", "-m", "openai-images",
                                "-M", f"base_url={served_url}", "-p", "capability=image_generator",
                                "-p", "n=3", "--quiet"])  # fmt: skip
        assert code == 0, said + err
    with open_store(store) as s:
        (served,) = s.list_runs()
    url = f"http://auditor:{PASSWORD}@{host}/v1?api-key={QUERY_KEY}"
    planted = plant_a_third_party_run(store, url)
    report = tmp_path / "report"
    code, _, err = run_cli(["--store", str(store), "report", served.id, "-o", str(report)])
    assert code == 0, err

    for run_id, extra in ((served.id, ["--report", str(report)]), (planted, [])):
        bundle = tmp_path / f"{run_id}.zip"
        code, out, err = run_cli(["--store", str(store), "export", run_id, "--bundle",
                                  str(bundle), *extra])  # fmt: skip
        assert code == 0, err
        assert hits(bundle) == []
        assert all(s not in out + err for s in PLANTED)

    # What was taken out is said, and the rest of the record is kept.
    assert "left out as secrets (held or looked like them): " in out
    imported = tmp_path / "imported"
    code, _, err = run_cli(["--store", str(imported), "import", str(tmp_path / f"{planted}.zip")])
    assert code == 0, err
    with open_store(imported) as s:
        run = s.get_run(planted)
        (model,) = run.models
        assert model["params"]["api_key"] == REDACTED and model["params"]["headers"] == REDACTED
        assert model["params"]["api_key_env"] == "OPENAI_API_KEY"
        assert model["params"]["base_url"] == f"http://{host}/v1?api-key={REDACTED}"
        (error,) = [r["error"] for r in s.db.execute("SELECT error FROM results")]
        assert error == f"401: key {REDACTED} rejected at http://{host}/v1?api-key={REDACTED}"


def test_a_blob_holding_a_secret_stops_the_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "ws"
    monkeypatch.setenv("ACME_API_KEY", OPTION_KEY)
    with open_store(store) as s:
        plant_a_third_party_run(store, "http://127.0.0.1:9/v1")
        sha = s.put_blob(f"a long text quoting {OPTION_KEY}".encode())
        with s.transaction() as db:
            db.execute("UPDATE results SET blob = ?, status = 'done'", (sha,))
    bundle = tmp_path / "b.zip"
    code, _, err = run_cli(["--store", str(store), "export", "thirdparty", "--bundle",
                            str(bundle)])  # fmt: skip
    assert code != 0
    (line,) = err.strip().splitlines()
    assert f"blobs/{sha[:2]}/{sha[2:]} holds the value of $ACME_API_KEY" in line
    assert OPTION_KEY not in line
    assert not list(tmp_path.glob("*.zip")) and not list(tmp_path.glob(".b.zip*"))


def test_the_manifest_says_what_it_holds_without_secrets(tmp_path: Path) -> None:
    store = tmp_path / "ws"
    plant_a_third_party_run(store, "http://127.0.0.1:9/v1")
    bundle = tmp_path / "b.zip"
    code, _, err = run_cli(["--store", str(store), "export", "thirdparty", "--bundle",
                            str(bundle)])  # fmt: skip
    assert code == 0, err
    with zipfile.ZipFile(bundle) as archive:
        manifest = json.loads(archive.read("bundle.json"))
    assert manifest["format"] == "diptych-evidence-bundle" and manifest["format_version"] == 1
    assert manifest["runs"] == ["thirdparty-00000001"] and hits(bundle) == []
