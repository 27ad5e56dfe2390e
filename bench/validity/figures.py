"""Validity: do the intervals cover the truth and do the tests hold their size?

Each design is simulated with a known truth and the project's own functions score it:

* ``pst_text_expected_sts_paired`` — pst-text's headline (:func:`expected_sts`) on 20 × 20
  crossed identities with identity-level effects (SD 0.3 on the ±1 Stereo scale, the issue's
  case where resampling scenes covered 38% of the time), both orders and both people of a scene;
* ``pst_text_expected_sts_single`` — the single setting: each identity list a stratum;
* ``pst_sts_paired_over_identities`` — the image probe's STS over identities
  (:func:`stereotype_test_score`) from drawn labels, 10 × 10 identities, two images a scene;
* ``paired_difference`` — a mitigation's matched difference over unordered scenes
  (:func:`resampling.paired_difference`) when the treatment's effect varies by identity: its
  type-I rate under a population null and its coverage under a real effect;
* the PAIRS and retrieval designs, from ``bench/validity/pairs.py``,
  ``bench/validity/retrieval/designs.py`` and ``bench/validity/retrieval/sets.py`` (pools of
  near-duplicate counterfactual sets shared by many queries, and the within-set null).

Coverage is the share of simulations whose 95% interval holds the truth (want 0.93–0.97; with
500 simulations its own standard error is about 0.01); type I is the share of simulations under
a true null whose test rejects at 5% (want <= 0.06). Seeds are fixed.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Iterator

from bench.harness import Result, bench, result

N_SIMS = 500
COVERAGE = "in 0.93..0.97"
TYPE1 = "<= 0.06"


def _pst_text_paired(n_sims: int, seed: int) -> tuple[float, float]:
    """Coverage of the crossed headline and, for contrast, of the scenes-only interval."""
    import numpy as np

    from diptych.plugins.probes.pst_text.analysis import PromptReading, expected_sts

    rng = np.random.default_rng(seed)
    n_id, mu = 20, 0.1
    hits = scene_hits = 0
    # Every scene's four prompts (two orders × two people) in a fixed order.
    layout = [
        (f"m{i}", f"f{j}", person)
        for i in range(n_id)
        for j in range(n_id)
        for _order in (0, 1)
        for person in ("masculine", "feminine")
    ]
    for s in range(n_sims):
        a = rng.normal(0, 0.3, n_id)
        b = rng.normal(0, 0.3, n_id)
        cell = (mu + a[:, None] + b[None, :] + rng.normal(0, 0.1, (n_id, n_id))).ravel()
        stereo = np.clip(np.repeat(cell, 4) + rng.normal(0, 0.05, cell.size * 4), -1, 1)
        readings = [
            PromptReading(
                setting="paired",
                identity=m if person == "masculine" else f,
                stereotype=person,
                cluster=f"paired:{f}|{m}",
                masculine=m,
                feminine=f,
                p_feminine=(1 + st) / 2 if person == "feminine" else (1 - st) / 2,
                mass=None,
            )
            for (m, f, person), st in zip(layout, stereo.tolist(), strict=True)
        ]
        est = expected_sts(readings, "paired", seed=s)
        assert est is not None
        truth = 100 * mu
        hits += est["ci_low"] <= truth <= est["ci_high"]
        only = est["scenes_only"]
        scene_hits += only["ci_low"] <= truth <= only["ci_high"]
    return hits / n_sims, scene_hits / n_sims


def _pst_text_single(n_sims: int, seed: int) -> float:
    import numpy as np

    from diptych.plugins.probes.pst_text.analysis import PromptReading, expected_sts

    rng = np.random.default_rng(seed)
    n_id, mu = 20, 0.2
    hits = 0
    for s in range(n_sims):
        readings = []
        for stereotype in ("masculine", "feminine"):
            effects = rng.normal(0, 0.3, n_id)
            for i, e in enumerate(effects):
                stereo = float(np.clip(mu + e, -1, 1))
                p_f = (1 + stereo) / 2 if stereotype == "feminine" else (1 - stereo) / 2
                name = f"{stereotype[0]}{i}"
                readings.append(
                    PromptReading(
                        setting="single",
                        identity=name,
                        stereotype=stereotype,
                        cluster=f"single:{name}",
                        masculine=name if stereotype == "masculine" else None,
                        feminine=name if stereotype == "feminine" else None,
                        p_feminine=p_f,
                        mass=None,
                    )  # fmt: skip
                )
        est = expected_sts(readings, "single", seed=s)
        assert est is not None
        hits += est["ci_low"] <= 100 * mu <= est["ci_high"]
    return hits / n_sims


def _pst_images(n_sims: int, seed: int) -> float:
    """The image probe's STS over identities, from labels drawn per person."""
    import numpy as np

    from diptych.core.metrics.sts import LabelRow, stereotype_test_score

    rng = np.random.default_rng(seed)
    n_id, mu, images = 10, 0.3, 2
    hits = 0
    for s in range(n_sims):
        a = rng.normal(0, 0.2, n_id)
        b = rng.normal(0, 0.2, n_id)
        rows = []
        for i in range(n_id):
            for j in range(n_id):
                p_stereo = float(np.clip((1 + mu + a[i] + b[j]) / 2, 0, 1))
                for k in range(images):
                    image = f"m{i}-f{j}-{k}"
                    match_m, match_f = rng.random(2) < p_stereo
                    rows.append(LabelRow(image, "paired", "left", f"m{i}", "masculine",
                                         "masculine" if match_m else "feminine"))  # fmt: skip
                    rows.append(LabelRow(image, "paired", "right", f"f{j}", "feminine",
                                         "feminine" if match_f else "masculine"))  # fmt: skip
        sts = stereotype_test_score(rows, n_boot=500, seed=s)
        assert sts.over_identities is not None
        inf = sts.over_identities["paired"]
        hits += inf.ci_low <= 100 * mu <= inf.ci_high
    return hits / n_sims


def _paired_difference(n_sims: int, seed: int, effect: float) -> float:
    """Share of simulations whose interval excludes ``effect`` (the truth): the type-I rate
    when the effect is 0, one minus the coverage otherwise. The treatment's effect varies by
    identity (SD 0.1), so scenes alone would over-reject."""
    import numpy as np

    from diptych.core.metrics.uncertainty.resampling import paired_difference

    rng = np.random.default_rng(seed)
    n_id = 8
    misses = 0
    for s in range(n_sims):
        a, b = rng.normal(0, 0.3, n_id), rng.normal(0, 0.3, n_id)
        ta, tb = rng.normal(0, 0.1, n_id), rng.normal(0, 0.1, n_id)
        base: dict[tuple[int, int, int], float] = {}
        treated: dict[tuple[int, int, int], float] = {}
        for i in range(n_id):
            for j in range(n_id):
                for order in (0, 1):
                    key = (i, j, order)
                    value = a[i] + b[j] + rng.normal(0, 0.1)
                    base[key] = value
                    treated[key] = value + effect + ta[i] + tb[j] + rng.normal(0, 0.05)

        def unit(key: tuple[int, int, int]) -> dict[str, int]:
            return {"masculine identity": key[0], "feminine identity": key[1]}

        inf = paired_difference(base, treated, unit, n_boot=400, seed=s)
        assert inf is not None
        misses += not (inf.ci_low <= effect <= inf.ci_high)
    return misses / n_sims


def _external(module: str) -> Callable[[int, int], dict[str, float]] | None:
    """A design simulated in another module of this folder, if it is there."""
    try:
        mod = importlib.import_module(f"bench.{module}")
    except ModuleNotFoundError:
        return None
    fn: Callable[[int, int], dict[str, float]] = mod.simulate
    return fn


@bench(
    validity__coverage__pst_text_expected_sts_paired=COVERAGE,
    validity__coverage__pst_text_expected_sts_paired_scenes_only=None,
    validity__coverage__pst_text_expected_sts_single=COVERAGE,
    validity__coverage__pst_sts_paired_over_identities=COVERAGE,
    validity__type1__paired_difference=TYPE1,
    validity__coverage__paired_difference=COVERAGE,
)
def pst_designs() -> Iterator[Result]:
    start = time.perf_counter()
    crossed, scenes_only = _pst_text_paired(N_SIMS, seed=1)
    yield result("validity.coverage.pst_text_expected_sts_paired", crossed, "fraction",
                 sims=N_SIMS)  # fmt: skip
    yield result(
        "validity.coverage.pst_text_expected_sts_paired_scenes_only", scenes_only, "fraction",
        sims=N_SIMS, note="for contrast: the interval over scenes speaks for these identities",
    )  # fmt: skip
    yield result("validity.coverage.pst_text_expected_sts_single", _pst_text_single(N_SIMS, 2),
                 "fraction", sims=N_SIMS)  # fmt: skip
    yield result("validity.coverage.pst_sts_paired_over_identities", _pst_images(N_SIMS, 3),
                 "fraction", sims=N_SIMS)  # fmt: skip
    yield result("validity.type1.paired_difference", _paired_difference(N_SIMS, 4, 0.0),
                 "fraction", sims=N_SIMS)  # fmt: skip
    yield result(
        "validity.coverage.paired_difference", 1 - _paired_difference(N_SIMS, 5, -0.1),
        "fraction", sims=N_SIMS, wall_s=round(time.perf_counter() - start, 1),
    )  # fmt: skip


def _external_bench(module: str, names: dict[str, str]) -> None:
    @bench(**{n.replace(".", "__"): want for n, want in names.items()})
    def run() -> Iterator[Result]:
        simulate = _external(module)
        if simulate is None:
            return
        # A module may simulate some figures more often than N_SIMS (``SIMS``: name → count).
        sims: dict[str, int] = getattr(importlib.import_module(f"bench.{module}"), "SIMS", {})
        for name, value in simulate(N_SIMS, 11).items():
            if name in names:
                yield result(name, value, "fraction", sims=sims.get(name, N_SIMS))

    run.__name__ = module


def _declared(module: str) -> dict[str, str]:
    """The figures an external design module declares (``FIGURES``: name → target)."""
    try:
        mod = importlib.import_module(f"bench.{module}")
    except ModuleNotFoundError:
        return {}
    figures: dict[str, str] = getattr(mod, "FIGURES", {})
    return figures


for _module in (
    "validity.pairs",
    "validity.retrieval.designs",
    "validity.retrieval.sets",
    "validity.retrieval.bounds",
    "validity.bounds",
    "validity.tables",
):
    _names = _declared(_module)
    if _names:
        _external_bench(_module, _names)

# The perceived-skin-tone figures' coverage (figures named tone.*) is declared by its module.
importlib.import_module("bench.validity.tone.intervals")
importlib.import_module("bench.validity.tone.corrected")
