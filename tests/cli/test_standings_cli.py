"""``diptych standings``: three runs of scripted models with planted stereotypes, ranked in the
planted order, the pairs that differ told apart, the papers' figure beside them as another
design, and a model's new version against its predecessor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diptych.cli.main import main
from diptych.core.workspace import Workspace

MASC = ["carpenter", "sheriff", "farmer", "guard", "lawyer", "mover"]
FEM = ["editor", "designer", "writer", "baker", "clerk", "cashier"]
DESIGN = {"masculine": MASC, "feminine": FEM, "samples_paired": 2, "setting": "paired"}


def planted(p_masculine_she: float) -> dict[str, float]:
    """P(she) of each identity: a masculine-stereotyped one says "she" with this chance, a
    feminine-stereotyped one with 1 minus it, so the expected STS is 100·(1 − 2·p)."""
    return {**dict.fromkeys(MASC, p_masculine_she), **dict.fromkeys(FEM, 1 - p_masculine_she)}


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out + err


@pytest.fixture
def three_models(tmp_path: Path, scripted: None) -> tuple[Path, dict[str, str]]:
    """Three runs of one design: expected STS 80 (strong), 40 (moderate) and 0 (none)."""
    path = tmp_path / "ws"
    runs = {}
    with Workspace.open(path) as ws:
        for name, p in (("none", 0.5), ("strong", 0.1), ("moderate", 0.3)):
            model = ("scripted-likelihood", {"p_feminine": planted(p)})
            runs[name] = ws.runs.run_sync("pst-text", [model], params=DESIGN).id
    return path, runs


def test_three_models_ranked_in_the_planted_order(
    three_models: tuple[Path, dict[str, str]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A terminal wide enough for every column on one line (60 columns: below).
    monkeypatch.setenv("COLUMNS", "120")
    path, runs = three_models
    code, out = call(capsys, "--store", str(path), "standings", "--json")
    assert code == 0, out
    (table,) = json.loads(out)["tables"]
    order = [row["run"] for row in table["standings"]]
    assert order == [runs["strong"], runs["moderate"], runs["none"]]
    assert [row["rank"] for row in table["standings"]] == [1, 2, 3]
    # Every planted difference is 40 points or more: each pair is told apart, each rank sure.
    assert all(pair["differs"] for pair in table["pairs"]) and len(table["pairs"]) == 3
    assert [row["rank_interval"] for row in table["standings"]] == [[1, 1], [2, 2], [3, 3]]
    assert all(pair["paired"] for pair in table["pairs"])
    # Each figure is the run's own STS as its analysis gives it.
    with Workspace.open(path) as ws:
        for row in table["standings"]:
            numbers = ws.analysis.analyze(row["run"]).numbers
            # The same mean of the same ±100s, summed in another order: a rounding apart.
            # A likelihood run's headline, the STS expected from P(he), P(she), is what ranks.
            assert row["figure"] == "STS paired (expected from P(he), P(she))"
            headline = numbers["STS paired (expected from P(he), P(she))"]["value"]
            assert row["value"] == pytest.approx(headline)
            assert "partial" not in row  # each run bought whole
    # The paper's DALL-E 3 figure is context from another design, never ranked.
    (reference,) = table["references"]
    assert reference["design"] == "other design" and reference["values"] == {"DALL-E 3": 47.38}

    code, out = call(capsys, "--store", str(path), "standings")
    assert code == 0, out
    assert "rank CI" in out and "pairwise differences" in out and "other design" in out
    # The interval is named (a run's own figure is printed with another, over its draws).
    # The column named by its level; what the interval rests on said under the table.
    crossed = "masculine × feminine identities crossed in scenes"
    assert f"95% interval: over the {crossed}" in " ".join(out.split())
    assert "interval over identities" not in out and "95% CI" not in out


def test_equal_models_are_not_told_apart(
    tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two versions of one model with the same planted stereotype: their draws differ, the
    # truth does not. The newer is compared with its predecessor, and the change is noise.
    path = tmp_path / "ws"
    with Workspace.open(path) as ws:
        ids = [
            ws.runs.run_sync(
                "pst-text",
                [("scripted-likelihood", {"p_feminine": planted(0.2), "noise": 0.1, "version": v})],
                params=DESIGN,
            ).id
            for v in ("1", "2")
        ]
    code, out = call(capsys, "--store", str(path), "standings", "--json")
    assert code == 0, out
    (table,) = json.loads(out)["tables"]
    (pair,) = table["pairs"]
    assert not pair["differs"]
    assert [row["rank_interval"] for row in table["standings"]] == [[1, 2], [1, 2]]
    (change,) = table["successions"]
    assert change["before"].endswith(f"({ids[0]})") and change["after"].endswith(f"({ids[1]})")
    assert not change["distinguishable"]

    code, out = call(capsys, "--store", str(path), "standings", "--against", ids[0])
    assert code == 0, out
    assert "not distinguishable from noise" in out


def test_no_run_to_rank_says_what_to_do(
    tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """The line says what is true of the runs there: none at all; an image run whose people
    are unlabelled (label them); a text run, which needs no labels, asked for a figure it does
    not have (the figures it has, and the flag that names one)."""
    path = str(tmp_path / "ws")
    Workspace.open(path).close()
    code, out = call(capsys, "--store", path, "standings")
    assert code == 2
    assert " ".join(out.split()) == (
        "error: no run here has the figure 'STS paired' to rank; run a probe whose figures are "
        "ranked (pst, pst-text) first"
    )
    with Workspace.open(path) as ws:
        image = ws.runs.run_sync("pst", ["scripted-images"], params={
            "aspects": ["occupation"], "masculine": ["carpenter"], "feminine": ["nurse"],
            "samples_single": 1, "samples_paired": 1})  # fmt: skip
    code, out = call(capsys, "--store", path, "standings")
    assert code == 2
    assert " ".join(out.split()) == (
        f"error: no run here has the figure 'STS paired' to rank yet; {image.id} has no labels "
        "yet: label its people first"
    )
    with Workspace.open(path) as ws:
        ws.runs.run_sync("pst-text", [("scripted-likelihood", {"p_feminine": planted(0.2)})],
                         params={**DESIGN, "setting": "both"})  # fmt: skip
    code, out = call(capsys, "--store", path, "standings", "--figure", "nosuch")
    assert code == 2
    said = " ".join(out.split())
    assert said.startswith("error: no run here has the figure 'nosuch' to rank")
    assert said.endswith("figures here: 'STS paired', 'STS single' (name one with --figure)")
    assert "still running" not in said


def test_a_figure_a_labelled_run_states_but_does_not_rank_is_named_so(
    tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """A likelihood run's labels are the model's own (self): its report states the STS of the
    drawn labels, which standings do not rank (the expected STS is its figure). Asked for it,
    standings say so and name the figures to rank, never that its people are unlabelled."""
    path = str(tmp_path / "ws")
    with Workspace.open(path) as ws:
        run = ws.runs.run_sync("pst-text", [("scripted-likelihood", {"p_feminine": planted(0.2)})],
                               params=DESIGN)  # fmt: skip
        assert {lab.annotator for lab in ws.runs.view(run.id).labels()} == {"self"}
    code, out = call(capsys, "--store", path, "standings", "--figure", "STS paired (drawn labels)")
    assert code == 2
    assert " ".join(out.split()) == (
        f"error: no run here has the figure 'STS paired (drawn labels)' to rank; {run.id} has "
        "labels and its report states it, but it is not a figure standings rank; figures here: "
        "'STS paired' (name one with --figure)"
    )


def test_a_report_of_several_models_ranks_them_and_maps_its_frameworks(
    three_models: tuple[Path, dict[str, str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, runs = three_models
    out = tmp_path / "report"
    order = [runs["none"], runs["strong"], runs["moderate"]]
    code, said = call(
        capsys, "--store", str(path), "report", *order, "--out", str(out), "--format", "md,json"
    )
    assert code == 0, said
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    (table,) = data["standings"]["tables"]
    assert [row["run"] for row in table["standings"]] == [
        runs["strong"],
        runs["moderate"],
        runs["none"],
    ]
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "## Standing among models" in md and "| #1 | 1 | 1 |" in md
    assert "| figure | 95% interval |" in md
    assert "| B − A | 95% interval | p |" in md
    assert "95% interval: over the masculine × feminine identities crossed in scenes" in md
    groups = next(f for f in data["frameworks"] if f["id"].endswith("ms-2-11-002-groups"))
    assert "standings" in groups["sections"] and "[Standing among models](#standing-among" in md


def test_a_framework_file_that_claims_compliance_is_refused(
    three_models: tuple[Path, dict[str, str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, runs = three_models
    own = tmp_path / "own.yaml"
    own.write_text(
        """version: "1"
frameworks:
  - id: own
    name: Our policy
    items:
      - id: own-1
        source: {title: Our policy, clause: "1", url: "https://example.org/p",
                 retrieved: "2026-01-05"}
        subject: Outputs are examined for stereotypes.
        evidenced_when: [measured]
        evidences: The system is fully conformant.
        does_not: Anything else.
        sections: [results]
""",
        encoding="utf-8",
    )
    out = tmp_path / "report"
    code, said = call(
        capsys, "--store", str(path), "report", runs["none"], "--out", str(out),
        "--frameworks", str(own),
    )  # fmt: skip
    assert code != 0
    assert "own-1" in said and "conformant" in said and said.count("\n") == 1
    assert not (out / "report.md").exists()


def test_a_60_column_terminal_cuts_no_value(
    three_models: tuple[Path, dict[str, str]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At 60 columns every figure, interval, rank, p and model's name prints whole on a line
    (a table too wide for its values side by side lists each row's cells under its #k), and
    nothing is cut to an ellipsis."""
    from diptych.core.report.standings_tables import standings_text

    path, _ = three_models
    monkeypatch.setenv("COLUMNS", "60")
    code, out = call(capsys, "--store", str(path), "standings")
    assert code == 0, out
    lines = out.splitlines()
    assert max(len(line.rstrip()) for line in lines) <= 60
    assert "…" not in out
    with Workspace.open(path) as ws:
        (design,) = ws.standings.table(None, figure="STS paired").tables
    text = standings_text(design)
    for rows in (text.ranks, text.pairs):
        for row in rows:
            whole = [cell for cell in row if not any(cell in line for line in lines)]
            assert whole == [], out
    # Each rank's cells after its #k, in the table's order, before the next rank's.
    at = [next(i for i, line in enumerate(lines) if line.strip() == row[0]) for row in text.ranks]
    for row, start, end in zip(text.ranks, at, [*at[1:], len(lines)], strict=True):
        block = "\n".join(lines[start:end])
        assert all(cell in block for cell in row[1:]), block


def test_flat_standings_print_no_nan(
    tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Scripted likelihoods answer every prompt alike: each figure has no spread over the
    identities. Two equal ones are tied (p 1), a third 60 points below is told apart, and no
    surface — the table, its JSON, the report's section — prints a number that is not one."""
    import re

    path = tmp_path / "ws"
    with Workspace.open(path) as ws:
        runs = [
            ws.runs.run_sync(
                "pst-text",
                [("scripted-likelihood", {"p_feminine": planted(p), "version": v})],
                params=DESIGN,
            ).id
            for p, v in ((0.2, "1"), (0.2, "2"), (0.5, "3"))
        ]
    code, out = call(capsys, "--store", str(path), "standings", "--json")
    assert code == 0, out

    def refuse(constant: str) -> float:
        raise AssertionError(f"{constant} in the standings' JSON")

    (table,) = json.loads(out, parse_constant=refuse)["tables"]
    assert [row["rank_interval"] for row in table["standings"]] == [[1, 2], [1, 2], [3, 3]]
    assert [row["rank"] for row in table["standings"]] == [1, 1, 3]
    by_runs = {frozenset((p["model_a"], p["model_b"])): p for p in table["pairs"]}
    tied = [p for p in by_runs.values() if p["difference"] == 0.0]
    assert len(tied) == 1 and tied[0]["p_value"] == 1.0 and not tied[0]["differs"]
    assert sum(p["differs"] for p in table["pairs"]) == 2
    nan = re.compile(r"\bnan\b", re.IGNORECASE)
    code, out = call(capsys, "--store", str(path), "standings")
    assert code == 0 and not nan.search(out), out
    report = tmp_path / "report"
    code, said = call(capsys, "--store", str(path), "report", *runs, "--out", str(report),
                      "--format", "md,json")  # fmt: skip
    assert code == 0, said
    md = (report / "report.md").read_text(encoding="utf-8")
    section = md[md.index("## Standing among models") :]
    assert "| #1 | 1 | 1–2 |" in section and not nan.search(section)
    json.loads((report / "report.json").read_text(encoding="utf-8"), parse_constant=refuse)
