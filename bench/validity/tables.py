"""Validity of the STS tables' intervals: per identity, per stereotyped gender, per setting.

A PST study's tables print an interval beside every figure, and the figures of a small study
sit at their bounds often: an identity whose every image is read as stereotyped scores +100.
This module simulates the design ``pst-text`` (story mode) and ``pst`` give — R × R identities
for R = 2 … 6, every ordered pair once in the paired setting, three images per identity in the
single one — and scores each draw with :func:`~diptych.core.metrics.sts.stereotype_test_score`
and the gap of :func:`~diptych.plugins.probes._paired_stereotype_test.scoring.setting_gap`,
the functions behind the tables. A person of identity i seen beside j is labelled with the
stereotyped gender with probability expit(η + a_i + b_j) (single: expit(η + a_i)), identity
effects N(0, 0.5²) drawn once per study; the truth of a table's figure is the mean of 2p − 1
over the persons it averages, × 100 (what its images speak for: these identities).

* ``validity.zero_width_intervals`` — how many printed intervals have zero width, over every
  table of every draw (η = 1, 3 and 6: at η = 6 nearly every slice sits at +100). Want 0.
* ``validity.coverage.sts_table_<kind>`` (η = 1) and ``…_near_bound`` (η = 3) — the share of
  intervals that hold their figure's truth, pooled over the five designs: ``per_identity`` (the
  micro STS, both settings), ``per_stereotype`` (masculine and feminine, both settings),
  ``per_setting`` (the STS over images, paired and single) and ``gap`` (paired − single).

Near the bound, and in designs of two identities a side (two to four images per slice), the
intervals cover more than 95%: an identity with four images at +100 has the Clopper–Pearson end
of four images shrunk by three degrees of freedom (Korn & Graubard), and a t quantile on three
df is wide. The per-identity and per-stereotype figures want at least 0.93 there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from diptych.core.metrics.sts import LabelRow

SD = 0.5
SIZES = (2, 3, 4, 5, 6)
SINGLE_IMAGES = 3
#: Studies per (design, η); the coverages pool their many intervals.
N = 200
KINDS = ("per_identity", "per_stereotype", "per_setting", "gap")
AT_LEAST = ">= 0.93"
FIGURES: dict[str, str | None] = {
    "validity.zero_width_intervals": "<= 0",
    **{f"validity.coverage.sts_table_{k}": AT_LEAST for k in KINDS},
    **{f"validity.coverage.sts_table_{k}_near_bound": AT_LEAST for k in KINDS},
}
#: Studies behind each figure: the coverages one η each, the zero-width count all three.
SIMS = {
    **dict.fromkeys(FIGURES, N * len(SIZES)),
    "validity.zero_width_intervals": 3 * N * len(SIZES),
}


def _study(
    rng: np.random.Generator, n_id: int, eta: float
) -> tuple[list[LabelRow], dict[str, list[float]]]:
    """One study's labels and, per table key, the 2p − 1 of every person it averages."""
    import numpy as np
    from scipy.special import expit

    from diptych.core.metrics.sts import LabelRow

    a = {g: rng.normal(0, SD, n_id) for g in ("masculine", "feminine")}
    other = {"masculine": "feminine", "feminine": "masculine"}
    rows: list[LabelRow] = []
    truth: dict[str, list[float]] = {}

    def person(image: str, setting: str, position: str, identity: str, st: str, p: float) -> None:
        label = st if rng.random() < p else other[st]
        rows.append(LabelRow(image, setting, position, identity, st, label))  # type: ignore[arg-type]
        for key in (f"id/{identity}/{setting}", f"st/{st}/{setting}", f"all/{setting}"):
            truth.setdefault(key, []).append(2 * p - 1)

    for i in range(n_id):
        for j in range(n_id):
            p_m = float(expit(eta + a["masculine"][i] + a["feminine"][j]))
            p_f = float(expit(eta + a["feminine"][j] + a["masculine"][i]))
            for order, (left, right) in enumerate((("m", "f"), ("f", "m"))):
                image = f"p-m{i}-f{j}-{order}"
                who = {"m": (f"m{i}", "masculine", p_m), "f": (f"f{j}", "feminine", p_f)}
                for position, side in (("left", left), ("right", right)):
                    person(image, "paired", position, *who[side])
    for g, prefix in (("masculine", "m"), ("feminine", "f")):
        for i in range(n_id):
            p = float(expit(eta + a[g][i]))
            for k in range(SINGLE_IMAGES):
                person(f"s-{prefix}{i}-{k}", "single", "single", f"{prefix}{i}", g, p)
    del np
    return rows, truth


def _intervals(rows: list[LabelRow]) -> dict[str, tuple[float, float, float]]:
    """Every interval the tables print, by table key: (value, low, high)."""
    from diptych.core.metrics.sts import stereotype_test_score
    from diptych.plugins.probes._paired_stereotype_test.scoring import setting_gap

    sts = stereotype_test_score(rows, n_boot=20)
    out: dict[str, tuple[float, float, float]] = {}
    for name, m in sts.micro.items():
        for setting, value, ci in (("single", m.single, m.single_ci),
                                   ("paired", m.paired, m.paired_ci)):  # fmt: skip
            if value is not None and ci is not None:
                out[f"id/{name}/{setting}"] = (value, *ci)
        if m.gap is not None and m.gap_ci is not None:
            out[f"idgap/{name}"] = (m.gap, *m.gap_ci)
    for g, scores in sts.by_stereotype.items():
        for setting in ("single", "paired"):
            est = getattr(scores, setting)
            if est is not None:
                out[f"st/{g}/{setting}"] = (est.value, est.ci_low, est.ci_high)
    for setting in ("single", "paired"):
        est = getattr(sts.overall, setting)
        if est is not None:
            out[f"all/{setting}"] = (est.value, est.ci_low, est.ci_high)
    for setting, inf in (sts.over_identities or {}).items():
        out[f"over/{setting}"] = (inf.value, inf.ci_low, inf.ci_high)
    gap = setting_gap(rows, seed=0)
    if gap is not None:
        out["gap"] = (gap["value"], gap["ci_low"], gap["ci_high"])
    return out


def _kind(key: str) -> str | None:
    return {"id": "per_identity", "st": "per_stereotype", "all": "per_setting",
            "gap": "gap"}.get(key.split("/", 1)[0])  # fmt: skip


def simulate(n_sims: int, seed: int) -> dict[str, float]:
    """The zero-width count and the tables' coverages (module docstring); ``n_sims`` is the
    caller's default, not used (:data:`N` studies per design and η)."""
    import math

    import numpy as np

    del n_sims
    rng = np.random.default_rng(seed)
    zero = 0
    tally: dict[str, list[int]] = {}
    for eta, suffix in ((1.0, ""), (3.0, "_near_bound"), (6.0, None)):
        for n_id in SIZES:
            for _ in range(N):
                rows, truth = _study(rng, n_id, eta)
                found = _intervals(rows)
                for _value, low, high in found.values():
                    if math.isfinite(low) and math.isfinite(high) and not high > low:
                        zero += 1
                if suffix is None:
                    continue
                truths: dict[str, float] = {k: 100 * float(np.mean(v)) for k, v in truth.items()}
                if "all/paired" in truths and "all/single" in truths:
                    truths["gap"] = truths["all/paired"] - truths["all/single"]
                for key, (_value, low, high) in found.items():
                    kind = _kind(key)
                    if kind is None or key not in truths:
                        continue
                    hit = tally.setdefault(f"validity.coverage.sts_table_{kind}{suffix}", [0, 0])
                    hit[0] += low <= truths[key] <= high
                    hit[1] += 1
    out: dict[str, Any] = {"validity.zero_width_intervals": float(zero)}
    for name, (hits, total) in sorted(tally.items()):
        out[name] = hits / total
    return out


if __name__ == "__main__":
    import json
    import sys
    import time

    start = time.perf_counter()
    print(json.dumps(simulate(0, 11), indent=2))
    print(f"{time.perf_counter() - start:.1f} s", file=sys.stderr)
