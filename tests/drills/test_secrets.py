"""An API key from the environment or a key file is found nowhere in the workspace or outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from diptych.testing import FakeOpenAIServer
from tests.drills.test_fuzz_inputs import run_cli

KEY = "sk-proj-DRILLsecret0123456789abcdefABCDEF"


@pytest.mark.parametrize(
    ("model", "probe", "params"),
    [
        ("openai-images", "scripted", ["capability=image_generator", "n=3"]),
        ("openai-compatible", "scripted", ["capability=chat", "n=3"]),
        # PAIRS through a vision-chat model: 1 scenario x 4 images x 1 run.
        ("openai-vision", "pairs", ["subsets=occupations", "scenarios=scrubs", "runs=1"]),
    ],
)
@pytest.mark.parametrize("source", ["env", "file"])
def test_the_key_is_written_nowhere(
    scripted: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    model: str,
    probe: str,
    params: list[str],
    source: str,
) -> None:
    store, out = tmp_path / "ws", tmp_path / "out"
    out.mkdir()
    key_args: list[str] = []
    if source == "env":
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
    else:
        key_file = tmp_path / "key.txt"
        key_file.write_text(KEY + "\n")
        key_args = ["-M", f"api_key_file={key_file}"] if model != "openai-compatible" else []
        if model == "openai-compatible":
            monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAIServer(image_size=(16, 16), api_key=KEY) as fake:
        code, err = run_cli(
            [
                "--store",
                str(store),
                "run",
                probe,
                "-m",
                model,
                "-M",
                f"base_url={fake.base_url}",
                *key_args,
                *(arg for param in params for arg in ("-p", param)),
                "--quiet",
            ]
        )
        assert code == 0, err
        assert fake.count(status=200) >= 3  # the key was sent, and accepted
    with Workspace.open(store) as ws:
        (summary,) = ws.runs.list()
    run_id = summary.run.id
    code, err = run_cli(["--store", str(store), "export", run_id, "-o", str(out / "x.jsonl")])
    assert code == 0, err
    assert (out / "x.jsonl").read_text().count("\n") == (4 if probe == "pairs" else 3)
    code, err = run_cli(["--store", str(store), "report", run_id, "-o", str(out / "report")])
    assert code == 0, err
    written = {p.name for p in (out / "report").iterdir()}
    assert {"report.html", "report.md", "report.json"} <= written
    leaked = [
        str(path)
        for path in [*store.rglob("*"), *out.rglob("*")]
        if path.is_file() and KEY.encode() in path.read_bytes()
    ]
    assert leaked == []
    assert KEY not in err
