"""Fixtures of the command-line tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def no_terminal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty directory as the working one, output captured (no terminal), no workspace
    named, no width set: what a CI job's log sees."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DIPTYCH_STORE", raising=False)
    monkeypatch.delenv("COLUMNS", raising=False)
    return tmp_path
