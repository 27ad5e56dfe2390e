"""What docs/gates.md says of a sequential audit's first batch is what the code buys: a simple
random sample of the design's distinct requests, so that pst-text's paired setting (many
requests per identity) has every identity in it and its single setting (one request per
identity) about a tenth of them."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from pathlib import Path

import pytest

from diptych.core.engine.options import RunOptions
from diptych.core.workspace import Workspace
from tests.docs.fenced import ROOT


def _bullet(page: str, start: str) -> str:
    text = page[page.index(start) :]
    return " ".join(text[: text.index("\n- ")].split())


@pytest.mark.usefixtures("scripted_plugin")
def test_the_first_batch_is_a_simple_random_sample_as_the_manual_says(tmp_path: Path) -> None:
    said = _bullet((ROOT / "docs" / "gates.md").read_text(encoding="utf-8"), "- **In batches")
    assert "all identities appear in the first batch" not in said
    per_paired = re.search(r"paired setting has (\d+) requests per identity", said)
    assert per_paired is not None, said
    assert "the single setting has one request per identity" in said
    options = RunOptions(order_seed=0, order_share=0.1)  # the first of the default 10 batches
    with Workspace.open(tmp_path / "ws") as ws:
        run = ws.runs.run_sync("pst-text", [("scripted-likelihood", {})], options=options)
        view = ws.runs.view(run.id)
        requests: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        for trial in view.trials:
            for identity in {trial.meta.get(k) for k in ("id", "id1", "id2")} - {None}:
                requests[trial.meta["setting"]][identity].add(trial.key)
        bought = set(view.results)
    every = {
        key for by_identity in requests.values() for keys in by_identity.values() for key in keys
    }
    assert len(bought) == math.ceil(len(every) / 10)
    paired, single = requests["paired"], requests["single"]
    assert {len(keys) for keys in paired.values()} == {int(per_paired[1])}
    assert all(keys & bought for keys in paired.values()), "every identity in the first batch"
    assert {len(keys) for keys in single.values()} == {1}
    reached = sum(bool(keys & bought) for keys in single.values())
    assert 0 < reached < len(single) / 4, f"{reached} of {len(single)} single identities"
