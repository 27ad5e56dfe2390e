"""The images a retrieval query brought back, for the Run-detail screen.

A retrieval analysis (``counterfactual-retrieval``) puts, per model and query, the top K images'
blob shas in ``ProbeResult.data["retrieved"]``. This panel lists the queries; choosing one draws
its images with textual-image (as the figures are drawn), each under its rank, group and score.
Images are read in a worker thread through the Workspace, never on the UI thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from PIL import Image as PILImage
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from diptych.core.digits import figure_text
from diptych.core.probe import ProbeResult
from diptych.tui.widgets.images import image_widget_class

#: Longest side of a retrieved image as drawn (they are thumbnails beside the query).
THUMBNAIL = 256
#: The box (columns, rows) a retrieved image is drawn in.
THUMBNAIL_CELLS = (24, 10)


def retrieved_queries(result: ProbeResult) -> list[tuple[str, list[dict[str, Any]]]]:
    """(model · query, its top K) for every query of the analysis, in its order."""
    found = result.data.get("retrieved") if isinstance(result.data, dict) else None
    if not isinstance(found, dict):
        return []
    return [
        (f"{model} · {query}", top)
        for model, by_query in found.items()
        for query, top in by_query.items()
    ]


class RetrievedImages(VerticalScroll):
    """The queries of a retrieval analysis; enter on one draws the images it retrieved."""

    @dataclass
    class Loaded(Message):
        index: int
        images: list[tuple[dict[str, Any], PILImage.Image | None]]

    def __init__(self, result: ProbeResult, store_path: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.queries = retrieved_queries(result)
        self.store_path = store_path

    def compose(self) -> ComposeResult:
        yield Static(Text("enter draws the images a query retrieved, best first", style="dim"))
        yield OptionList(*(Option(q, id=f"query-{i}") for i, (q, _) in enumerate(self.queries)))
        yield VerticalScroll(id="retrieved-images")

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._load(event.option_index)

    @work(thread=True, exclusive=True, exit_on_error=False, group="retrieved-images")
    def _load(self, index: int) -> None:
        from diptych.core.workspace import Workspace

        images: list[tuple[dict[str, Any], PILImage.Image | None]] = []
        with Workspace.open(self.store_path, create=False) as ws:
            for item in self.queries[index][1]:
                path = ws.blob_path(item["blob"])
                if not path.is_file():
                    images.append((item, None))
                    continue
                with PILImage.open(path) as opened:
                    picture = opened.convert("RGB")
                picture.thumbnail((THUMBNAIL, THUMBNAIL))
                images.append((item, picture))
        self.post_message(self.Loaded(index, images))

    @on(Loaded)
    async def _loaded(self, message: Loaded) -> None:
        box = self.query_one("#retrieved-images", VerticalScroll)
        await box.remove_children()
        image_class = image_widget_class()
        children: list[Any] = [Static(Text(self.queries[message.index][0], style="bold"))]
        for rank, (item, picture) in enumerate(message.images, start=1):
            score = item.get("score")
            label = f"{rank}. {item['group']}" + (
                f" · {figure_text(score)}" if score is not None else ""
            )
            children.append(Static(Text(f"{label} · {item['blob'][:12]}")))
            if picture is None:
                children.append(Static(Text("image not in this workspace", style="dim")))
            else:
                # textual-image's widgets take the picture as their first argument; a fixed
                # box, since an image widget sized by its content can come out zero high.
                image = cast(Any, image_class)(picture, classes="figure-image")
                image.styles.width = THUMBNAIL_CELLS[0]
                image.styles.height = THUMBNAIL_CELLS[1]
                children.append(image)
        await box.mount_all(children)
