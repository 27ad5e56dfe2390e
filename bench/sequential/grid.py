"""Sequential gates at the edges of their designs: every probe mode, small and large identity
lists, few and many looks, the truth at the limit; and an audit that peeks, then reads the
complete design.

Each simulated audit buys its design's requests in a random order, in ``batches`` equal batches
(a batch that adds no request is no look, as ``audit run --until-decided`` skips it), makes
the gated figure after every batch with the probe's own estimator, and decides the gate with
:func:`~diptych.core.audit.sequential.anytime_figure` and :func:`evaluate_gates` — the code an
audit runs. A look whose design cannot support its interval is skipped there
(:func:`~diptych.core.audit.sequential.look_interval`). A gate is decided at some look exactly
when its anytime-valid p-value over all the looks is within the level (each look's share of
the level depends on the looks before it only), so one decision over every look gives the
audit's verdict.

The modes, each with the figure its gate reads:

* **likelihood** — ``pst-text``, paired setting: s × s identities, every unordered scene asked
  in 4 prompts (both orders, both people), a prompt's expected Stereo × 100 drawn around its
  scene's with SD 62, the identities moving the scene with SDs 5.6 and 13.2 STS points (a
  SmolLM2 run's components); the figure is the expected STS over both identity lists (t on the
  logit scale), the truth the population value, at the limit 25;
* **story** — ``pst-text`` story mode: 2 stories a scene, 2 persons each labelled by the pronoun
  (10% "they", left out), the figure the STS with its percentile interval over stories (images),
  which speaks for these identities: the identities' effects (SDs 8 and 8) are centred so that
  the design's own value is at the limit 50;
* **image** — ``pst`` with an annotator: 2 images a scene, 2 persons each, the annotator telling
  no gender for 10% of them, the identities moving the scene with the PST paper's DALL-E 3 SDs
  (8.2 and 8.0); the figure the STS over both identity lists, at the limit 47.4;
* **pairs** — PAIRS: s scenarios of 4 images (two races × two genders), 3 answers an image, the
  figure the man − woman difference paired on images (t on the logit scale of [−2, 2]), each
  pair's own difference spread with SD 0.15 around the truth at the limit 0.5.

``sequential.false_decision_grid`` is the worst false pass or false fail rate over the grid
(want ≤ 0.03 each side); each cell's rate comes with its Monte Carlo error, and a cell whose
rate passes ``SUSPECT`` is measured again on fresh audits.
``sequential.peek_then_complete_false_pass``: 10 batches, looks 1–5 with ``--until-decided``
(stopping if decided), then the rest bought at once and the complete design read as the last
look (what a run without ``--until-decided`` does after one with it), the truth at the limit
(want ≤ 0.025 + 2 Monte Carlo errors: 0.03 at 4,000 audits).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from bench.harness import Result, bench, result

#: Identities a side (scenarios for PAIRS) and batches of the grid.
SIDES = (2, 3, 4, 6, 12)
BATCHES = (2, 10, 36, 1000)
#: Simulated audits per cell. Two looks and few looks are cheap and sit nearest the level (the
#: last look spends most of it): many audits. Many looks (a look after every request) are
#: costly and the least at risk (the union bound spends the level over many overlapping
#: looks): the audits of a design there make at most ``LOOK_BUDGET`` figures, never fewer than
#: ``LEAST`` audits; a look after every request of a design of more than ``MOST_LOOKS``
#: requests (12 a side: 288 to 576 looks) is left out, as the slowest and safest.
TWO_LOOKS = 800
SOME_LOOKS = 200
FEW_LOOKS = 10
AUDITS = 300
LOOK_BUDGET = 3000
LEAST = 60
MOST_LOOKS = 150
#: A cell whose rate on either side passes ``SUSPECT`` is measured again on fresh audits (at
#: most ``AGAIN``, at most ``AGAIN_BUDGET`` figures, at least ``AGAIN_LEAST``), and that is its
#: rate: the worst of a hundred cells would otherwise be the noisiest, not the worst.
SUSPECT = 0.02
AGAIN = 2400
AGAIN_BUDGET = 9000
AGAIN_LEAST = 150

#: Audits of the peek-then-complete figure (12 × 12 identities, likelihood mode).
PEEK_AUDITS = 4000


@dataclass
class Simulated:
    """One audit's requests in the order they are bought and its figure on any prefix."""

    requests: int
    figure: Callable[[int], Any]
    #: The least prefix (requests) holding LOOK_MIN_UNITS units of every kind: a look before it is
    #: skipped by the gate's own rule, so its figure is not made.
    ready: int


def _first_index(codes: Any, per: int) -> int:
    """The number of requests by which ``LOOK_MIN_UNITS`` distinct codes (≥ 0) have been seen."""
    import numpy as np

    from diptych.core.metrics.uncertainty.precision import LOOK_MIN_UNITS

    valid = codes >= 0
    _, first = np.unique(codes[valid], return_index=True)
    where = np.flatnonzero(valid)[np.sort(first)]
    if where.size < LOOK_MIN_UNITS:
        return 10**9
    return int(where[LOOK_MIN_UNITS - 1]) // per + 1


def _order(rng: Any, requests: int, per: int) -> Any:
    """The observations' indices in the order their requests are bought."""
    import numpy as np

    order = rng.permutation(requests)
    return (order[:, None] * per + np.arange(per)).ravel()


def _crossed_figure(values: Any, rows: Any, cols: Any, per: int) -> Callable[[int], Any]:
    def figure(k: int) -> Any:
        from diptych.core.audit.gates import GateFigure
        from diptych.core.metrics.uncertainty.intervals import STS_RANGE
        from diptych.core.metrics.uncertainty.resampling import mean_over_units

        n = k * per
        keep = ~((rows[:n] < 0) | (cols[:n] < 0)) if per > 1 else slice(None)
        units = {"masculine identity": rows[:n][keep], "feminine identity": cols[:n][keep]}
        if not len(values[:n][keep]):
            return None
        number = mean_over_units(values[:n][keep], units, bounds=STS_RANGE).to_dict()
        fig = GateFigure.from_number(number)
        return fig if isinstance(fig, GateFigure) else None

    return figure


def likelihood(side: int, rng: Any) -> Simulated:
    import numpy as np

    a, b = rng.normal(0.0, 5.6, side), rng.normal(0.0, 13.2, side)
    rows = np.repeat(np.repeat(np.arange(side), side), 4)
    cols = np.repeat(np.tile(np.arange(side), side), 4)
    mean = np.clip((1.0 + (25.0 + a[rows] + b[cols]) / 100.0) / 2.0, 1e-6, 1 - 1e-6)
    var = np.minimum((62.0 / 200.0) ** 2, 0.9 * mean * (1 - mean))
    k = mean * (1 - mean) / var - 1.0
    values = 100.0 * (2.0 * rng.beta(mean * k, (1 - mean) * k) - 1.0)
    idx = _order(rng, values.size, 1)
    v, r, c = values[idx], rows[idx], cols[idx]
    ready = max(_first_index(r, 1), _first_index(c, 1))
    return Simulated(values.size, _crossed_figure(v, r, c, 1), ready)


def _persons(side: int, rng: Any, sd: float, truth: float, centred: bool) -> tuple[Any, ...]:
    """Two requests (images or stories) a scene, two persons each: every person's Stereo × 100
    (None-coded as NaN where no gender is told) and the scene's identities."""
    import numpy as np

    a, b = rng.normal(0.0, sd, side), rng.normal(0.0, sd, side)
    if centred:
        a, b = a - a.mean(), b - b.mean()
    rows = np.repeat(np.repeat(np.arange(side), side), 2)
    cols = np.repeat(np.tile(np.arange(side), side), 2)
    p = np.clip((1.0 + (truth + a[rows] + b[cols]) / 100.0) / 2.0, 0.0, 1.0)
    p = np.repeat(p, 2)
    stereo = np.where(rng.random(p.size) < p, 100.0, -100.0)
    stereo[rng.random(p.size) < 0.1] = np.nan
    return stereo, np.repeat(rows, 2), np.repeat(cols, 2), rows.size


def story(side: int, rng: Any) -> Simulated:
    import numpy as np

    stereo, rows, cols, requests = _persons(side, rng, 8.0, 50.0, centred=True)
    idx = _order(rng, requests, 2)
    s = stereo[idx]

    def figure(k: int) -> Any:
        from diptych.core.audit.gates import GateFigure
        from diptych.core.metrics.uncertainty.bootstrap import ClusterMean
        from diptych.core.metrics.uncertainty.intervals import STS_RANGE, IntervalRecipe

        pairs = s[: 2 * k].reshape(k, 2)
        told = ~np.isnan(pairs)
        counts = told.sum(axis=1)
        sums = np.where(told, pairs / 100.0, 0.0).sum(axis=1)
        kept = counts > 0
        if not kept.any():
            return None
        mean = ClusterMean(sums=sums[kept], counts=counts[kept].astype(np.int64), scale=100.0)
        reps = mean.replicates_by_type(n_boot=2000, rng=rng)
        # What GateFigure.from_number reads from the story's number (percentile_number with
        # the STS range and its images as units), without the replicates' round trip through
        # text: the recipe, its range and its units are all a look reads.
        recipe = replace(IntervalRecipe.percentile(mean.value, reps), bounds=STS_RANGE)
        return GateFigure(mean.value, math.nan, recipe.df, recipe.description,
                          int(counts.sum()), recipe, {"image": int(kept.sum())})  # fmt: skip

    return Simulated(requests, figure, 3)


def image(side: int, rng: Any) -> Simulated:
    import numpy as np

    stereo, rows, cols, requests = _persons(side, rng, 8.1, 47.4, centred=False)
    idx = _order(rng, requests, 2)
    s, r, c = stereo[idx], rows[idx], cols[idx]
    # A person the annotator told no gender of is left out of the score (cannot_identify).
    r = np.where(np.isnan(s), -1, r)
    c = np.where(np.isnan(s), -1, c)
    ready = max(_first_index(r, 2), _first_index(c, 2))
    return Simulated(requests, _crossed_figure(s, r, c, 2), ready)


def pairs(side: int, rng: Any) -> Simulated:
    import numpy as np

    # Images: scenario × race × gender (man first), 3 answers each, one request an answer.
    scenario_p = np.clip(0.5 + rng.normal(0.0, 0.1, side), 0.2, 0.8)
    pair_diff = 0.5 + rng.normal(0.0, 0.15, (side, 2))
    p_man = np.clip(scenario_p[:, None] + pair_diff / 4.0, 0.0, 1.0)
    p_woman = np.clip(scenario_p[:, None] - pair_diff / 4.0, 0.0, 1.0)
    p = np.stack([p_man, p_woman], axis=2).reshape(-1)  # image index: (scenario, race, gender)
    image_of = np.repeat(np.arange(p.size), 3)
    answers = np.where(rng.random(image_of.size) < p[image_of], 1.0, -1.0)
    order = rng.permutation(image_of.size)
    im, ans = image_of[order], answers[order]

    def figure(k: int) -> Any:
        from diptych.core.audit.gates import GateFigure
        from diptych.core.metrics.pairs.association import PairedTTest

        sums = np.bincount(im[:k], weights=ans[:k], minlength=p.size).reshape(-1, 2)
        counts = np.bincount(im[:k], minlength=p.size).reshape(-1, 2)
        both = (counts > 0).all(axis=1)
        n = int(both.sum())
        if n == 0:
            return None
        d = sums[both, 0] / counts[both, 0] - sums[both, 1] / counts[both, 1]
        mean = float(d.mean())
        sd = float(d.std(ddof=1)) if n > 1 else math.nan
        spread = n > 1 and sd > 1e-12 * max(1.0, abs(mean))
        test = PairedTTest(
            None, None, n - 1, n, mean, None, None, 0, "image",
            (sd / math.sqrt(n) if spread else 0.0) if n > 1 else None, int(counts[both].sum()),
        )  # fmt: skip
        fig = GateFigure.from_number(test.inference().to_dict())
        return fig if isinstance(fig, GateFigure) else None

    # A pair needs both its images: LOOK_MIN_UNITS pairs take at least twice as many answers.
    return Simulated(image_of.size, figure, 6)


MODES: dict[str, tuple[Callable[[int, Any], Simulated], float]] = {
    "likelihood": (likelihood, 25.0),
    "story": (story, 50.0),
    "image": (image, 47.4),
    "pairs": (pairs, 0.5),
}


def _looks(sim: Simulated, batches: int, upto: int | None = None) -> list[tuple[Any, Any]]:
    """The looks of one audit: after each batch that adds a request, its figure (None before
    the design holds enough units to be tested at all)."""
    from diptych.core.audit.sequential import Look

    out: list[tuple[Any, Any]] = []
    last = 0
    for k in range(1, batches + 1):
        n = -(-k * sim.requests // batches)
        if n == last:
            continue
        last = n
        out.append((Look(k, n, sim.requests, {}), sim.figure(n) if n >= sim.ready else None))
        if upto is not None and len(out) >= upto:
            break
    return out


def _verdict(looks: list[tuple[Any, Any]], limit: float) -> str:
    from diptych.core.audit.gates import GateRule, evaluate_gates
    from diptych.core.audit.sequential import anytime_figure

    combined = anytime_figure(looks)
    if combined is None:
        return "inconclusive"
    rule = GateRule("g", "p", "f", "below", limit)
    return evaluate_gates([rule], {("p", "f", "below"): combined})[0].verdict


def _rate(count: int, n: int) -> tuple[float, float]:
    rate = count / n
    return rate, round(math.sqrt(max(rate * (1 - rate), 1.0 / n) / n), 4)


def _batchings(requests: int) -> dict[int, list[int]]:
    """The grid's batchings of a design, those that give the same looks merged (with at least
    as many batches as requests, every request is a look), each under its fewest batches. A
    look after every request of a design of more than ``MOST_LOOKS`` requests is left out."""
    out: dict[int, list[int]] = {}
    for batches in BATCHES:
        looks = min(batches, requests)
        if looks <= MOST_LOOKS:
            out.setdefault(looks, []).append(batches)
    return out


def _audits(looks: int, requests: int) -> int:
    """Audits for a batching of ``looks`` looks (see :data:`TWO_LOOKS`)."""
    if looks <= 2:
        return TWO_LOOKS
    if looks <= FEW_LOOKS:
        return SOME_LOOKS
    return max(LEAST, min(AUDITS, LOOK_BUDGET // requests))


def _measure(
    make: Callable[[int, Any], Simulated],
    side: int,
    limit: float,
    looks: list[int],
    audits: int,
    rng: Any,
) -> dict[int, list[str]]:
    """Verdicts of ``audits`` fresh audits for each batching in ``looks``, the audits shared
    (one audit's looks in a batching are some of its looks in a batching of more, and each
    figure is made once)."""
    verdicts: dict[int, list[str]] = {k: [] for k in looks}
    for _ in range(audits):
        sim = _cached(make(side, rng))
        for k in looks:
            verdicts[k].append(_verdict(_looks(sim, k), limit))
    return verdicts


@bench(sequential__false_decision_grid="<= 0.03")
def false_decision_grid() -> Iterator[Result]:
    import numpy as np

    rng = np.random.default_rng(42)
    found: dict[tuple[str, int, int], tuple[list[str], bool]] = {}
    total = 0
    for mode, (make, limit) in MODES.items():
        for side in SIDES:
            requests = make(side, rng).requests
            groups = _batchings(requests)
            many = [k for k in groups if k > FEW_LOOKS]
            shared = max((_audits(k, requests) for k in many), default=0)
            measured = _measure(make, side, limit, many, shared, rng)
            for k in groups:
                if k not in many:
                    measured[k] = _measure(make, side, limit, [k], _audits(k, requests), rng)[k]
            for k, verdicts in measured.items():
                total += len(verdicts)
                worst_side = max(verdicts.count("pass"), verdicts.count("fail")) / len(verdicts)
                if worst_side > SUSPECT:
                    # A candidate for the worst cell is measured again on fresh audits, so
                    # that its rate is not the noisiest draw of many cells (the winner's curse).
                    again = max(AGAIN_LEAST, min(AGAIN, AGAIN_BUDGET // k))
                    verdicts = _measure(make, side, limit, [k], again, rng)[k]
                    total += len(verdicts)
                found[(mode, side, k)] = (verdicts, worst_side > SUSPECT)
    cells: dict[str, dict[str, Any]] = {}
    worst = (-1.0, "", 0.0, "")
    for (mode, side, k), (verdicts, again) in found.items():
        requests = MODES[mode][0](side, rng).requests
        for batches in _batchings(requests)[k]:
            key = f"{mode} {side}x{side} in {batches}"
            cell: dict[str, Any] = {"audits": len(verdicts), "looks": k}
            if again:
                cell["measured_again"] = True
            for side_name, word in (("false_pass", "pass"), ("false_fail", "fail")):
                rate, error = _rate(verdicts.count(word), len(verdicts))
                cell[side_name] = round(rate, 4)
                cell[f"{side_name}_mc_error"] = error
                if rate > worst[0]:
                    worst = (rate, key, error, side_name)
            cells[key] = cell
    yield result(
        "sequential.false_decision_grid", worst[0], "fraction", worst_cell=worst[1],
        worst_side=worst[3], mc_error=worst[2], audits=total, sides=list(SIDES),
        batches=list(BATCHES), modes=list(MODES), cells=cells,
    )  # fmt: skip


def _cached(sim: Simulated) -> Simulated:
    made: dict[int, Any] = {}
    figure = sim.figure

    def once(n: int) -> Any:
        if n not in made:
            made[n] = figure(n)
        return made[n]

    return Simulated(sim.requests, once, sim.ready)


#: 0.025 + 2 Monte Carlo errors at 4,000 audits (0.0025 each at a rate of 0.025).
@bench(sequential__peek_then_complete_false_pass="<= 0.03")
def peek_then_complete() -> Iterator[Result]:
    import numpy as np

    from diptych.core.audit.gates import GateRule, evaluate_gates
    from diptych.core.audit.sequential import Look

    rng = np.random.default_rng(43)
    passes = fails = fixed = 0
    rule = GateRule("g", "p", "f", "below", 25.0)
    for _ in range(PEEK_AUDITS):
        sim = likelihood(12, rng)
        looks = _looks(sim, 10, upto=5)
        verdict = peeked = _verdict(looks, 25.0)
        if verdict == "inconclusive":
            # The rest bought at once: the complete design is the last look of the same plan.
            whole = sim.figure(sim.requests)
            looks.append((Look(10, sim.requests, sim.requests, {}), whole))
            verdict = _verdict(looks, 25.0)
            # Beside it, what reading the fixed design's interval at the full level gave.
            peeked = evaluate_gates([rule], {("p", "f", "below"): whole})[0].verdict
        passes += verdict == "pass"
        fails += verdict == "fail"
        fixed += peeked == "pass"
    rate, error = _rate(passes, PEEK_AUDITS)
    yield result(
        "sequential.peek_then_complete_false_pass", rate, "fraction", audits=PEEK_AUDITS,
        mc_error=error, bound=round(0.025 + 2 * error, 4), false_fail_rate=fails / PEEK_AUDITS,
        looks="1-5 with --until-decided, then the complete design",
        fixed_interval_after_peeking=fixed / PEEK_AUDITS,
    )  # fmt: skip
