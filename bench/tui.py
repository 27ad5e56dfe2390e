"""tui.*: the real Review screen of ``diptych tui``, headless (Textual's ``run_test``).

At 100×30 with images drawn as half blocks: what most terminals get, and independent of the
one running the benchmark. Needs the ``tui`` extra.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.harness import Result, bench, result, rounded

N_NEXT = 30
#: The reviewer's look at each image before "next": the prefetcher's time to work, as in use.
LOOK_S = 0.3


def _photo_like(seed: int, size: int = 1024) -> Any:
    """A 1024×1024 image that compresses like a generated photo (smooth shapes, fine grain),
    so decoding it costs what decoding a real one does."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:size, 0:size] / size
    channels = [
        128 + 90 * np.sin(2 * np.pi * (rng.uniform(0.5, 2) * x + rng.uniform(0.5, 2) * y + c))
        for c in rng.uniform(0, 1, 3)
    ]
    pixels = np.stack(channels, axis=-1) + rng.normal(0, 6, (size, size, 3))
    return Image.fromarray(np.clip(pixels, 0, 255).astype("uint8"), "RGB")


@bench(tui__review_next_ms="<= 100")
def tui_review_next() -> Iterator[Result]:
    """The Review screen over 33 flagged 1024×1024 single-person images, prefetching: 30 presses
    of "next", each timed from the key to the screen's ImageShown (the image drawn)."""
    import asyncio
    import statistics

    from textual.app import App

    from diptych.core.annotation import annotate_run
    from diptych.core.capabilities import GeneratedImage
    from diptych.core.engine import run_probe
    from diptych.core.store import Store
    from diptych.testing import ScriptedAnnotator, ScriptedImageGenerator, ScriptedParams
    from diptych.tui.review.screen import ReviewScreen

    class Photos(ScriptedImageGenerator):
        async def generate(
            self, prompt: str, n: int, seed: int | None, size: str | None
        ) -> list[GeneratedImage]:
            return [GeneratedImage(_photo_like(seed or 0), {"seed": seed}) for _ in range(n)]

    class Host(App[None]):
        def __init__(self, screen: ReviewScreen) -> None:
            super().__init__()
            self.review = screen
            self.drawn = asyncio.Event()
            self.drawn_at = 0.0

        def on_mount(self) -> None:
            self.push_screen(self.review)

        def on_review_screen_image_shown(self, message: ReviewScreen.ImageShown) -> None:
            self.drawn_at = time.perf_counter()
            self.drawn.set()

    async def presses(ws: Path, run_id: str, prefetch: int) -> list[float]:
        # Half blocks: what most terminals get, and independent of this one.
        screen = ReviewScreen(ws, run_id, reviewer="bench", renderer="halfcell", prefetch=prefetch)
        app = Host(screen)
        times: list[float] = []
        async with app.run_test(size=(100, 30)) as pilot:
            await asyncio.wait_for(app.drawn.wait(), 30)
            for _ in range(N_NEXT):
                await asyncio.sleep(LOOK_S)
                app.drawn.clear()
                t0 = time.perf_counter()
                # press() returns only once the whole process is idle, prefetching threads
                # included; the figure is the time to the drawing, taken when it is reported.
                await pilot.press("n")
                await asyncio.wait_for(app.drawn.wait(), 30)
                times.append((app.drawn_at - t0) * 1000)
        return times

    params = {
        "aspects": ["occupation"],
        "setting": "single",
        "masculine": ["carpenter", "mechanician", "laborer", "driver", "sheriff", "mover"],
        "feminine": ["editor", "designer", "accountant", "auditor", "writer"],
    }
    with tempfile.TemporaryDirectory(prefix="diptych-bench-") as tmp:
        with Store(tmp) as store:
            # (model_validate: mypy reads the Field defaults of ScriptedParams as required.)
            defaults = ScriptedParams.model_validate({})
            run = run_probe(store, "pst", [Photos(defaults)], probe_params=params)
            annotate_run(store, run.id, ScriptedAnnotator(defaults))
            flagged = len(store.flags(run.id))
        assert flagged > N_NEXT, flagged
        warm = asyncio.run(presses(Path(tmp), run.id, prefetch=4))
        cold = asyncio.run(presses(Path(tmp), run.id, prefetch=0))
    yield result(
        "tui.review_next_ms",
        statistics.median(warm),
        "ms",
        presses=len(warm),
        p90_ms=rounded(statistics.quantiles(warm, n=10)[-1]),
        no_prefetch_median_ms=rounded(statistics.median(cold)),
    )
