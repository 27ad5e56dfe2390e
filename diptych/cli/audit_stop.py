"""``diptych audit run`` stopped by its user (Ctrl-C, SIGTERM): one line saying where it stopped,
what is kept and the command that goes on, as ``diptych run`` and ``diptych resume`` say of a
run ("interrupted: 656 of 6,560 trials stored; resume with: …")."""

from __future__ import annotations

import os
from pathlib import Path

from diptych.audit.again import going_on
from diptych.cli.signals import settle_stopped
from diptych.core.audit.record import this_process
from diptych.core.workspace import Workspace

# The command that goes on with an audit is the audit layer's (the Runs screen says it too).
__all__ = ["going_on", "interrupted_line", "shaping_options"]


def shaping_options(
    out: Path | None, max_cost: float | None, *, until_decided: bool = False, batches: int = 0
) -> list[str]:
    """The options of ``diptych audit run`` that change what it does, as :func:`going_on`
    repeats them: where its report goes (``--out``, by its absolute path as the file is),
    what it may spend, and, bought until decided, in how many batches."""
    words = ["--until-decided", "--batches", str(batches)] if until_decided else []
    if out is not None:
        words += ["--out", os.path.abspath(out)]
    if max_cost is not None:
        # As typed: "5", not "5.0".
        words += ["--max-cost", str(int(max_cost)) if max_cost.is_integer() else repr(max_cost)]
    return words


def interrupted_line(ws: Workspace, part: str | None, command: str) -> str:
    """Where the audit this process ran stopped (``part``: the part it was in, None before
    any), what that part holds, and ``command``, which goes on: "interrupted in part
    pst-text: 656 of 6,560 trials of pst-text-0663f62e stored; diptych … audit run … goes
    on"."""
    mine = [a for a in ws.audits.list() if a.process == this_process()]
    audit = ws.audits.as_now(max(mine, key=lambda a: a.updated_at)) if mine else None
    found = audit.part(part) if audit is not None and part is not None else None
    if found is None:
        return f"interrupted: {command} goes on"
    if found.run_id is None:
        # An agent search keeps its finished rounds in its session's checkpoint.
        kept = "its finished trials and rounds are kept"
    else:
        settle_stopped(ws, found.run_id)
        counts = ws.runs.counts(found.run_id)
        finished = sum(n for k, n in counts.items() if k in ("done", "refused", "failed"))
        kept = f"{finished:,} of {sum(counts.values()):,} trials of {found.run_id} stored"
    return f"interrupted in part {part}: {kept}; {command} goes on"
