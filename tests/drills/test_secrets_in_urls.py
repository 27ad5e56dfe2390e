"""Credentials written into ``base_url`` and keys that are not ``sk-`` keys are found nowhere:
not in the workspace, not in ``show``, not in a report."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from diptych.cli.main import main
from diptych.core.workspace import Workspace
from diptych.testing import FakeOpenAIServer

PASSWORD = "PASSWORDin-url-1234"
QUERY_KEY = "QUERYKEYin-url-5678"
#: An Azure-style key: no sk- prefix, so only the key itself says it is one.
WRONG_KEY = "azure0123456789abcdefWRONGTAIL"


def run_cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(args)
            code = 0
        except SystemExit as done:
            code = int(done.code or 0)
    return code, out.getvalue(), err.getvalue()


def leaks(paths: list[Path], texts: list[str], secrets: list[str]) -> list[str]:
    found = []
    for secret in secrets:
        needle = secret.encode()
        found += [f"{p}: {secret}" for p in paths if p.is_file() and needle in p.read_bytes()]
        found += [f"output: {secret}" for t in texts if secret in t]
    return found


def test_credentials_in_base_url_and_a_rejected_key_are_written_nowhere(
    scripted: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, out = tmp_path / "ws", tmp_path / "out"
    monkeypatch.setenv("OPENAI_API_KEY", WRONG_KEY)
    with FakeOpenAIServer(image_size=(16, 16), api_key="the-right-key") as fake:
        host = fake.base_url.split("://", 1)[1].removesuffix("/v1")
        url = f"http://drilluser:{PASSWORD}@{host}/v1?api-key={QUERY_KEY}"
        code, stdout, err = run_cli(
            [
                "--store",
                str(store),
                "run",
                "scripted",
                "-m",
                "openai-images",
                "-M",
                f"base_url={url}",
                "-M",
                "max_concurrency=1",
                "-p",
                "capability=image_generator",
                "-p",
                "n=3",
                "--quiet",
                "--max-attempts",
                "1",
            ]
        )
        asked = fake.count(status=401)
    assert asked == 3  # the key was sent, and rejected with OpenAI's message
    with Workspace.open(store) as ws:
        (summary,) = ws.runs.list()
    run_id = summary.run.id
    texts = [stdout, err]
    for args in (["show", run_id], ["report", run_id, "-o", str(out)]):
        code, stdout, err = run_cli(["--store", str(store), *args])
        assert code == 0, err
        texts += [stdout, err]
    assert (out / "report.json").is_file()
    secrets = [PASSWORD, QUERY_KEY, WRONG_KEY, WRONG_KEY[:8], WRONG_KEY[-8:], "drilluser"]
    assert leaks([*store.rglob("*"), *out.rglob("*")], texts, secrets) == []
