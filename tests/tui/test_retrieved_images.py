"""The Run-detail panel of the images a retrieval query brought back."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image
from textual.app import App, ComposeResult
from textual.widgets import OptionList, Static

from diptych.core.probe import ProbeResult
from diptych.core.store import open_store
from diptych.tui.widgets.retrieved_images import RetrievedImages, retrieved_queries


def png(colour: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(out, format="PNG")
    return out.getvalue()


def result_with(blobs: list[str]) -> ProbeResult:
    top = [
        {"blob": b, "group": g, "score": s}
        for b, g, s in zip(
            blobs, ["Black_male", "White_female", "Asian_male"], [0.9, 0.5, 0.1], strict=False
        )
    ]
    return ProbeResult(
        title="retrieval", data={"retrieved": {"clip": {"A photo of a doctor": top}}}
    )


def test_queries_come_from_the_analysis_data() -> None:
    assert retrieved_queries(ProbeResult(title="x")) == []
    (query,) = retrieved_queries(result_with(["a" * 64]))
    assert query[0] == "clip · A photo of a doctor" and query[1][0]["group"] == "Black_male"


async def test_choosing_a_query_draws_its_images_best_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPTYCH_TUI_IMAGES", "halfcell")
    with open_store(tmp_path / "ws") as store:
        blobs = [store.put_blob(png((200, 0, 0))), store.put_blob(png((0, 200, 0)))]
    missing = "f" * 64
    panel = RetrievedImages(result_with([*blobs, missing]), tmp_path / "ws")

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield panel

    async with Host().run_test(size=(100, 60)) as pilot:
        panel.query_one(OptionList).focus()
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        box = panel.query_one("#retrieved-images")
        texts = [str(w.render()) for w in box.query(Static) if not w.has_class("figure-image")]
        assert texts[0] == "clip · A photo of a doctor"
        assert texts[1].startswith("1. Black_male · 0.90 · " + blobs[0][:12])
        assert texts[2].startswith("2. White_female · 0.50")
        assert texts[3].startswith("3. Asian_male") and texts[4] == "image not in this workspace"
        assert len(box.query(".figure-image")) == 2
