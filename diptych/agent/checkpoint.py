"""Where agent sessions are checkpointed: langgraph's SQLite saver in ``<workspace>/agent.db``.

The thread id is the agent session id; every node's output is saved before the next node
starts, so a session killed at any point resumes at the node it was in. A node that was cut
short runs again from its start: its probe runs skip every trial already stored (the engine's
cache), so no trial is asked twice.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langgraph.checkpoint.sqlite import SqliteSaver

AGENT_DB = "agent.db"


@contextmanager
def checkpointer(workspace_path: Path) -> Iterator[SqliteSaver]:
    conn = sqlite3.connect(str(workspace_path / AGENT_DB), check_same_thread=False)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        yield SqliteSaver(conn)
    finally:
        conn.close()


def run_graph(
    graph: Any, workspace_path: Path, session: str, initial: dict[str, Any], *, rounds: int
) -> dict[str, Any]:
    """Run (or resume) the session ``session`` of ``graph``, of at most ``rounds`` rounds, to
    its end; return its state.

    A session with a checkpoint continues from it and ignores ``initial``; a finished session
    returns its final state without calling anything."""
    # langgraph stops a graph past this many steps: every node once a round, and the last.
    limit = (rounds + 1) * len(graph.nodes) + 1
    config: Any = {"configurable": {"thread_id": session}, "recursion_limit": limit}
    with checkpointer(workspace_path) as saver:
        app = graph.compile(checkpointer=saver)
        snapshot = app.get_state(config)
        if snapshot.values and not snapshot.next:
            return dict(snapshot.values)
        app.invoke(None if snapshot.values else initial, config)
        return dict(app.get_state(config).values)


def stored_state(workspace_path: Path, session: str) -> dict[str, Any] | None:
    """The last checkpointed state of ``session``, or None when there is none (read from the
    saver directly: a front end asks before it has a graph to compile)."""
    if not (workspace_path / AGENT_DB).exists():
        return None
    config: Any = {"configurable": {"thread_id": session}}
    with checkpointer(workspace_path) as saver:
        found = saver.get_tuple(config)
    values = found.checkpoint.get("channel_values") if found is not None else None
    return dict(values) if values else None


def checkpointed_sessions(workspace_path: Path) -> list[str]:
    """The id of every session with a checkpoint, the first started first: those started but
    with no run stored yet among them (read-only; none where no session has started)."""
    db = workspace_path / AGENT_DB
    if not db.exists():
        return []
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT thread_id FROM checkpoints GROUP BY thread_id ORDER BY MIN(rowid)"
        ).fetchall()
    except sqlite3.OperationalError:
        # The saver makes its tables on its first write: none has been made yet.
        return []
    finally:
        conn.close()
    return [str(row[0]) for row in rows]
