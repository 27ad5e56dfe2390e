"""The audit agent: an LLM that proposes new paired identities and prompt interventions, runs
them through the probes and scores them with the probes' own metrics.

A front end like the CLI and the TUI: it reaches the core only through
:class:`diptych.Workspace`. The loop is a langgraph graph with fixed nodes (propose → validate →
deduplicate → run → score → remember), checkpointed in the workspace's ``agent.db`` so that a
session killed at any point resumes where it stopped. Start one with
:func:`diptych.agent.session.search_identities` or
:func:`diptych.agent.session.search_mitigations`.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def _prompts_dir() -> Path:
    """The shipped data files (``diptych/prompts``) the agent's instructions live in."""
    return Path(str(resources.files("diptych.prompts")))


def round_name(round_no: int) -> str:
    """A round as a user reads it, counted from 1 ("round 1" for the first); the records'
    ``round`` fields (JSON, checkpoints, ids) count from 0."""
    return f"round {round_no + 1}"
