"""The workspace's vector index on a chromadb server (``chroma run``) gives the embedded answers."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from diptych.core.vectors import add_vectors, open_collection, stored_vectors
from diptych.core.workspace import Workspace
from diptych.testing import free_port

pytestmark = pytest.mark.slow

CHROMA = Path(sys.executable).parent / "chroma"


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ``chroma run`` server on loopback, stopped at the end of the module."""
    # chromadb's own command, installed with the dev extra.
    assert CHROMA.exists(), f"{CHROMA} is missing: install diptych[dev]"
    port = free_port()
    data = tmp_path_factory.mktemp("chroma-server")
    log = open(data / "server.log", "wb")  # closed with the server below
    server = subprocess.Popen(
        [
            str(CHROMA),
            "run",
            "--path",
            str(data / "db"),
            "--port",
            str(port),
            "--host",
            "127.0.0.1",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1).close()
            break
        except (urllib.error.URLError, OSError):
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                pytest.fail(f"chroma run did not start: {(data / 'server.log').read_text()}")
            time.sleep(0.2)
    yield url
    server.terminate()
    server.wait(10)
    log.close()


def _vectors() -> tuple[list[str], np.ndarray, list[dict[str, str]]]:
    rng = np.random.default_rng(7)
    ids = [f"img-{i:03d}" for i in range(40)]
    metadatas = [{"group": "a" if i % 2 else "b"} for i in range(40)]
    return ids, rng.normal(size=(40, 8)).astype(np.float32), metadatas


def test_a_server_collection_answers_as_the_embedded_one(chroma_url: str, tmp_path: Path) -> None:
    ids, vectors, metadatas = _vectors()
    query = vectors[:3] + 0.01
    answers = []
    for url in (None, chroma_url):
        collection = open_collection(tmp_path / "ws", "server-check", url=url)
        add_vectors(collection, ids, vectors, metadatas)
        got = collection.query(query_embeddings=query, n_results=5, where={"group": "a"})
        stored_ids, stored = stored_vectors(collection, {"group": "b"})
        answers.append((got["ids"], np.round(got["distances"], 5).tolist(), stored_ids, stored))
    (e_ids, e_dist, e_stored_ids, e_stored), (s_ids, s_dist, s_stored_ids, s_stored) = answers
    assert s_ids == e_ids and s_dist == e_dist
    assert (
        s_stored_ids
        == e_stored_ids
        == sorted(i for i, m in zip(ids, metadatas, strict=True) if m["group"] == "b")
    )
    np.testing.assert_allclose(s_stored, e_stored)


def test_the_workspace_names_the_server(
    chroma_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids, vectors, _ = _vectors()
    with Workspace.open(tmp_path / "ws", chroma_url=chroma_url) as ws:
        assert ws.chroma_url == chroma_url
        add_vectors(ws.collection("through-workspace"), ids, vectors)
    assert not (tmp_path / "ws" / "chroma").exists()
    # $DIPTYCH_CHROMA names the server for a workspace opened without one.
    monkeypatch.setenv("DIPTYCH_CHROMA", chroma_url)
    with Workspace.open(tmp_path / "other") as ws:
        assert ws.chroma_url == chroma_url
        assert ws.collection("through-workspace").count() == 40
    monkeypatch.delenv("DIPTYCH_CHROMA")
    with Workspace.open(tmp_path / "other") as ws:
        assert ws.chroma_url is None
        assert ws.collection("through-workspace").count() == 0


def test_the_cli_keeps_a_runs_vectors_on_the_server(
    chroma_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``diptych --chroma URL`` carries the server into the run's analysis: the counterfactual
    probe's collection of image embeddings is made on the server, none in the workspace (the
    tiny CLIP's random weights keep no set through the filter, so the collection stays empty)."""
    import chromadb
    from support.tiny.clip import build_tiny_clip

    from diptych.cli.main import main
    from diptych.plugins.probes.counterfactual.ranking import collection_name

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("DIPTYCH_CHROMA", raising=False)
    clip_dir = tmp_path / "tiny-clip"
    build_tiny_clip(clip_dir)
    ws = tmp_path / "ws"
    argv = ["--store", str(ws), "--chroma", chroma_url, "run", "counterfactual-retrieval"]
    with pytest.raises(SystemExit) as ended:
        main([*argv, "-m", f"clip:{clip_dir}", "--sets", "pairs"])
    assert ended.value.code in (0, None)
    port = int(chroma_url.rsplit(":", 1)[1])
    server = chromadb.HttpClient(host="127.0.0.1", port=port)
    with Workspace.open(ws) as opened:
        (summary,) = opened.runs.list()
        (model_id,) = opened.runs.view(summary.run.id).model_ids()
    assert collection_name(model_id) in {c.name for c in server.list_collections()}
    assert not (ws / "chroma").exists()


def test_a_bad_chroma_url_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from diptych.cli.main import main

    with pytest.raises(SystemExit) as ended:
        main(["--store", str(tmp_path / "ws"), "--chroma", "not-a-url", "runs"])
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: chromadb server URL 'not-a-url'") and err.count("\n") == 1
    assert not (tmp_path / "ws").exists()
