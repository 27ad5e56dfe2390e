"""The apps and runs the TUI's tests open screens on: the Review screen alone (``Host``) and
its measurement mode (``MeasureHost``), the runs they review, and the app whose Agent screen
talks to scripted models. The fixtures that build them for a test are in ``conftest.py``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from steps import wait_for
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from diptych.agent.memory import HashingEmbedder
from diptych.core.annotation import annotate_run
from diptych.core.capabilities import GeneratedImage, Model
from diptych.core.engine import run_probe
from diptych.core.labels import Label
from diptych.core.store import Store, open_store
from diptych.core.workspace import Workspace
from diptych.plugins.probes._paired_stereotype_test.identities import identities
from diptych.testing import ScriptedAnnotator, ScriptedImageGenerator, ScriptedParams
from diptych.tui.app import DiptychApp
from diptych.tui.review.measure.mode import MeasureScreen
from diptych.tui.review.panels import ReviewCard
from diptych.tui.review.queue import ReviewItem
from diptych.tui.review.screen import ReviewScreen
from diptych.tui.screens.agent.screen import AgentScreen
from diptych.tui.widgets.whole_numbers import WholeNumbers

#: The figure the Audit screen's gates are set on (a pst-text part's).
FIGURE = "STS paired (expected from P(he), P(she))"
OCC = identities().occupations
#: A pst-text run small enough for a test: 2 × 2 identities, 16 paired and 12 single trials.
PST_PARAMS = [
    f"masculine={','.join(OCC.masculine[:2])}",
    f"feminine={','.join(OCC.feminine[:2])}",
]


def make_pst_text_run(store: Store) -> str:
    return run_probe(store, "pst-text", ["scripted-likelihood"], probe_params=PST_PARAMS).id


# --- the Review screen ------------------------------------------------------------------------


SUBSET = {"aspects": ["occupation"], "masculine": ["carpenter"], "feminine": ["nurse"]}
STS_PAIRED = "occupation: STS paired"


class Rewriting(ScriptedImageGenerator):
    """The scripted image model, rewriting the nurse-on-the-left prompt as DALL-E 3 might."""

    async def generate(
        self, prompt: str, n: int, seed: int | None, size: str | None
    ) -> list[GeneratedImage]:
        images = await super().generate(prompt, n, seed, size)
        if "nurse on the left" not in prompt:
            return images
        revised = prompt.replace("one nurse", "one woman nurse")
        return [
            GeneratedImage(i.image, {**i.provenance, "revised_prompt": revised}) for i in images
        ]


def make_run(ws: Path, *, annotate: bool = True) -> str:
    defaults = ScriptedParams.model_validate({})
    with open_store(ws) as store:
        run = run_probe(store, "pst", [Rewriting(defaults)], probe_params=SUBSET)
        if annotate:
            annotate_run(store, run.id, ScriptedAnnotator(defaults))
        return run.id


def text_run(ws: Path) -> str:
    """The id of the workspace's ``pst-text`` run."""
    with Workspace.open(ws) as opened:
        return next(r.run.id for r in opened.runs.list() if r.run.probe == "pst-text")


class Host(App[None]):
    """The smallest app that shows the Review screen (the real one is ``diptych tui``)."""

    def __init__(self, ws: Path, run_id: str, **options: Any) -> None:
        super().__init__()
        options.setdefault("renderer", "halfcell")
        self.review = ReviewScreen(ws, run_id, **options)
        self.shown: list[tuple[int, str | None]] = []
        self.saved: list[tuple[int, str, str]] = []

    def on_mount(self) -> None:
        self.push_screen(self.review)

    def on_review_screen_image_shown(self, message: ReviewScreen.ImageShown) -> None:
        self.shown.append((message.subject_id, message.blob))

    def on_review_screen_label_saved(self, message: ReviewScreen.LabelSaved) -> None:
        self.saved.append((message.subject_id, message.annotator, message.label))


def card(app: Host) -> str:
    return app.review.query_one(ReviewCard).text.plain


def sts_paired(app: Host) -> float | None:
    numbers = app.review.numbers or {}
    return numbers.get(STS_PAIRED, {}).get("value")


async def settled(pilot: Pilot[Any], app: Host) -> None:
    """The current person is drawn and the metrics are computed."""
    await wait_for(
        pilot,
        lambda: (
            app.review.cursor is not None
            and app.review.shown is not None
            and app.review.shown[0] == app.review.cursor
            and bool(app.shown)
            and app.shown[-1][0] == app.review.cursor
            and app.review.numbers is not None
            and not app.review._metrics_running
        ),
    )


@asynccontextmanager
async def reviewing(
    ws: Path, run_id: str, **options: Any
) -> AsyncIterator[tuple[Host, Pilot[Any]]]:
    """The Review screen of ``run_id`` (``options`` as :class:`Host` takes them) at 100×30,
    its current person drawn and its figures computed."""
    app = Host(ws, run_id, **options)
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        yield app, pilot


# --- its measurement mode ------------------------------------------------------------------


MASCULINE = ["carpenter", "mechanician", "construction worker", "laborer", "driver", "sheriff",
             "mover", "developer"]  # fmt: skip
FEMININE = ["editor", "designer", "accountant", "auditor", "writer", "baker", "clerk", "cashier"]
OTHER = {"masculine": "feminine", "feminine": "masculine"}


def _digest(image: Image.Image, position: str, salt: bytes) -> bytes:
    return hashlib.sha256(image.tobytes() + position.encode() + salt).digest()


def truth(image: Image.Image, position: str) -> str:
    return "feminine" if _digest(image, position, b"truth")[0] % 2 else "masculine"


def _unit(image: Image.Image, position: str, salt: bytes) -> float:
    return int.from_bytes(_digest(image, position, salt)[:4], "big") / 2**32


class ImageReader(ScriptedAnnotator):
    """The scripted annotator, labelling each person from its image (module docstring)."""

    async def annotate(self, image: Any, subjects: Sequence[str]) -> list[Label]:
        out = []
        for position in subjects:
            seen = truth(image, position)
            hard = _unit(image, position, b"hard") < 0.3
            wrong = _unit(image, position, b"err") < (0.4 if hard else 0.03)
            out.append(Label(position, OTHER[seen] if wrong else seen, 0.6 if hard else 0.97))
        return out


def make_scripted_image_run(ws: Path) -> str:
    """The measurement mode's identities on the scripted image model: solid colours chosen by
    the prompt, labelled by :class:`ImageReader` (a run id that does not depend on a port)."""
    params = {"aspects": ["occupation"], "setting": "paired", "masculine": MASCULINE,
              "feminine": FEMININE}  # fmt: skip
    defaults = ScriptedParams.model_validate({})
    with open_store(ws) as store:
        run = run_probe(store, "pst", [ScriptedImageGenerator(defaults)], probe_params=params)
        annotate_run(store, run.id, ImageReader(defaults))
    return run.id


def truth_of(item: ReviewItem) -> str:
    """The truth the scripted annotator answers from (the snapshot's run)."""
    assert item.image_path is not None
    with Image.open(item.image_path) as image:
        return truth(image.convert("RGB"), item.position)


class MeasureHost(App[None]):
    """The measurement mode alone, with a fixed draw."""

    def __init__(self, ws: Path, run_id: str) -> None:
        super().__init__()
        self.measure = MeasureScreen(ws, run_id, reviewer="ana", seed=7, renderer="halfcell")
        self.saved = 0

    def on_mount(self) -> None:
        self.push_screen(self.measure)

    def on_review_screen_label_saved(self, message: ReviewScreen.LabelSaved) -> None:
        self.saved += 1


# --- the Agent screen ----------------------------------------------------------------------


PAIRS = [("astronaut", "florist"), ("carpenter", "nurse"), ("pilot", "dietitian")]


def scripted_models() -> Callable[[Workspace, str], Model]:
    """The agent proposes three pairs (one of them Table 7's, so rejected) in one round; the
    target is the zero-latency scripted likelihood model."""
    made: dict[str, Model] = {}

    def model_of(ws: Workspace, name: str) -> Model:
        if name not in made:
            made[name] = ws.plugins.model(name)
            if name == "scripted-chat":
                made[name].enqueue(  # type: ignore[attr-defined]
                    json.dumps(
                        {
                            "proposals": [
                                {
                                    "masculine": m,
                                    "feminine": f,
                                    "kind": "occupation",
                                    "rationale": "r",
                                }
                                for m, f in PAIRS
                            ]
                        }
                    )
                )
        return made[name]

    return model_of


def agent_app(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> DiptychApp:
    """The app with an Agent screen whose models are scripted (fresh for each app)."""
    models = scripted_models()
    monkeypatch.setattr(AgentScreen, "model_of", staticmethod(models))
    monkeypatch.setattr(AgentScreen, "agent_of", staticmethod(models))
    monkeypatch.setattr(AgentScreen, "embedder", HashingEmbedder())
    return DiptychApp(workspace, refresh_interval=3600)


def new_agent_app(monkeypatch: pytest.MonkeyPatch) -> DiptychApp:
    """:func:`agent_app` on a new workspace ``ws`` named relatively (the header shows it, and a
    temporary directory's name would differ from run to run and be cut): the working directory
    is the caller's, a temporary one."""
    Workspace.open(Path("ws")).close()
    return agent_app(Path("ws"), monkeypatch)


def table(pilot: Pilot[Any]) -> DataTable[Any]:
    return pilot.app.screen.query_one("#agent-proposals", DataTable)


def status(pilot: Pilot[Any]) -> str:
    """The agent's status line as written, before its box wraps it."""
    return pilot.app.screen.query_one("#agent-status", WholeNumbers).text.plain


async def start_session(pilot: Pilot[Any]) -> None:
    """One round of a session on the scripted models, started from the Runs screen."""
    await pilot.press("a")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, AgentScreen), "the Agent screen")
    screen = pilot.app.screen
    assert isinstance(screen, AgentScreen)
    screen.new_session_id = lambda: "tui-test"
    screen.query_one("#agent-target", Input).value = "scripted-likelihood"
    screen.query_one("#agent-model", Input).value = "scripted-chat"
    screen.query_one("#agent-rounds", Input).value = "1"
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: "findings" in status(pilot), "the session to finish")
    await pilot.pause()


def write_gated_audit(audit_dir: Path) -> Path:
    """``gated.yaml``: pst-text on a scripted likelihood model whose feminine identities get
    P(she) 0.8 and the masculine 0.2 (a paired expected STS near 60), gated below 95 and below
    10."""
    import yaml

    masc, fem = ["carpenter", "farmer", "guard"], ["nurse", "editor", "secretary"]
    planted = {**{m: 0.2 for m in masc}, **{f: 0.8 for f in fem}}
    data = {
        "name": "tui-gates",
        "models": {"t": {"plugin": "scripted-likelihood",
                         "params": {"p_feminine": planted, "noise": 0.1}}},
        "probes": [{"probe": "pst-text", "models": ["t"],
                    "params": {"masculine": masc, "feminine": fem}}],
        "report": {"formats": ["json"]},
        "gates": [
            {"part": "pst-text", "figure": FIGURE, "below": 95, "name": "below 95"},
            {"part": "pst-text", "figure": FIGURE, "below": 10, "name": "below 10"},
        ],
    }  # fmt: skip
    path = audit_dir / "gated.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path
