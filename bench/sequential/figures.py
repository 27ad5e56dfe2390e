"""Sequential gates: audits bought batch by batch and looked at after every batch, with a known
truth, no model.

Each simulated audit is one of two crossed designs, as the gates read them:

* **pst-text** — 20 × 20 identities, every unordered scene asked in 4 prompts (both orders, both
  people): 1,600 requests. A prompt's expected Stereo × 100 is 100·(2u − 1), u drawn from a Beta
  distribution around the scene's mean, whose masculine and feminine identities move it with
  SDs 5.6 and 13.2 STS points and whose prompts spread around it with SD 62 — the components a
  SmolLM2 run of the example audit shows (``Probe.observed_components``);
* **pst** — 20 × 20 identities, 2 images a scene (both orders) with 2 people each: 800 requests
  (images), each person ±100 with P(stereotyped) moved by the identities with SDs 8.2 and 8.0
  STS points: the PST paper's DALL-E 3 components
  (``plugins/probes/_paired_stereotype_test/precision.py``).

Both have identity variance the scenes cannot shrink and scene (image) noise that they can.
The truth is the population value: identities are drawn afresh for every audit, so the truth is
the value for *identities like these*, the target of the gate's interval. The requests are
bought in a random order, 10 equal batches; after each the figure is made with
:func:`resampling.mean_over_units` (the analysis's interval), carried through its report number
into :func:`diptych.core.audit.sequential.anytime_figure` and decided by the gates' own
:func:`evaluate_gates` — the code ``audit run --until-decided`` runs.

* ``sequential.false_pass_rate``: ``below: L`` passing at any look with the truth at L
  (want <= 0.03);
* ``sequential.family_false_verdict_rate``: any verdict among 10 gates (5 of each design, each
  on its own part, ``below`` and ``not_above`` alternating) whose truths sit at their limits,
  Holm-adjusted, a part no longer bought once its gate is decided (want <= 0.06);
* ``sequential.spend_ratio_far``: the mean share of the design bought before the gate stops
  (decided, or the design complete) with the truth 2 full-design standard errors below L
  (want <= 0.5; see below), with the ratios at 3 and 4 standard errors beside it;
* ``sequential.spend_ratio_at_limit``: the same with the truth at L (want <= 1.0; its greatest
  value is printed beside it).

At 2 standard errors the target cannot be met by any valid gate: a decision at any look needs
the figure's distance from L to exceed c·SE there, with c ≥ 1.96 and SE no smaller than the
complete design's, so no sequential gate decides more often than the fixed design does (about
half the time at 2 SE); every audit it does not decide buys the whole design. The mean share is
then at least (1 − π) + π/K, π the fixed design's chance to decide and K the batches; both are
printed beside the figure as ``fixed_decides`` and ``bound``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from bench.harness import Result, bench, result

# The grid of designs, the peek-then-complete audit and the coverage of a stopped design's
# ungated figures are this area's figures too.
from bench.sequential import grid as sequential_grid  # noqa: F401
from bench.sequential import stopped as sequential_stopped  # noqa: F401

#: Identities per list, batches, and the limits the truths sit at (or below).
SIDE = 20
BATCHES = 10
#: Audits at the limit (half of each design): the false pass rate, the spend at the limit, and
#: grouped ten at a time the families.
AT_LIMIT = 10000
#: Audits per design and distance for the spend far from the limit.
FAR = 300


@dataclass(frozen=True)
class Design:
    name: str
    limit: float
    #: SDs of a masculine and a feminine identity's effect, STS points.
    rows: float
    cols: float
    #: Requests per scene and observations per request.
    requests: int
    per_request: int
    #: The spread of one prompt around its scene (pst-text), STS points; 0 for ±100 labels.
    within: float


PST_TEXT = Design("pst-text", 25.0, 5.6, 13.2, 4, 1, 62.0)
PST = Design("pst", 47.4, 8.2, 8.0, 2, 2, 0.0)


def _audit(design: Design, truth: float, rng: Any) -> tuple[Any, Any, Any, Any]:
    """One audit's observations (values, masculine and feminine identity codes, request of
    each), in the order the requests are bought."""
    import numpy as np

    a = rng.normal(0.0, design.rows, SIDE)
    b = rng.normal(0.0, design.cols, SIDE)
    rows = np.repeat(np.arange(SIDE), SIDE)
    cols = np.tile(np.arange(SIDE), SIDE)
    # P(stereotyped) of the scene: its STS on the share scale.
    mean = np.clip((1.0 + (truth + a[rows] + b[cols]) / 100.0) / 2.0, 1e-6, 1 - 1e-6)
    per_scene = design.requests * design.per_request
    m = np.repeat(mean, per_scene)
    if design.within > 0:
        var = np.minimum((design.within / 200.0) ** 2, 0.9 * m * (1 - m))
        k = m * (1 - m) / var - 1.0
        values = 100.0 * (2.0 * rng.beta(m * k, (1 - m) * k) - 1.0)
    else:
        values = np.where(rng.random(m.size) < m, 100.0, -100.0)
    r = np.repeat(rows, per_scene)
    c = np.repeat(cols, per_scene)
    order = rng.permutation(SIDE * SIDE * design.requests)
    # The observations of request q sit at q·per_request ... (q + 1)·per_request − 1.
    idx = (order[:, None] * design.per_request + np.arange(design.per_request)).ravel()
    return values[idx], r[idx], c[idx], order.size


class Audit:
    """One simulated audit, its figure made at a look when first asked for."""

    def __init__(self, design: Design, truth: float, rng: Any) -> None:
        self.design = design
        self.values, self.rows, self.cols, self.requests = _audit(design, truth, rng)
        self._figures: dict[int, Any] = {}

    def figure(self, k: int) -> Any:
        """The gate's figure after batch ``k`` (None: no interval yet), as a report gives it."""
        if k not in self._figures:
            from diptych.core.audit.gates import GateFigure
            from diptych.core.metrics.uncertainty.intervals import STS_RANGE
            from diptych.core.metrics.uncertainty.resampling import mean_over_units

            n = math.ceil(k * self.requests / BATCHES) * self.design.per_request
            units = {"masculine identity": self.rows[:n], "feminine identity": self.cols[:n]}
            number = mean_over_units(self.values[:n], units, bounds=STS_RANGE).to_dict()
            fig = GateFigure.from_number(number)
            self._figures[k] = fig if isinstance(fig, GateFigure) else None
        return self._figures[k]


def _look(k: int) -> Any:
    from diptych.core.audit.sequential import Look

    return Look(k, k, BATCHES, {})


def _decide(rules: list[Any], audits: list[Audit], upto: list[int]) -> list[Any]:
    """The gates after looks 1..upto[i] of each gate's audit, Holm-adjusted."""
    from diptych.core.audit.gates import evaluate_gates
    from diptych.core.audit.sequential import anytime_figure

    figs = {}
    for rule, audit, n in zip(rules, audits, upto, strict=True):
        combined = anytime_figure([(_look(k), audit.figure(k)) for k in range(1, n + 1)])
        assert combined is not None
        figs[(rule.part, rule.figure, rule.rule)] = combined
    return evaluate_gates(rules, figs)


def _single(audit: Audit) -> tuple[str, float]:
    """One sequential ``below`` gate: its verdict and the share bought when it stopped."""
    from diptych.core.audit.gates import GateRule

    rule = GateRule("g", "p", "f", "below", audit.design.limit)
    for k in range(1, BATCHES + 1):
        verdict = _decide([rule], [audit], [k])[0].verdict
        if verdict != "inconclusive":
            return verdict, k / BATCHES
    return "inconclusive", 1.0


def _family(seqs: list[Audit], limits: list[float]) -> bool:
    """Whether ten gates at their limits give any verdict, each part bought until its gate is
    decided."""
    from diptych.core.audit.gates import GateRule

    rules = [
        GateRule(f"g{i}", f"p{i}", "f", "below" if i % 2 else "not_above", limit)
        for i, limit in enumerate(limits)
    ]
    upto = [0] * len(rules)
    decided = [False] * len(rules)
    for _ in range(BATCHES):
        upto = [u if d else u + 1 for u, d in zip(upto, decided, strict=True)]
        results = _decide(rules, seqs, upto)
        decided = [r.verdict != "inconclusive" for r in results]
        if any(decided):
            return True
    return False


def _full_se(audits: list[Audit]) -> float:
    """The complete design's standard error: the spread of its value over audits."""
    import numpy as np

    return float(np.std([a.figure(BATCHES).value for a in audits], ddof=1))


@bench(
    sequential__false_pass_rate="<= 0.03",
    sequential__family_false_verdict_rate="<= 0.06",
    sequential__spend_ratio_far="<= 0.5",
    sequential__spend_ratio_at_limit="<= 1.0",
)
def sequential_gates() -> Iterator[Result]:
    import numpy as np

    from diptych.core.audit.gates import GateRule, evaluate_gates

    rng = np.random.default_rng(37)
    half = AT_LIMIT // 2
    at_limit: dict[str, list[Audit]] = {}
    verdicts, shares = [], []
    by_design: dict[str, float] = {}
    for design in (PST_TEXT, PST):
        at_limit[design.name] = [Audit(design, design.limit, rng) for _ in range(half)]
        mine = [_single(audit) for audit in at_limit[design.name]]
        verdicts += [v for v, _ in mine]
        shares += [s for _, s in mine]
        by_design[design.name] = sum(v == "pass" for v, _ in mine) / half
    rate = verdicts.count("pass") / AT_LIMIT
    yield result(
        "sequential.false_pass_rate", rate, "fraction", audits=AT_LIMIT,
        mc_error=round(math.sqrt(rate * (1 - rate) / AT_LIMIT), 4), batches=BATCHES,
        pst_text=by_design["pst-text"], pst=by_design["pst"],
        false_fail_rate=verdicts.count("fail") / AT_LIMIT,
    )  # fmt: skip
    families = half // 5
    false = 0
    for i in range(families):
        group = at_limit["pst-text"][5 * i : 5 * i + 5] + at_limit["pst"][5 * i : 5 * i + 5]
        false += _family(group, [PST_TEXT.limit] * 5 + [PST.limit] * 5)
    fam = false / families
    yield result(
        "sequential.family_false_verdict_rate", fam, "fraction", audits=families, gates=10,
        mc_error=round(math.sqrt(fam * (1 - fam) / families), 4),
    )  # fmt: skip
    far: dict[float, list[float]] = {}
    per_design: dict[str, float] = {}
    fixed_decides: list[bool] = []
    for design in (PST_TEXT, PST):
        se = _full_se(at_limit[design.name])
        rule = GateRule("g", "p", "f", "below", design.limit)
        for distance in (2.0, 3.0, 4.0):
            mine = []
            for _ in range(FAR):
                audit = Audit(design, design.limit - distance * se, rng)
                mine.append(_single(audit)[1])
                if distance == 2.0:
                    # The fixed design's own verdict on the complete design: the bound's π.
                    full = {("p", "f", "below"): audit.figure(BATCHES)}
                    fixed = evaluate_gates([rule], full)[0].verdict
                    fixed_decides.append(fixed != "inconclusive")
            far.setdefault(distance, []).extend(mine)
            per_design[f"{design.name}_at_{distance:g}_se"] = round(float(np.mean(mine)), 3)
    pi = float(np.mean(fixed_decides))
    ratios = {d: float(np.mean(v)) for d, v in far.items()}
    errors = {d: float(np.std(v, ddof=1) / math.sqrt(len(v))) for d, v in far.items()}
    yield result(
        "sequential.spend_ratio_far", ratios[2.0], "share of the design",
        audits=len(far[2.0]), mc_error=round(errors[2.0], 4),
        at_3_se=round(ratios[3.0], 3), at_3_se_mc_error=round(errors[3.0], 4),
        at_4_se=round(ratios[4.0], 3), at_4_se_mc_error=round(errors[4.0], 4),
        fixed_decides=round(pi, 3), bound=round((1 - pi) + pi / BATCHES, 3), **per_design,
    )  # fmt: skip
    yield result(
        "sequential.spend_ratio_at_limit", float(np.mean(shares)), "share of the design",
        audits=AT_LIMIT, greatest=max(shares),
    )  # fmt: skip
