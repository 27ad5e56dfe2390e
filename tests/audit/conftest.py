"""An audit of two small pst parts on a scripted, priced image model, written to a file; its
calls are logged to a file, so a test counts every image asked for."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

import diptych.testing
from diptych.core import plugins

PST = {
    "aspects": ["occupation"],
    "masculine": ["carpenter"],
    "feminine": ["nurse"],
    "samples_single": 1,
    "samples_paired": 1,
}
#: USD per scripted image.
PRICE = 0.04


@pytest.fixture(autouse=True)
def testing_plugins() -> Iterator[None]:
    plugins.load_plugins()
    name = plugins.register_plugin(diptych.testing, "testing")
    yield
    plugins.unregister_plugin(name)


AuditWriter = Callable[..., Path]


@pytest.fixture
def calls(tmp_path: Path) -> Path:
    """The scripted image model's log of calls (one JSON line per image asked for)."""
    return tmp_path / "calls.jsonl"


@pytest.fixture
def write_audit() -> AuditWriter:
    """``write_audit(path, calls, **extra)``: the audit file (``extra`` adds top-level fields)."""
    return _write_audit


@pytest.fixture
def image_requests() -> Callable[[Path], list[str]]:
    """``image_requests(calls)``: the prompt of every image asked for so far."""
    return _image_requests


def _write_audit(path: Path, calls: Path, **extra: object) -> Path:
    """Two pst parts (the second with Table 5's intervention as a mitigation)."""
    data: dict[str, object] = {
        "audit": 1,
        "name": "small",
        "models": {
            "images": {
                "plugin": "scripted-images",
                "params": {
                    "price_per_call": PRICE,
                    "calls_log": str(calls),
                    "max_concurrency": 1,
                    "latency": 0.02,
                },
            }
        },
        "probes": [{"probe": "pst", "models": ["images"], "params": PST}],
        "mitigations": [
            {"name": "pst-table5", "baseline": "pst", "params": {"intervention": "pst-table5"}}
        ],
        "report": {"formats": ["json", "md"]},
        **extra,
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _image_requests(calls: Path) -> list[str]:
    if not calls.exists():
        return []
    return [json.loads(line)["text"] for line in calls.read_text().splitlines()]
