"""A run whose every trial the service refused as sent (a model it does not serve, a path it
does not have) says what failed and what to change: a resume would send the same requests and
fail the same way. A passing failure still says to run or resume."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from diptych.cli.main import main


@pytest.fixture
def refusing_service(request: pytest.FixtureRequest) -> Iterator[str]:
    """A loopback service answering every request with the status the test names."""
    status: int = request.param

    class Refusing(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            self.rfile.read(int(self.headers.get("content-length") or 0))
            body = json.dumps({"error": {"message": "Not Found", "type": "invalid_request"}})
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _notes(tmp_path: Path, base_url: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    with pytest.raises(SystemExit) as exited:
        main(
            [
                "--store",
                str(tmp_path / "ws"),
                "run",
                "pst-text",
                "-m",
                "openai-compatible",
                "-M",
                f"base_url={base_url}",
                "-M",
                "model=m",
                "-p",
                "masculine=carpenter",
                "-p",
                "feminine=nurse",
                "--max-attempts",
                "1",
                "--quiet",
            ]
        )
    out, _ = capsys.readouterr()
    assert exited.value.code == 1  # failed trials
    return [line for line in out.splitlines() if line.startswith("note: no labelled")]


@pytest.mark.parametrize("refusing_service", [404], indirect=True)
def test_every_trial_refused_as_sent_says_what_to_change(
    refusing_service: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _notes(tmp_path, refusing_service, capsys) == [
        "note: no labelled subjects: every trial failed (The server rejected the request "
        "(404): Not Found); change the model or its base_url (or key) and run again, since a "
        "resume sends the same requests and fails the same way until then"
    ]


@pytest.mark.parametrize("refusing_service", [503], indirect=True)
def test_a_passing_failure_still_says_to_resume(
    refusing_service: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _notes(tmp_path, refusing_service, capsys) == [
        "note: no labelled subjects yet; run or resume the probe"
    ]
