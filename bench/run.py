"""diptych benchmarks: one JSON object per line on stdout.

    .venv/bin/python bench/run.py                 # every benchmark
    .venv/bin/python bench/run.py engine.         # only figures whose name starts with a prefix
    .venv/bin/python bench/run.py --list          # the figures and their targets
    .venv/bin/python bench/run.py --check         # exit 1 if a figure misses its target

Each line is ``{"name", "value", "unit"}`` plus, for a figure with a target, ``"want"`` (e.g.
``">= 2000"``) and ``"ok"``. A benchmark is a generator registered with :func:`bench`; it names
the figures it can yield, so a prefix selects which benchmarks run (and which of their figures
are printed). Add ``pst.*``, ``faces.*`` ... the same way. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import logging
import operator
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# --- results and the registry ---------------------------------------------------------------

_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
}


@dataclass
class Result:
    name: str
    value: float
    unit: str
    want: str | None = None  # e.g. ">= 2000"
    extra: dict[str, Any] | None = None

    @property
    def ok(self) -> bool | None:
        if self.want is None:
            return None
        op, _, target = self.want.partition(" ")
        return _OPS[op](self.value, float(target))

    def line(self) -> str:
        out: dict[str, Any] = {"name": self.name, "value": _round(self.value), "unit": self.unit}
        if self.want is not None:
            out["want"] = self.want
            out["ok"] = self.ok
        if self.extra:
            out.update(self.extra)
        return json.dumps(out)


def _round(value: float) -> float | int:
    if isinstance(value, int):
        return value
    return float(f"{value:.4g}") if abs(value) < 1e4 else round(value, 1)


@dataclass
class Bench:
    fn: Callable[[], Iterator[Result]]
    figures: dict[str, str | None]  # figure name -> target


BENCHES: list[Bench] = []


def bench(**figures: str | None) -> Callable[[Callable[[], Iterator[Result]]], Any]:
    """Register a benchmark; keyword names (dots spelled ``__``) map figures to targets."""

    def wrap(fn: Callable[[], Iterator[Result]]) -> Callable[[], Iterator[Result]]:
        BENCHES.append(Bench(fn, {k.replace("__", "."): v for k, v in figures.items()}))
        return fn

    return wrap


def result(name: str, value: float, unit: str, **extra: Any) -> Result:
    """A figure; its target comes from the registering benchmark's declaration."""
    for b in BENCHES:
        if name in b.figures:
            return Result(name, value, unit, b.figures[name], extra or None)
    raise KeyError(f"figure {name!r} is not declared by any @bench")


# --- shared setup ---------------------------------------------------------------------------


def _setup_plugins() -> None:
    # Third-party or optional plugins that fail to import must not spam the benchmark output.
    logging.getLogger("diptych").setLevel(logging.ERROR)
    import diptych.testing
    from diptych.core.plugins import load_plugins, register_plugin

    load_plugins()
    if "scripted" not in load_plugins().probes:
        register_plugin(diptych.testing, "testing")


# --- engine ---------------------------------------------------------------------------------

N_PERSIST = 10_000
N_OVERLAP = 800
LATENCY = 0.05
CONCURRENCY = 16


@bench(
    engine__plan_trials_per_s=None,
    engine__persist_trials_per_s=">= 2000",
    engine__resume_s="<= 2",
    engine__resume_model_calls="== 0",
)
def engine_throughput() -> Iterator[Result]:
    """Plan, run and persist 10,000 zero-latency trials; then re-run the finished run."""
    from diptych.core.engine import ModelSlot, prepare_run, run_probe
    from diptych.core.plugins import get_model, get_probe
    from diptych.core.store import Store

    probe_params = {"n": N_PERSIST}
    model_params = {"latency": 0.0}

    # Planning alone (probe.plan, trial keys, recording the plan, looking up stored results).
    with tempfile.TemporaryDirectory(prefix="diptych-bench-") as tmp, Store(tmp) as store:
        probe = get_probe("scripted", probe_params)
        slot = ModelSlot.of(get_model("scripted-likelihood", model_params))
        t0 = time.perf_counter()
        plan = prepare_run(store, probe, [slot])
        wall = time.perf_counter() - t0
        assert len(plan.pending) == N_PERSIST, len(plan.pending)
        yield result("engine.plan_trials_per_s", N_PERSIST / wall, "trials/s", wall_s=_round(wall))

    with tempfile.TemporaryDirectory(prefix="diptych-bench-") as tmp, Store(tmp) as store:
        probe = get_probe("scripted", probe_params)
        model = get_model("scripted-likelihood", model_params)
        t0 = time.perf_counter()
        run = run_probe(store, probe, [model], concurrency=CONCURRENCY)
        wall = time.perf_counter() - t0
        assert run.status == "complete" and model.calls == N_PERSIST, (run.status, model.calls)  # type: ignore[attr-defined]
        yield result(
            "engine.persist_trials_per_s", N_PERSIST / wall, "trials/s", wall_s=_round(wall)
        )

        # The same run again, with a new model instance: everything is stored, nothing is asked.
        probe = get_probe("scripted", probe_params)
        model = get_model("scripted-likelihood", model_params)
        t0 = time.perf_counter()
        again = run_probe(store, probe, [model], concurrency=CONCURRENCY)
        wall = time.perf_counter() - t0
        assert again.id == run.id and again.status == "complete", (again.id, again.status)
        yield result("engine.resume_s", wall, "s")
        yield result("engine.resume_model_calls", model.calls, "calls")  # type: ignore[attr-defined]


@bench(engine__overlap_ratio="<= 1.2")
def engine_overlap() -> Iterator[Result]:
    """800 trials of 50 ms each at concurrency 16: wall time over the ideal 800 * 0.05 / 16."""
    from diptych.core.engine import run_probe
    from diptych.core.plugins import get_model, get_probe
    from diptych.core.store import Store

    ideal = N_OVERLAP * LATENCY / CONCURRENCY
    with tempfile.TemporaryDirectory(prefix="diptych-bench-") as tmp, Store(tmp) as store:
        probe = get_probe("scripted", {"n": N_OVERLAP})
        model = get_model(
            "scripted-likelihood", {"latency": LATENCY, "max_concurrency": CONCURRENCY}
        )
        t0 = time.perf_counter()
        run = run_probe(store, probe, [model], concurrency=CONCURRENCY)
        wall = time.perf_counter() - t0
        assert run.status == "complete" and model.calls == N_OVERLAP, (run.status, model.calls)  # type: ignore[attr-defined]
        yield result(
            "engine.overlap_ratio", wall / ideal, "ratio", wall_s=_round(wall), ideal_s=ideal
        )


# --- pst on an image service ---------------------------------------------------------------

PST_PAIRED = ["-p", "aspects=occupation", "-p", "setting=paired"]  # the 800 paired images
SERVER_LIMIT = 600  # requests/min: the paper's 60/min DALL-E 3 tier scaled up tenfold
SERVER_LATENCY = 0.1


def _pst_cli(store: str, base_url: str, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "diptych.cli.main",
        "--store",
        store,
        "run",
        "pst",
        "-m",
        "openai-images",
        "-M",
        f"base_url={base_url}",
        *PST_PAIRED,
        "--quiet",
        *extra,
    ]


@bench(pst__rate_limit_ratio="<= 1.15")
def pst_rate_limit() -> Iterator[Result]:
    """800 paired generations against a rate-limited fake service: wall ÷ the limit's bound."""
    from diptych.core.engine import run_probe
    from diptych.core.plugins import get_model, get_probe
    from diptych.core.store import Store
    from diptych.fake_openai import FakeOpenAIServer

    bound = 800 / SERVER_LIMIT * 60
    with (
        FakeOpenAIServer(
            latency=SERVER_LATENCY, rate_limit_per_min=SERVER_LIMIT, image_size=(8, 8)
        ) as fake,
        tempfile.TemporaryDirectory(prefix="diptych-bench-") as tmp,
        Store(tmp) as store,
    ):
        # The client paces itself just under the service's limit, so it is never refused.
        model = get_model(
            "openai-images",
            {
                "base_url": fake.base_url,
                "rate_limit_per_min": SERVER_LIMIT * 0.99,
                "max_concurrency": 8,
            },
        )
        probe = get_probe("pst", {"aspects": ["occupation"], "setting": "paired"})
        t0 = time.perf_counter()
        run = run_probe(store, probe, [model])
        wall = time.perf_counter() - t0
        assert run.status == "complete", run.status
        yield result(
            "pst.rate_limit_ratio",
            wall / bound,
            "ratio",
            wall_s=_round(wall),
            bound_s=bound,
            http_429=fake.count(status=429),
        )


@bench(pst__duplicate_requests_after_kill="== 0")
def pst_kill_resume() -> Iterator[Result]:
    """SIGKILL a pst run half-way, resume it; count requests for images already stored."""
    import os
    import signal
    import subprocess

    from diptych.core.store import Store
    from diptych.fake_openai import FakeOpenAIServer

    env = {**os.environ, "OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY", "sk-bench")}
    with (
        FakeOpenAIServer(latency=0.02, image_size=(8, 8)) as fake,
        tempfile.TemporaryDirectory(prefix="diptych-bench-") as tmp,
    ):
        proc = subprocess.Popen(
            _pst_cli(tmp, fake.base_url),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 300
        while fake.count(path="/v1/images/generations") < 400 and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        killed_at = fake.total_requests
        with Store(tmp) as store:
            (run,) = store.list_runs()
            results = store.run_results(run.id)
            finished = {
                t.payload["prompt"]
                for t in store.trials(run.id)
                if t.key in results and results[t.key].status in ("done", "refused")
            }
        subprocess.run(
            [sys.executable, "-m", "diptych.cli.main", "--store", tmp, "resume", run.id, "--quiet"],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        after = fake.requests[killed_at:]
        duplicates = sum(1 for r in after if r.prompt in finished)
        with Store(tmp) as store:
            assert store.get_run(run.id).status == "complete"
        yield result(
            "pst.duplicate_requests_after_kill",
            duplicates,
            "requests",
            stored_at_kill=len(finished),
            requests_after_resume=len(after),
        )


# --- faces: the perceived-gender annotator ---------------------------------------------------

N_FACES_1024 = 40  # images of each kind: one person, two people


def _faces_annotator(**params: Any) -> Any:
    """The ``faces`` annotator, or None (with a note) when its extra is not installed."""
    import diptych.plugins.annotators.faces as faces
    from diptych.core.errors import MissingDependencyError
    from diptych.core.plugins import get_model, load_plugins, register_plugin

    # Registered by hand until the package metadata names it as an entry point.
    if "faces" not in load_plugins().annotators:
        register_plugin(faces, "faces")
    try:
        return get_model("faces", params)
    except MissingDependencyError as error:
        print(f"faces.* skipped: {error}", file=sys.stderr)
        return None


def _annotate_all(model: Any, work: list[tuple[Any, list[str]]]) -> tuple[float, list[Any]]:
    """Label every (image, subjects) as the engine does: worker threads, at most the model's
    max_concurrency at once. Returns wall seconds (loading excluded) and the labels."""
    import asyncio

    from diptych.core.engine import ModelSlot

    slot = ModelSlot.of(model)

    async def go() -> tuple[float, list[Any]]:
        await slot.ensure_loaded()
        t0 = time.perf_counter()
        labels = await asyncio.gather(*(slot.call("annotate", i, s) for i, s in work))
        return time.perf_counter() - t0, list(labels)

    try:
        return asyncio.run(go())
    finally:
        slot.close()


def _pairs_rgb(image: Any) -> Any:
    from PIL import Image

    with Image.open(image.path) as handle:
        return handle.convert("RGB")


@bench(faces__pairs_accuracy=">= 0.95", faces__pairs_coverage=">= 0.75")
def faces_pairs() -> Iterator[Result]:
    """All 200 PAIRS images through ``faces`` (default parameters) against their known gender."""
    from collections import Counter

    from diptych.datasets import pairs

    model = _faces_annotator()
    if model is None:
        return
    images = pairs.images()
    _, labels = _annotate_all(model, [(_pairs_rgb(i), ["single"]) for i in images])
    tally: dict[str, Counter[str]] = {}
    reasons: Counter[str] = Counter()
    for image, (label,) in zip(images, labels, strict=True):
        for key in ("all", image.group):
            tally.setdefault(key, Counter())["images"] += 1
        if label.label == "cannot_identify":
            reason = label.detail["reason"]
            reasons["low_confidence" if "confidence" in reason else reason] += 1
            continue
        right = label.label == image.perceived_gender
        for key in ("all", image.group):
            tally[key]["labelled"] += 1
            tally[key]["right"] += right

    def accuracy(c: Counter[str]) -> float:
        return c["right"] / c["labelled"] if c["labelled"] else float("nan")

    groups = sorted(k for k in tally if k != "all")
    total = tally["all"]
    yield result(
        "faces.pairs_accuracy",
        accuracy(total),
        "fraction",
        labelled=total["labelled"],
        wrong=total["labelled"] - total["right"],
        **{g: _round(accuracy(tally[g])) for g in groups},
    )
    yield result(
        "faces.pairs_coverage",
        total["labelled"] / total["images"],
        "fraction",
        images=total["images"],
        **{g: _round(tally[g]["labelled"] / tally[g]["images"]) for g in groups},
        abstained=dict(reasons),
    )


def _faces_1024_work() -> list[tuple[Any, list[str], list[str]]]:
    """(1024×1024 image, subjects, expected labels): PAIRS images enlarged 4×, and two-person
    composites of the middle halves of a woman's and a man's PAIRS images, enlarged 4×."""
    from PIL import Image

    from diptych.datasets import pairs

    big = (1024, 1024)
    bicubic = Image.Resampling.BICUBIC
    everyone = pairs.images()
    step = len(everyone) // N_FACES_1024
    work = [
        (_pairs_rgb(i).resize(big, bicubic), ["single"], [i.perceived_gender])
        for i in everyone[::step][:N_FACES_1024]
    ]
    women, men = pairs.images(gender="woman"), pairs.images(gender="man")
    step = len(women) // N_FACES_1024
    for k in range(N_FACES_1024):
        duo = [women[k * step], men[(k * step + 7) % len(men)]]
        if k % 2:
            duo.reverse()  # half with the woman on the right
        canvas = Image.new("RGB", (256, 256))
        for slot, person in enumerate(duo):
            canvas.paste(_pairs_rgb(person).crop((64, 0, 192, 256)), (128 * slot, 0))
        work.append(
            (canvas.resize(big, bicubic), ["left", "right"], [p.perceived_gender for p in duo])
        )
    return work


@bench(faces__images_per_s_1024=">= 5")
def faces_throughput() -> Iterator[Result]:
    """80 1024×1024 images (half one person, half two) through ``faces`` as the engine calls it:
    worker threads, ``max_concurrency`` (default: every usable core) at a time."""
    work = _faces_1024_work()
    requests = [(image, subjects) for image, subjects, _ in work]
    one = _faces_annotator(max_concurrency=1)
    model = _faces_annotator()
    if one is None or model is None:
        return
    wall_one, _ = _annotate_all(one, requests)
    wall, labels = _annotate_all(model, requests)
    seen = {"single": [0, 0, 0], "paired": [0, 0, 0]}  # people, labelled, right
    for (_, subjects, expected), answer in zip(work, labels, strict=True):
        tally = seen["single" if subjects == ["single"] else "paired"]
        for label, want in zip(answer, expected, strict=True):
            tally[0] += 1
            tally[1] += label.label != "cannot_identify"
            tally[2] += label.label == want
    yield result(
        "faces.images_per_s_1024",
        len(work) / wall,
        "images/s",
        threads=model.hints.max_concurrency,
        wall_s=_round(wall),
        images_per_s_1_thread=_round(len(work) / wall_one),
        **{
            f"{kind}_{what}": _round(value)
            for kind, (people, labelled, right) in seen.items()
            for what, value in (
                ("coverage", labelled / people),
                ("accuracy", right / labelled if labelled else float("nan")),
            )
        },
    )


# --- pmi: the word association analysis (PAIRS Appendix D) -------------------------------------

N_RAW_TOKENS = 1_000_000
N_PREPROCESS_TEXTS = 1_200  # about 200,000 words of story-like English

_STORY_TEMPLATES = (
    "{name} grew up in a {adj} neighborhood near the {place}.",
    "The {person} in the image is wearing {clothes} and standing near the {place}.",
    "{name} {verb} the {thing} before anyone noticed the {adj} {thing}.",
    "I feel {adj} and {adj} as I {verb_present} the {thing} in my hands.",
    "Despite the challenges, {name} was determined to {verb_present} a better life.",
    "The {person} looks directly at the camera with a {adj} expression.",
    "In the background there are {count} cars parked in the parking lot.",
    "{name} spent {count} years working at the {place} and knows everyone there.",
    "Keywords: {adj}, {adj}, {adj}, {adj} and {adj}.",
    "My name is {name}, and I have always wanted to {verb_present} the {thing}.",
)
_SLOTS = {
    "name": "Olivia Jasmine Samir Ethan Maya Dwayne Sophia Jack Amara Lily".split(),
    "adj": (
        "quiet busy determined confident tired urban rugged bright serious calm proud "
        "mysterious hopeful worried strong"
    ).split(),
    "place": "warehouse courtyard fence street window courtroom store park station house".split(),
    "person": "man woman person worker individual figure".split(),
    "clothes": (
        "an orange jumpsuit|a ski mask|a suit|a hoodie|a bandanna|a leather jacket"
    ).split("|"),
    "verb": "carried noticed opened watched fixed painted held found lost repaired".split(),
    "verb_present": "build carry find change protect prove start finish".split(),
    "thing": "bat money cigarette window door camera bag fence car project".split(),
    "count": "two three five ten 12 20".split(),
}


def _story_texts(n: int, seed: int = 0) -> list[str]:
    """``n`` story-like English texts of 10 to 20 sentences from fixed templates (seeded)."""
    import random
    import re

    rng = random.Random(seed)
    texts = []
    for _ in range(n):
        sentences = []
        for _ in range(rng.randint(10, 20)):
            template = rng.choice(_STORY_TEMPLATES)
            sentences.append(
                re.sub(r"\{(\w+)\}", lambda m: rng.choice(_SLOTS[m.group(1)]), template)
            )
        texts.append(" ".join(sentences))
    return texts


def _raw_corpus(path: Path, n_tokens: int, seed: int = 0) -> None:
    """A JSONL corpus of ``n_tokens`` words: 4 groups × 10 scenarios × 100 texts drawn from a
    20,000-word Zipf-distributed vocabulary, with a few words skewed towards one group."""
    import itertools
    import random

    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = ["".join(rng.choices(letters, k=rng.randint(3, 9))) for _ in range(20_000)]
    cumulative = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(vocab))))
    groups = ["black_man", "black_woman", "white_man", "white_woman"]
    lines = []
    n_texts = 4 * 10 * 100
    per_text = n_tokens // n_texts
    for i in range(n_texts):
        group = groups[i % 4]
        words = rng.choices(vocab, cum_weights=cumulative, k=per_text)
        words[:5] = [f"{group.split('_')[0]}marker"] * 5
        lines.append(
            json.dumps({"group": group, "scenario": f"s{(i // 4) % 10}", "text": " ".join(words)})
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@bench(pmi__raw_1m_tokens_s="<= 5")
def pmi_raw() -> Iterator[Result]:
    """`diptych metrics pmi --raw --by scenario` on a 1,000,000-word corpus, in process: read
    and check the JSONL, tokenise, score every word of every group of 10 strata, dump JSON."""
    from diptych.core.metrics.lexical import pmi_corpus, read_corpus_jsonl

    with tempfile.TemporaryDirectory(prefix="diptych-bench-") as tmp:
        path = Path(tmp) / "corpus.jsonl"
        _raw_corpus(path, N_RAW_TOKENS)
        t0 = time.perf_counter()
        rows = read_corpus_jsonl(path, ["scenario"])
        out = pmi_corpus(rows, processing="raw", by=["scenario"])
        text = json.dumps(out.to_dict())
        wall = time.perf_counter() - t0
        tokens = sum(g.tokens for s in out.strata for g in s.groups.values())
        assert tokens == N_RAW_TOKENS, tokens
        assert len(out.strata) == 10 and len(text) > 0
        t0 = time.perf_counter()
        pmi_corpus(rows, processing="raw")
        unstratified = time.perf_counter() - t0
        yield result(
            "pmi.raw_1m_tokens_s",
            wall,
            "s",
            texts=len(rows),
            unstratified_s=_round(unstratified),
        )


@bench(pmi__preprocess_tokens_per_s=None)
def pmi_preprocess() -> Iterator[Result]:
    """The paper's processing (spaCy lemmas, SMART stop list, gensim phrases) of ~200,000
    words of story-like English, on every usable core (2 here) and on one; the spaCy pipeline
    is loaded before timing."""
    import os

    from diptych.core.errors import MissingDependencyError
    from diptych.core.metrics.lexical import word_count
    from diptych.core.metrics.preprocess import english_pipeline, preprocess, processes_for

    try:
        english_pipeline()
    except MissingDependencyError as error:
        print(f"pmi.preprocess_* skipped: {error}", file=sys.stderr)
        return
    texts = _story_texts(N_PREPROCESS_TEXTS)
    words = sum(word_count(t) for t in texts)
    cores = len(os.sched_getaffinity(0))
    processes = processes_for(texts)
    t0 = time.perf_counter()
    tokens = preprocess(texts)
    wall = time.perf_counter() - t0
    t0 = time.perf_counter()
    one = preprocess(texts, n_process=1)
    wall_one = time.perf_counter() - t0
    assert tokens == one, "one process and several must give the same tokens"
    yield result(
        "pmi.preprocess_tokens_per_s",
        words / wall,
        "words/s",
        words=words,
        cores=cores,
        processes=processes,
        wall_s=_round(wall),
        words_per_s_1_process=_round(words / wall_one),
    )


# --- tui ------------------------------------------------------------------------------------

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
    from diptych.tui.screens.review import ReviewScreen

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
        p90_ms=_round(statistics.quantiles(warm, n=10)[-1]),
        no_prefetch_median_ms=_round(statistics.median(cold)),
    )


# --- driver ---------------------------------------------------------------------------------


def _selected(name: str, prefixes: list[str]) -> bool:
    return not prefixes or any(name.startswith(p) for p in prefixes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefixes", nargs="*", help="run only figures starting with these")
    parser.add_argument("--list", action="store_true", help="list figures and targets")
    parser.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    args = parser.parse_args(argv)

    if args.list:
        for b in BENCHES:
            for name, want in b.figures.items():
                if _selected(name, args.prefixes):
                    print(f"{name}\t{want or '-'}")
        return 0

    chosen = [b for b in BENCHES if any(_selected(n, args.prefixes) for n in b.figures)]
    if not chosen:
        print(f"no benchmark matches {args.prefixes}", file=sys.stderr)
        return 2
    _setup_plugins()
    missed: list[str] = []
    for b in chosen:
        for r in b.fn():
            if not _selected(r.name, args.prefixes):
                continue
            print(r.line(), flush=True)
            if r.ok is False:
                missed.append(r.name)
    if missed:
        print(f"missed targets: {', '.join(missed)}", file=sys.stderr)
    return 1 if (args.check and missed) else 0


if __name__ == "__main__":
    # Run from anywhere: the checkout's package wins over any other installed copy.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main())
