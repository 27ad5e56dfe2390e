"""evidence.bundle_*: the size of an evidence bundle per thousand images.

A ``pst`` run (5 × 5 occupations, paired, 2 samples: 100 images) through ``openai-images`` on
the loopback fake OpenAI service, which paints 256×256 PNGs (flat colour fields with three
shapes, about 1 kB each: far smaller than a photograph), exported with ``export --bundle`` as a
zip; repeated with three probe seeds (other prompts' images). The figure is the archive's
megabytes per 1,000 images; since the images dominate any real bundle, the extras split it into
what does not depend on the images (``overhead_mb_per_1k_images``: tables and manifest) and the
images' own mean size (``image_kb``): a bundle of photographs of k kB each takes about
overhead + k MB per 1,000 images.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

from bench.harness import Result, bench, result

PST = {
    "aspects": ["occupation"],
    "setting": "paired",
    "masculine": ["carpenter", "sheriff", "driver", "farmer", "janitor"],
    "feminine": ["nurse", "editor", "secretary", "librarian", "receptionist"],
    "samples_paired": 2,
}
SEEDS = (0, 1, 2)
SIZE = (256, 256)


def _one(tmp: Path, seed: int) -> dict[str, float]:
    from diptych.core.workspace import Workspace
    from diptych.testing import FakeOpenAIServer

    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-bundle")
    with FakeOpenAIServer(image_size=SIZE) as fake, Workspace.open(tmp / "ws") as ws:
        run = ws.runs.run_sync(
            "pst", [("openai-images", {"base_url": fake.base_url})], params={**PST, "seed": seed}
        )
        start = time.perf_counter()
        done = ws.bundles.export(run.id, tmp / "b.zip")
        export_s = time.perf_counter() - start
    with zipfile.ZipFile(tmp / "b.zip") as archive:
        blobs = [i for i in archive.infolist() if i.filename.startswith("blobs/")]
        blob_bytes = sum(i.compress_size for i in blobs)
    start = time.perf_counter()
    with Workspace.open(tmp / "fresh") as ws:
        ws.bundles.import_file(tmp / "b.zip")
    import_s = time.perf_counter() - start
    images = run.n_trials
    return {
        "mb_per_1k": done.archive_bytes / images * 1000 / 1e6,
        "overhead_mb_per_1k": (done.archive_bytes - blob_bytes) / images * 1000 / 1e6,
        "image_kb": sum(i.file_size for i in blobs) / len(blobs) / 1e3,
        "images": images,
        "distinct_images": len(blobs),
        "export_s": export_s,
        "import_s": import_s,
    }


@bench(evidence__bundle_mb_per_1k_images=None)
def bundle_size() -> Iterator[Result]:
    reps = []
    for seed in SEEDS:
        with tempfile.TemporaryDirectory(prefix="diptych-bench-bundle-") as tmp:
            reps.append(_one(Path(tmp), seed))

    def mean(key: str) -> float:
        return statistics.fmean(r[key] for r in reps)

    sizes = [r["mb_per_1k"] for r in reps]
    yield result(
        "evidence.bundle_mb_per_1k_images",
        round(mean("mb_per_1k"), 3),
        "MB",
        mc_se=round(statistics.stdev(sizes) / len(sizes) ** 0.5, 4),
        replications=len(reps),
        images=int(mean("images")),
        distinct_images=int(mean("distinct_images")),
        image_px=f"{SIZE[0]}x{SIZE[1]}",
        image_kb=round(mean("image_kb"), 2),
        overhead_mb_per_1k_images=round(mean("overhead_mb_per_1k"), 3),
        export_s=round(mean("export_s"), 3),
        import_s=round(mean("import_s"), 3),
    )
