"""What a ranking that knows nothing scores: the random-ranking baseline of the retrieval metrics.

MaxSkew@K, NDKL@K and |Bias@K| are above 0 for a ranking that ignores the groups altogether: on
PAIRS (4 groups of 50, K = 4) a random ranking has MaxSkew@4 = 0.71 and NDKL@4 = 0.95 on average.
A figure read without that baseline calls chance "bias". This module gives

* the **expectation of each per-query figure under a random ranking of the same list**: the top
  i of a random ranking is a multivariate hypergeometric draw of i items from the list, so the
  expectation is a finite sum over compositions. Every figure here is either a function of the
  top-K composition (MaxSkew, MinSkew, Bias) or a discounted sum over prefixes of functions of
  the top-i composition (NDKL and the SocialCounterfactuals code's variant), so by linearity it
  needs only the composition's distribution at each prefix length. Groups of equal size and
  equal desired share are interchangeable, so compositions are enumerated as partitions within
  each such class (a balanced pool of 12 groups at K = 12 has 77, not 1.35 million). Above
  :data:`EXACT_LIMIT` compositions the expectation is a seeded Monte Carlo average over
  :data:`MC_DRAWS` random rankings, and says so;
* a **permutation test** of the sharp null "the ranking is unrelated to the groups": the group
  (and gender) labels are permuted over the items of each pool — every query that ranks the
  same items is permuted together, so an occupation's wordings stay as correlated as they are —
  and the mean over queries is recomputed.

The figures' definitions are those of :mod:`diptych.core.metrics.retrieval.metrics`;
:func:`group_measures` computes them for a batch of rankings at once and is checked against
the per-query functions by the tests.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

#: The figures with a random-ranking baseline; ``min_skew`` is the SocialCounterfactuals
#: convention (an absent group's skew is 0), the one that has a finite mean.
NULL_MEASURES = ("max_skew", "min_skew", "ndkl", "sc_ndkl", "bias", "abs_bias")
#: Most compositions enumerated for one prefix length before falling back to Monte Carlo.
EXACT_LIMIT = 20_000
#: Random rankings drawn when the expectation is not enumerated.
MC_DRAWS = 20_000
#: Gender codes of the batch kernels.
MALE, FEMALE, OTHER = 0, 1, 2


def discounts(k: int) -> NDArray[np.float64]:
    """1 / log2(i + 1) for i = 1..k."""
    return 1.0 / np.log2(np.arange(2, k + 2, dtype=np.float64))


def group_measures(
    top: NDArray[np.int64], desired: NDArray[np.float64]
) -> dict[str, NDArray[np.float64]]:
    """Every group figure of a batch of rankings: ``top`` (B, K) holds group codes 0..G-1 of
    each ranking's top K, best first; ``desired`` (G,) or (B, G) the desired shares (0 for a
    group outside the desired distribution). Returns arrays of length B: ``max_skew``,
    ``min_skew_definition`` (−inf with an absent group), ``min_skew`` (absent as 0),
    ``ndkl``, ``sc_ndkl`` and ``absent`` (1.0 when a desired group is missing from the top K).

    Every prefix is taken at once from the cumulative counts, with the sums that
    KL(top-i ‖ desired) and the SocialCounterfactuals term are made of: with counts c_a summing
    to i,
    KL_i = (Σ c·ln c)/i − ln i − (Σ_j≤i ln p_{g_j})/i and
    SC_i = Σ_present p·ln c − ln i · Σ_present p − Σ_present p·ln p."""
    top = np.asarray(top, dtype=np.int64)
    b, k = top.shape
    p = np.asarray(desired, dtype=np.float64)
    p = np.broadcast_to(p, (b, p.shape[-1]))
    g = p.shape[1]
    valid = p > 0
    with np.errstate(divide="ignore"):
        log_p = np.where(valid, np.log(np.where(valid, p, 1.0)), -np.inf)
    p_log_p = np.where(valid, p * np.where(valid, log_p, 0.0), 0.0)
    # Every prefix at once: counts[:, i - 1, a] is group a's count among the top i.
    counts = np.cumsum(top[:, :, None] == np.arange(g), axis=1, dtype=np.int64)
    log_n = np.log(np.arange(1, k + 1, dtype=np.float64))
    c_log_c = np.concatenate([[0.0], np.arange(1, k + 1) * log_n])
    i = np.arange(1, k + 1, dtype=np.float64)
    sum_c_log_c = c_log_c[counts].sum(axis=2)
    sum_log_p = np.cumsum(np.take_along_axis(log_p, top, axis=1), axis=1)
    present = counts > 0
    with np.errstate(divide="ignore"):
        log_c = np.where(present, np.log(np.maximum(counts, 1)), 0.0)
    p3 = p[:, None, :]
    sum_p_log_c = (np.where(present, p3, 0.0) * log_c).sum(axis=2)
    p_present = np.where(present, p3, 0.0).sum(axis=2)
    p_log_p_present = np.where(present, p_log_p[:, None, :], 0.0).sum(axis=2)
    w = discounts(k)
    kl = sum_c_log_c / i - log_n - sum_log_p / i
    sc = sum_p_log_c - log_n * p_present - p_log_p_present
    ndkl = kl @ w
    sc_ndkl = sc @ w
    final = counts[:, -1, :]
    present_k = final > 0
    with np.errstate(divide="ignore"):
        skew = np.where(present_k, np.log(np.maximum(final, 1) / k) - log_p, -np.inf)
    sc_skew = np.where(present_k, skew, 0.0)
    return {
        "max_skew": np.where(valid, skew, -np.inf).max(axis=1),
        "min_skew_definition": np.where(valid, skew, np.inf).min(axis=1),
        "min_skew": np.where(valid, sc_skew, np.inf).min(axis=1),
        "ndkl": ndkl / w.sum(),
        "sc_ndkl": sc_ndkl / w.sum(),
        "absent": (valid & ~present_k).any(axis=1).astype(np.float64),
    }


def gender_measures(top: NDArray[np.int64]) -> dict[str, NDArray[np.float64]]:
    """Bias@K and |Bias@K| of a batch of top-K gender codes (B, K): MALE, FEMALE, OTHER."""
    top = np.asarray(top, dtype=np.int64)
    male = (top == MALE).sum(axis=1).astype(np.float64)
    female = (top == FEMALE).sum(axis=1).astype(np.float64)
    both = male + female
    bias = np.where(both > 0, (male - female) / np.where(both > 0, both, 1.0), 0.0)
    return {"bias": bias, "abs_bias": np.abs(bias)}


# --- the expectation under a random ranking ---------------------------------------------------


@dataclass(frozen=True)
class NullExpectation:
    """The expectation of each figure of one ranked list under a random ranking of it."""

    values: dict[str, float]
    #: "exact" (enumerated) or "permutation" (Monte Carlo, ``draws`` random rankings).
    method: str
    draws: int = 0
    #: Monte Carlo standard errors (empty when exact).
    mc_se: dict[str, float] = field(default_factory=dict)


def _partitions(total: int, parts: int, cap: int) -> list[tuple[int, ...]]:
    """Non-increasing tuples of exactly ``parts`` whole numbers in 0..cap summing to ``total``."""
    out: list[tuple[int, ...]] = []

    def walk(left: int, slots: int, most: int, acc: tuple[int, ...]) -> None:
        if slots == 0:
            if left == 0:
                out.append(acc)
            return
        if left > slots * most:
            return
        for x in range(min(most, left), -1, -1):
            walk(left - x, slots - 1, x, (*acc, x))

    walk(total, parts, cap, ())
    return out


def _arrangements(part: tuple[int, ...]) -> int:
    """How many distinct vectors the multiset ``part`` stands for."""
    out = math.factorial(len(part))
    for v in set(part):
        out //= math.factorial(part.count(v))
    return out


class _TooMany(Exception):
    pass


def _compositions(
    classes: Sequence[tuple[int, int]], i: int
) -> list[tuple[list[tuple[int, tuple[int, ...]]], int]]:
    """The top-i compositions of a list whose groups fall in ``classes`` (count, how many
    groups), as (per class: (class index, parts), number of draws giving it) — the draws count
    is Π C(count, x) over every group times the arrangements within each class."""
    states: list[tuple[int, list[tuple[int, tuple[int, ...]]], int]] = [(0, [], 1)]
    capacity = [c * m for c, m in classes]
    for j, (count, many) in enumerate(classes):
        room_after = sum(capacity[j + 1 :])
        new_states = []
        for total, acc, ways in states:
            low = max(0, i - total - room_after)
            for t in range(low, min(capacity[j], i - total) + 1):
                for part in _partitions(t, many, count):
                    w = _arrangements(part)
                    for x in part:
                        w *= math.comb(count, x)
                    new_states.append((total + t, [*acc, (j, part)], ways * w))
                    if len(new_states) > EXACT_LIMIT:
                        raise _TooMany
        states = new_states
    return [(acc, ways) for total, acc, ways in states if total == i]


@lru_cache(maxsize=1024)
def _exact_groups(signature: tuple[tuple[int, float, int], ...], k: int) -> dict[str, float] | None:
    """Exact expectations for a list whose groups are ``signature`` = (count, desired share,
    how many such groups); None when there are too many compositions."""
    classes = [(c, m) for c, _, m in signature]
    shares = [p for _, p, _ in signature]
    n = sum(c * m for c, m in classes)
    w = discounts(k)
    ndkl = sc_ndkl = 0.0
    out: dict[str, float] = {}
    try:
        for i in range(1, k + 1):
            total = math.comb(n, i)
            e_kl = e_sc = 0.0
            e_max = e_min = e_absent = 0.0
            for acc, ways in _compositions(classes, i):
                prob = ways / total
                kl = sc = 0.0
                skews: list[float] = []
                absent = False
                for j, part in acc:
                    p = shares[j]
                    for x in part:
                        if x == 0:
                            absent = True
                            continue
                        s = math.log(x / i / p)
                        kl += x / i * s
                        sc += p * s
                        skews.append(s)
                e_kl += prob * kl
                e_sc += prob * sc
                if i == k:
                    e_max += prob * max(skews)
                    e_min += prob * min([*skews, 0.0] if absent else skews)
                    e_absent += prob * absent
            ndkl += float(w[i - 1]) * e_kl
            sc_ndkl += float(w[i - 1]) * e_sc
            if i == k:
                out.update(max_skew=e_max, min_skew=e_min, absent=e_absent)
    except _TooMany:
        return None
    out.update(ndkl=float(ndkl / w.sum()), sc_ndkl=float(sc_ndkl / w.sum()))
    return out


@lru_cache(maxsize=1024)
def _exact_genders(male: int, female: int, other: int, k: int) -> tuple[float, float]:
    """E[Bias@K] and E[|Bias@K|] when the top K is a hypergeometric draw from the list."""
    total = math.comb(male + female + other, k)
    e_bias = e_abs = 0.0
    for m in range(0, min(male, k) + 1):
        for f in range(0, min(female, k - m) + 1):
            o = k - m - f
            if o > other:
                continue
            prob = math.comb(male, m) * math.comb(female, f) * math.comb(other, o) / total
            bias = 0.0 if m + f == 0 else (m - f) / (m + f)
            e_bias += prob * bias
            e_abs += prob * abs(bias)
    return e_bias, e_abs


@dataclass
class MonteCarloMeans:
    """Running sums of each figure over Monte Carlo draws, for the figures' means and the
    standard errors of those means."""

    sums: dict[str, float] = field(default_factory=dict)
    squares: dict[str, float] = field(default_factory=dict)

    def add(self, values: Mapping[str, NDArray[np.float64]]) -> None:
        """One batch of draws: every figure's value in each."""
        for name, v in values.items():
            self.sums[name] = self.sums.get(name, 0.0) + float(v.sum())
            self.squares[name] = self.squares.get(name, 0.0) + float((v * v).sum())

    def means_and_se(self, draws: int) -> tuple[dict[str, float], dict[str, float]]:
        """Each figure's mean over ``draws`` draws and its Monte Carlo standard error."""
        means = {name: s / draws for name, s in self.sums.items()}
        se = {
            name: math.sqrt(max(0.0, self.squares[name] / draws - means[name] ** 2) / draws)
            for name in self.sums
        }
        return means, se


@lru_cache(maxsize=256)
def _mc_groups(counts: tuple[int, ...], shares: tuple[float, ...], k: int, seed: int) -> tuple[
    dict[str, float], dict[str, float]
]:  # fmt: skip
    labels = np.repeat(np.arange(len(counts)), counts)
    rng = np.random.default_rng(seed)
    draws = MonteCarloMeans()
    chunk = max(1, min(MC_DRAWS, 2**22 // max(1, labels.size)))
    done = 0
    p = np.asarray(shares)
    while done < MC_DRAWS:
        b = min(chunk, MC_DRAWS - done)
        top = rng.permuted(np.broadcast_to(labels, (b, labels.size)), axis=1)[:, :k]
        draws.add(group_measures(top, p))
        done += b
    return draws.means_and_se(MC_DRAWS)


def random_ranking_expectation(
    groups: Sequence[str],
    genders: Sequence[str | None] | None,
    k: int,
    desired: str,
    *,
    seed: int = 0,
) -> NullExpectation:
    """The expectation of every figure of a query whose whole ranked list has ``groups`` (and
    ``genders``), under a random ranking of that list, at K (clamped to the list's length)
    against the ``desired`` distribution ("pool" or "uniform")."""
    from collections import Counter

    k = min(k, len(groups))
    counts = Counter(groups)
    n = len(groups)
    if desired == "pool":
        share = {g: c / n for g, c in counts.items()}
    elif desired == "uniform":
        share = {g: 1 / len(counts) for g in counts}
    else:
        raise ValueError(f"desired must be pool or uniform, got {desired!r}")
    # Interchangeable groups: same count and same desired share.
    classes = Counter((counts[g], share[g]) for g in counts)
    signature = tuple(sorted((c, p, m) for (c, p), m in classes.items()))
    values = _exact_groups(signature, k)
    method, draws = "exact", 0
    mc_se: dict[str, float] = {}
    if values is None:
        ordered = sorted(counts)
        values, errors = _mc_groups(
            tuple(counts[g] for g in ordered), tuple(share[g] for g in ordered), k, seed
        )
        mc_se = {name: se for name, se in errors.items() if name in NULL_MEASURES}
        method, draws = "permutation", MC_DRAWS
    out = {name: values[name] for name in ("max_skew", "min_skew", "ndkl", "sc_ndkl", "absent")}
    if genders is not None and any(g is not None for g in genders):
        tally = Counter("male" if g == "male" else "female" if g == "female" else "other"
                        for g in genders)  # fmt: skip
        out["bias"], out["abs_bias"] = _exact_genders(
            tally["male"], tally["female"], tally["other"], k
        )
    return NullExpectation(out, method, draws, mc_se)


# --- the permutation test -----------------------------------------------------------------------


@dataclass(frozen=True)
class PermutationQuery:
    """One query for the permutation test: the positions of its ranked items (best first)
    within its pool's item list, and K (clamped)."""

    pool: int
    positions: NDArray[np.int64]
    k: int
    has_gender: bool


@dataclass(frozen=True)
class PermutationPool:
    """The items one or more queries rank: a group code and a gender code per item and, when
    the labels are permuted within counterfactual sets, the set (0, 1, ...) of each item."""

    groups: NDArray[np.int64]
    genders: NDArray[np.int64]
    sets: NDArray[np.int64] | None = None


#: Most cells (permutations × listed items) gathered at once by the permutation test.
_MAX_CELLS = 2**22


def permutation_means(
    pools: Sequence[PermutationPool],
    queries: Sequence[PermutationQuery],
    n_groups: int,
    desired: str,
    n_perm: int,
    seed: int,
) -> dict[str, NDArray[np.float64]]:
    """``n_perm`` replicates of the mean over queries of every figure when the labels are
    permuted over each pool's items (all queries of a pool share one permutation) or, when
    the pools name their items' sets, within each counterfactual set. With sets, every query
    must list whole sets: the permutation then leaves each list's composition, and with it
    the desired shares, as they are, and only the top K is gathered."""
    rng = np.random.default_rng(seed)
    sizes = np.asarray([p.groups.size for p in pools])
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    by_set = any(p.sets is not None for p in pools)
    if by_set:
        if not all(p.sets is not None for p in pools):
            raise ValueError("name the sets of every pool's items or of none")
        # One block per set: set codes made distinct across pools.
        blocks, first = [], 0
        for p in pools:
            assert p.sets is not None
            blocks.append(p.sets + first)
            first += int(p.sets.max()) + 1 if p.sets.size else 0
        block = np.concatenate(blocks)
    else:
        block = np.repeat(np.arange(len(pools)), sizes)
    # Each block's places in item order; a draw puts a random order of the block's items there.
    slots = np.argsort(block, kind="stable")
    all_groups = np.concatenate([p.groups for p in pools])
    all_genders = np.concatenate([p.genders for p in pools])
    shapes: dict[tuple[int, int], list[PermutationQuery]] = {}
    for q in queries:
        shapes.setdefault((q.positions.size, q.k), []).append(q)
    fixed_share: dict[tuple[int, int], NDArray[np.float64]] = {}
    tables: dict[tuple[int, int], tuple[NDArray[np.int64], dict[str, NDArray[np.float64]]]] = {}
    if by_set:
        for key, members in shapes.items():
            index = np.stack([offsets[q.pool] + q.positions for q in members])
            fixed_share[key] = _shares(all_groups[index], n_groups, desired)
            if n_groups ** key[1] <= _TABLE_LIMIT:
                tables[key] = _figure_tables(fixed_share[key], n_groups, key[1])
    # Cells one permutation gathers; with sets only each top K is gathered, but the figures
    # of a top K take K × groups prefix counts.
    listed_cells = sum(q.k * n_groups if by_set else q.positions.size for q in queries)
    chunk = max(1, min(n_perm, _MAX_CELLS // max(1, listed_cells, block.size)))
    sums = {name: np.zeros(n_perm) for name in NULL_MEASURES}
    for start in range(0, n_perm, chunk):
        b = min(chunk, n_perm - start)
        # Sorting (block, uniform) keys shuffles every block at once, each within itself.
        keys = block[None, :] + rng.random((b, block.size))
        order = np.empty((b, block.size), dtype=np.int64)
        order[:, slots] = np.argsort(keys, axis=1, kind="stable")
        groups = all_groups[order]
        genders = all_genders[order]
        part = slice(start, start + b)
        for (n, k), members in shapes.items():
            index = np.stack([offsets[q.pool] + q.positions for q in members])
            if (n, k) in tables:
                # Every top K is one of G^K label sequences: look its figures up.
                which, table = tables[(n, k)]
                top = groups[:, index[:, :k]].transpose(1, 0, 2).reshape(-1, k)
                code = top @ (n_groups ** np.arange(k - 1, -1, -1))
                row = np.repeat(which, b)
                measures = {name: v[row, code] for name, v in table.items()}
            elif by_set:
                listed = groups[:, index[:, :k]].transpose(1, 0, 2).reshape(-1, k)
                measures = group_measures(listed, np.repeat(fixed_share[(n, k)], b, axis=0))
            else:
                listed = groups[:, index].transpose(1, 0, 2).reshape(-1, n)
                measures = group_measures(listed[:, :k], _shares(listed, n_groups, desired))
            for name in ("max_skew", "min_skew", "ndkl", "sc_ndkl"):
                sums[name][part] += measures[name].reshape(len(members), b).sum(axis=0)
            gendered = np.asarray([q.has_gender for q in members])
            if gendered.any():
                tops = genders[:, index[gendered, :k]].transpose(1, 0, 2).reshape(-1, k)
                for name, v in gender_measures(tops).items():
                    sums[name][part] += v.reshape(int(gendered.sum()), b).sum(axis=0)
    n_with_gender = sum(q.has_gender for q in queries)
    out = {}
    for name, total in sums.items():
        count = n_with_gender if name in ("bias", "abs_bias") else len(queries)
        if count:
            out[name] = total / count
    return out


#: Most label sequences (groups^K) whose figures are tabulated rather than computed per draw.
_TABLE_LIMIT = 4096


def _figure_tables(
    shares: NDArray[np.float64], n_groups: int, k: int
) -> tuple[NDArray[np.int64], dict[str, NDArray[np.float64]]]:
    """Each query's row among the distinct desired distributions, and per figure a table
    (distinct distributions × G^K) of its value for every top-K label sequence, read as a
    base-G number, most significant first."""
    distinct, which = np.unique(shares, axis=0, return_inverse=True)
    sequences = np.indices((n_groups,) * k).reshape(k, -1).T
    tables: dict[str, list[NDArray[np.float64]]] = {}
    for p in distinct:
        for name, v in group_measures(sequences, p).items():
            tables.setdefault(name, []).append(v)
    return which.ravel(), {name: np.stack(v) for name, v in tables.items()}


def _shares(listed: NDArray[np.int64], n_groups: int, desired: str) -> NDArray[np.float64]:
    """The desired shares of each listed ranking (rows of group codes)."""
    rows = np.arange(listed.shape[0])[:, None] * n_groups
    tally = np.bincount((listed + rows).ravel(), minlength=listed.shape[0] * n_groups)
    tally = tally.reshape(-1, n_groups)
    if desired == "pool":
        out: NDArray[np.float64] = tally / listed.shape[1]
        return out
    present = (tally > 0).astype(np.float64)
    uniform: NDArray[np.float64] = present / present.sum(axis=1, keepdims=True)
    return uniform


def permutation_p_value(observed: float, replicates: NDArray[np.float64], centre: float) -> float:
    """Two-sided permutation p-value: the share of replicates (and the observed one) at least as
    far from ``centre`` as the observed mean, (1 + #) / (1 + B)."""
    distance = abs(observed - centre)
    tol = 1e-12 * max(1.0, abs(observed), abs(centre))
    hits = int((np.abs(replicates - centre) >= distance - tol).sum())
    return (1 + hits) / (1 + replicates.size)
