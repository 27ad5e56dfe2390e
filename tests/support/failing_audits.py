"""An audit file of one ``pst-text`` part on the scripted likelihood model, and the model made to
fail every request about a nurse: an audit whose part's run ends with failed trials."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
import yaml

from diptych.testing import ScriptedLikelihood
from tests.support.sequential_audits import FEM, MASC

#: The scripted model's own answers, before :func:`fail_on_nurses` replaces them.
ANSWERS = ScriptedLikelihood.next_token_logprobs


async def _fails_on_nurses(
    self: ScriptedLikelihood, prompt: str, candidates: Sequence[str]
) -> dict[str, float]:
    if "nurse" in prompt:
        raise ValueError("the backend crashed")
    return await ANSWERS(self, prompt, candidates)


def fail_on_nurses(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the scripted likelihood model fail every request whose prompt names a nurse."""
    monkeypatch.setattr(ScriptedLikelihood, "next_token_logprobs", _fails_on_nurses)


def mend(monkeypatch: pytest.MonkeyPatch) -> None:
    """Give the scripted likelihood model its own answers back."""
    monkeypatch.setattr(ScriptedLikelihood, "next_token_logprobs", ANSWERS)


def failing_audit(path: Path) -> Path:
    """Write the audit to ``path``, its report (JSON and Markdown) to ``report/`` beside it."""
    data = {
        "name": "failing",
        "seed": 3,
        "models": {"target": {"plugin": "scripted-likelihood"}},
        "probes": [
            {
                "probe": "pst-text",
                "models": ["target"],
                "params": {"masculine": MASC, "feminine": FEM, "setting": "paired"},
            }
        ],
        "report": {"formats": ["json", "md"], "out": str(path.parent / "report")},
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path
