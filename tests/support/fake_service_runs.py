"""The runs a report is built on, made fast: pst-text on the scripted likelihood model, and pst
on the fake OpenAI image service labelled by ``faces``, in a workspace of their own."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import diptych.testing
from diptych.core import plugins
from diptych.core.store import RunRecord
from diptych.core.workspace import Workspace
from diptych.testing import FakeOpenAIServer

#: A pst run of two masculine and two feminine occupations, one image of each setting.
PST = {
    "aspects": ["occupation"],
    "masculine": ["carpenter", "sheriff"],
    "feminine": ["nurse", "editor"],
    "samples_single": 1,
    "samples_paired": 1,
}
#: The labels a reviewer gives, by identity: two stereotyped, two against the stereotype.
RULE = {"carpenter": "masculine", "sheriff": "feminine", "nurse": "feminine", "editor": "masculine"}


@dataclass
class FakeServiceRuns:
    """The open workspace, the fake service's image model and the two runs."""

    ws: Workspace
    images: tuple[str, dict[str, Any]]
    text: RunRecord
    pst: RunRecord


@contextmanager
def fake_service_runs(path: Path, api_key: str) -> Iterator[FakeServiceRuns]:
    """The workspace at ``path`` with both runs, the fake service still serving; the scripted
    models registered and ``OPENAI_API_KEY`` set to ``api_key`` until the block ends, then
    taken back (a report reads built-in probes only: nothing stays registered for other
    tests)."""
    plugins.load_plugins()
    name = plugins.register_plugin(diptych.testing, "testing")
    mp = pytest.MonkeyPatch()
    mp.setenv("OPENAI_API_KEY", api_key)
    try:
        with FakeOpenAIServer(image_size=(16, 16)) as fake, Workspace.open(path) as ws:
            images = ("openai-images", {"base_url": fake.base_url})
            text = ws.runs.run_sync(
                "pst-text", ["scripted-likelihood"], params={"masculine": ["carpenter", "sheriff"]}
            )
            pst = ws.runs.run_sync("pst", [images], params=PST)
            ws.annotators.annotate_sync(pst.id, "faces")
            yield FakeServiceRuns(ws, images, text, pst)
    finally:
        mp.undo()
        plugins.unregister_plugin(name)
