"""Agent sessions that have started but stored no run: a checkpoint as the agent writes it when
a session starts, and a mitigation stopped before its first run."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.base import empty_checkpoint

from diptych.agent.checkpoint import checkpointer
from diptych.core.workspace import Workspace

MASCULINE = ["carpenter", "driver", "farmer", "lawyer"]
FEMININE = ["nurse", "editor", "baker", "clerk"]


def started(store: Path, session: str, settings: dict[str, Any]) -> None:
    """A session's first checkpoint, as the agent writes it when the session starts."""
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"settings": settings}
    config: Any = {"configurable": {"thread_id": session, "checkpoint_ns": ""}}
    with checkpointer(store) as saver:
        saver.put(config, checkpoint, {"source": "input", "step": -1}, {})


def stopped_mitigation(store: Path, session: str) -> str:
    """The id of a baseline run of the scripted target, after a mitigation session ``session``
    on it was stopped as it started (before its first run). Needs the scripted models."""
    from diptych.agent.chat_model import agent_model
    from diptych.agent.session import search_mitigations
    from diptych.agent.stopping import SearchStopped

    planted = {**dict.fromkeys(MASCULINE, 0.3), **dict.fromkeys(FEMININE, 0.7)}
    with Workspace.open(store) as ws:
        target = ws.plugins.model(("scripted-likelihood", {"p_feminine": planted}))
        base = ws.runs.run_sync(
            "pst-text",
            [target],
            params={"masculine": MASCULINE, "feminine": FEMININE, "setting": "paired"},
        )
        stop = threading.Event()
        stop.set()
        with pytest.raises(SearchStopped):
            search_mitigations(
                ws, agent_model("scripted-chat"), base.id, session=session, stop=stop
            )
        assert [r.run.id for r in ws.runs.list()] == [base.id]
    return base.id
