"""Running ``diptych agent`` from the command line in-process, against the scripted target."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.cli.main import main


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The CLI's exit code, stdout and stderr for ``args``."""
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def identities(capsys: pytest.CaptureFixture[str], store: Path, *args: str) -> tuple[int, str, str]:
    """``diptych --store STORE agent identities -m scripted-likelihood ARGS``: the agent's
    proposals scored on the scripted target model."""
    return call(
        capsys, "--store", str(store), "agent", "identities", "-m", "scripted-likelihood", *args
    )


def use_hashing_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sessions remember with HashingEmbedder: a sentence model is slow to load and may need
    a download."""
    from diptych.agent import session
    from diptych.agent.memory import HashingEmbedder

    monkeypatch.setattr(session, "SentenceEmbedder", HashingEmbedder)
