"""An automatic annotator on a run with no images is refused in one line, with nothing stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import call


@pytest.mark.usefixtures("scripted_plugin")
def test_faces_on_a_text_run_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = ["--store", str(tmp_path / "ws")]
    code, out = call(capsys, *store, "run", "pst-text", "-m", "scripted-likelihood",
                     "-p", "masculine=carpenter,driver", "-p", "feminine=nurse,editor",
                     "--quiet")  # fmt: skip
    assert code == 0, out
    run_id = next(w for w in out.split() if w.startswith("pst-text-")).rstrip(":")
    code, out = call(capsys, *store, "annotate", run_id, "--annotator", "faces")
    assert code == 2, out
    assert out.strip() == f"error: faces labels people in images; run {run_id} has no images"
