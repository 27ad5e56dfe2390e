"""A pst-text run's tables carry the uncertainty of the units that vary, as its headline does:
the STS of each stereotyped gender resamples that gender's identities (and, paired, their
partners), and an identity's paired STS resamples its partners, each with all its draws. The
intervals are worked out here again from the stored labels with numpy's own bootstrap."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.special import expit, logit
from scipy.stats import t as student_t

from diptych.core.engine import run_probe
from diptych.core.labels import SubjectLabel
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.testing import ScriptedLikelihood, ScriptedParams

#: Identities that differ, so that the identities, not only the draws, move the figures.
PLANTED = {
    "carpenter": 0.05, "sheriff": 0.3, "guard": 0.15, "farmer": 0.45,
    "nurse": 0.9, "editor": 0.55, "secretary": 0.8, "librarian": 0.65,
}  # fmt: skip
MASCULINE = ["carpenter", "sheriff", "guard", "farmer"]
FEMININE = ["nurse", "editor", "secretary", "librarian"]


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, list[SubjectLabel]]:
    ws_path: Path = tmp_path_factory.mktemp("identity_intervals") / "ws"
    model = ScriptedLikelihood(ScriptedParams(p_feminine=PLANTED))
    with open_store(ws_path) as store:
        run = run_probe(store, "pst-text", [model], probe_params={
            "masculine": MASCULINE, "feminine": FEMININE,
            "samples_paired": 3, "samples_single": 5,
        })  # fmt: skip
        labels = store.labels(run.id)
    with Workspace.open(ws_path) as ws:
        result = ws.analysis.analyze(run.id)
    return result, labels


def _stereo(lab: SubjectLabel) -> float:
    return 1.0 if lab.label == lab.subject_meta["stereotype"] else -1.0


def _bootstrap_se(units: dict[str, list[float]], seed: int) -> float:
    """The se of the mean of every observation when the units are drawn with replacement
    (numpy's generator), with the bootstrap's (G − 1)/G bias removed."""
    rng = np.random.default_rng(seed)
    names = sorted(units)
    sums = np.array([sum(units[n]) for n in names])
    counts = np.array([len(units[n]) for n in names])
    g = len(names)
    draws = rng.integers(0, g, size=(20_000, g))
    replicates = sums[draws].sum(axis=1) / counts[draws].sum(axis=1)
    return float(replicates.std(ddof=1) * math.sqrt(g / (g - 1)) * 100)


def _logit_interval(value: float, se: float, df: float) -> tuple[float, float]:
    """value ± t(df)·se on the logit scale of [−100, 100], mapped back (the delta method)."""
    p = (value + 100) / 200
    half = student_t.ppf(0.975, df) * se / (200 * p * (1 - p))
    return tuple(200 * expit(logit(p) + s * half) - 100 for s in (-1, 1))  # type: ignore[return-value]


def _cell(text: str) -> tuple[float, float]:
    low, high = (float(x.replace("−", "-")) for x in text.strip("[]").split(","))
    return low, high


def test_sts_by_stereotyped_gender_resamples_the_identities(
    ran: tuple[Any, list[SubjectLabel]],
) -> None:
    result, labels = ran
    table = next(t for t in result.tables if t.title.startswith("STS by stereotyped gender"))
    rows = {r[0]: dict(zip(table.columns, r, strict=True)) for r in table.rows}
    for gender, names in (("masculine", MASCULINE), ("feminine", FEMININE)):
        # Single: each identity of the gender is one unit holding its five draws.
        by_identity: dict[str, list[float]] = defaultdict(list)
        for lab in labels:
            if lab.trial_meta["setting"] == "single" and lab.subject_meta["stereotype"] == gender:
                by_identity[lab.subject_meta["identity"]].append(_stereo(lab))
        assert sorted(by_identity) == sorted(names)
        value = 100 * np.mean([v for vs in by_identity.values() for v in vs])
        se = _bootstrap_se(by_identity, seed=1)
        low, high = _logit_interval(value, se, df=len(names) - 1)
        row = rows[gender]
        assert row["STS single"] == pytest.approx(value)
        shown = _cell(row["single 95% CI"])
        assert shown == pytest.approx((low, high), abs=0.6), (gender, shown, (low, high))
    assert "resamples both identity lists" in (table.note or "")


def _crossed_se(cells: dict[tuple[str, str], list[float]], seed: int) -> tuple[float, bool]:
    """The se of a crossed mean worked out as Owen (2007) and the resampling module's docstring
    put it: rows resampled alone plus columns alone, less the interaction both count (the
    residual mean square of an additive least-squares fit of the cell means, over the K
    cells), floored at the cells' own variance; and whether the lists, not the floor, decided."""
    rows = sorted({r for r, _ in cells})
    cols = sorted({c for _, c in cells})
    by_row = {r: [v for (rr, _), vs in cells.items() if rr == r for v in vs] for r in rows}
    by_col = {c: [v for (_, cc), vs in cells.items() if cc == c for v in vs] for c in cols}
    v_rows = (_bootstrap_se(by_row, seed) / 100) ** 2
    v_cols = (_bootstrap_se(by_col, seed + 1) / 100) ** 2
    v_cells = (_bootstrap_se({f"{r}|{c}": v for (r, c), v in cells.items()}, seed + 2) / 100) ** 2
    keys = sorted(cells)
    design = np.array(
        [[1.0] + [float(r == x) for x in rows[1:]] + [float(c == y) for y in cols[1:]]
         for r, c in keys]
    )  # fmt: skip
    means = np.array([np.mean(cells[k]) for k in keys])
    fitted = design @ np.linalg.lstsq(design, means, rcond=None)[0]
    k = len(keys)
    v_inter = float(((means - fitted) ** 2).sum()) / (k - len(rows) - len(cols) + 1) / k
    crossed = v_rows + v_cols - v_inter
    return 100 * math.sqrt(max(crossed, v_cells)), crossed > v_cells


def test_sts_by_stereotyped_gender_paired_crosses_both_lists(
    ran: tuple[Any, list[SubjectLabel]],
) -> None:
    result, labels = ran
    table = next(t for t in result.tables if t.title.startswith("STS by stereotyped gender"))
    rows = {r[0]: dict(zip(table.columns, r, strict=True)) for r in table.rows}
    decided: dict[str, bool] = {}
    for gender in ("masculine", "feminine"):
        # A gender's paired persons sit in cells of (masculine, feminine) identity.
        cells: dict[tuple[str, str], list[float]] = defaultdict(list)
        for lab in labels:
            meta = lab.trial_meta
            if meta["setting"] != "paired" or lab.subject_meta["stereotype"] != gender:
                continue
            pair = (
                (meta["id1"], meta["id2"]) if meta["order"] == "mf" else (meta["id2"], meta["id1"])
            )
            cells[pair].append(_stereo(lab))
        assert len(cells) == 16 and {len(v) for v in cells.values()} == {6}
        value = 100 * np.mean([v for vs in cells.values() for v in vs])
        se, lists_decide = _crossed_se(cells, seed=4)
        # Where the identities decide, the df is the smaller list's less one (4 − 1); where
        # they vary no more than the 16 pairings do, the pairings' (16 − 1).
        low, high = _logit_interval(value, se, df=3 if lists_decide else 15)
        decided[gender] = lists_decide
        assert rows[gender]["STS paired"] == pytest.approx(value)
        shown = _cell(rows[gender]["paired 95% CI"])
        assert shown == pytest.approx((low, high), abs=0.6), (gender, shown, (low, high))
    # These draws exercise both: the pairings decide for one gender, the identities for the other.
    assert sorted(decided.values()) == [False, True], decided


def test_an_identitys_paired_sts_resamples_its_partners(
    ran: tuple[Any, list[SubjectLabel]],
) -> None:
    result, labels = ran
    micro = next(t for t in result.tables if t.title.startswith("Micro STS per identity"))
    rows = {r[0]: dict(zip(micro.columns, r, strict=True)) for r in micro.rows}
    for identity in MASCULINE + FEMININE:
        by_partner: dict[str, list[float]] = defaultdict(list)
        for lab in labels:
            meta = lab.trial_meta
            if meta["setting"] != "paired" or lab.subject_meta["identity"] != identity:
                continue
            partner = meta["id2"] if meta["id1"] == identity else meta["id1"]
            by_partner[partner].append(_stereo(lab))
        # Four partners, each in both orders three times.
        assert sorted(len(v) for v in by_partner.values()) == [6, 6, 6, 6]
        value = 100 * np.mean([v for vs in by_partner.values() for v in vs])
        assert rows[identity]["STS paired"] == pytest.approx(value)
        se = _bootstrap_se(by_partner, seed=3)
        if se == 0 or abs(value) == 100:
            continue  # no spread: the open Clopper–Pearson end, checked elsewhere
        low, high = _logit_interval(value, se, df=3)
        shown = _cell(rows[identity]["paired 95% CI"])
        assert shown == pytest.approx((low, high), abs=0.6), (identity, shown, (low, high))
    assert "resamples the identity's partners" in (micro.note or "")
