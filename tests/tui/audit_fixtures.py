"""The audits the Audit-screen tests open, and the step that opens one: a paired ``pst-text``
part on the scripted likelihood model ``t`` with a planted bias, written as ``audit.yaml`` in the
directory the app runs from, with the test plugins registered while it lives."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from steps import open_audit, wait_for
from textual.pilot import Pilot

import diptych.testing
from diptych.core import plugins
from diptych.tui.screens.audit import AuditScreen
from tests.support.sequential_audits import FEM, FIGURE, MASC

#: The one gate of :func:`planted_audit`'s audits unless a test names its own.
BELOW_75 = {"part": "pst-text", "figure": FIGURE, "below": 75, "name": "below 75"}


@contextmanager
def audit_workdir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: dict[str, Any]
) -> Iterator[Path]:
    """``tmp_path`` as the app's working directory, ``data`` written to its ``audit.yaml`` and
    the test plugins registered until the block ends."""
    plugins.load_plugins()
    name = plugins.register_plugin(diptych.testing, "testing")
    try:
        monkeypatch.chdir(tmp_path)
        (tmp_path / "audit.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
        yield tmp_path
    finally:
        plugins.unregister_plugin(name)


def planted_audit(
    name: str,
    *,
    gates: list[dict[str, Any]] | None = None,
    models: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """An audit of six masculine- and six feminine-stereotyped identities on ``t``, which gives
    the masculine P(she) near 0.2 and the feminine near 0.8 (noise ±0.3): a paired expected STS
    near 60. ``extra`` (searches, say) goes in before the report and the gates."""
    planted = {**dict.fromkeys(MASC, 0.2), **dict.fromkeys(FEM, 0.8)}
    target = {"plugin": "scripted-likelihood", "params": {"p_feminine": planted, "noise": 0.3}}
    return {
        "name": name,
        "seed": 1,
        "models": {"t": target, **(models or {})},
        "probes": [{"probe": "pst-text", "models": ["t"],
                    "params": {"masculine": MASC, "feminine": FEM, "setting": "paired"}}],
        **extra,
        "report": {"formats": ["json"]},
        "gates": [BELOW_75] if gates is None else gates,
    }  # fmt: skip


async def open_planned(pilot: Pilot[Any]) -> AuditScreen:
    """The Audit screen with ``audit.yaml`` opened and planned."""
    screen = await open_audit(pilot)
    await pilot.press(*"audit.yaml", "enter")
    await wait_for(pilot, lambda: screen.plan is not None, "the plan")
    await pilot.pause()
    return screen


def searched_audit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, below: float
) -> Path:
    """``a.yaml`` in ``tmp_path``, the directory the app runs from: a gated pst-text part (the
    planted figure near 60, gated below ``below``) and an identity search no gate reads, its
    agent remembering words by the hashing embedder (no model to download)."""
    from diptych.agent import session
    from diptych.agent.memory import HashingEmbedder
    from tests.support.sequential_audits import planted_audit as written_audit

    monkeypatch.setattr(session, "SentenceEmbedder", HashingEmbedder)
    monkeypatch.chdir(tmp_path)
    planted = {**dict.fromkeys(MASC, 0.2), **dict.fromkeys(FEM, 0.8)}
    target = {"plugin": "scripted-likelihood", "params": {"p_feminine": planted, "noise": 0.3}}
    search = {"name": "identities", "kind": "identities", "target": "target",
              "agent_model": "agent", "rounds": 1, "per_round": 1, "patience": 0}  # fmt: skip
    gates = [{"part": "pst-text", "figure": FIGURE, "below": below}]
    return written_audit(
        tmp_path / "a.yaml", gates, MASC, FEM, name=name, seed=2,
        models={"target": target, "agent": {"plugin": "scripted-chat"}}, searches=[search],
    )  # fmt: skip
