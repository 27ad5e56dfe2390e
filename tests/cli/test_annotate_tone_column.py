"""The ``tone`` column of the labels template: written beside ``label`` where a skin-tone
annotator read the run, read back by ``--import`` as people's tone labels with the row's design,
and refused whole, naming the line and the value, when a cell is no Monk step."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from diptych.cli.main import main
from diptych.core.engine import run_probe
from diptych.core.labels import TONE, Label
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.testing import ScriptedImageGenerator, ScriptedParams

LISTS = {"aspects": ["occupation"], "masculine": ["carpenter", "farmer"],
         "feminine": ["editor", "nurse"]}  # fmt: skip
GAP = "occupation: tone gap paired, prediction-powered"
# People's tone of each identity (the planted truth).
TRUTH = {"carpenter": 8, "farmer": 7, "editor": 3, "nurse": 2}


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out + err


def _run(ws: Path, *, toned: bool = True) -> tuple[str, int]:
    """A pst run whose every person the annotators read: gender as stereotyped and, if
    ``toned``, a skin tone of step 5 or 6 that says nothing of the identity; its size."""
    with open_store(ws) as store:
        run = run_probe(
            store, "pst", [ScriptedImageGenerator(ScriptedParams())], probe_params=LISTS
        )
        people = [s for s in store.run_subjects(run.id) if s["status"] == "done"]
        store.save_annotations(
            (s["subject_id"], "faces", Label(s["position"], s["meta"]["stereotype"], 0.9))
            for s in people
        )
        if toned:
            store.save_annotations(
                (s["subject_id"], "skin-tone",
                 Label(s["position"], f"monk-{5 + i % 2}", 0.8, dimension=TONE))
                for i, s in enumerate(people)
            )  # fmt: skip
    return run.id, len(people)


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _write(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _tones(ws: Path, run_id: str) -> list[Label]:
    with open_store(ws) as store:
        return [lab for lab in store.labels(run_id, dimension=TONE) if lab.kind == "human"]


def test_a_run_no_tone_annotator_read_has_no_tone_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_id, _ = _run(tmp_path / "ws", toned=False)
    path = tmp_path / "labels.csv"
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "annotate", run_id,
                     "--template", str(path))  # fmt: skip
    assert code == 0, out
    assert "tone" not in _rows(path)[0]


def test_a_drawn_census_of_tones_gives_peoples_gap_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    run_id, population = _run(ws)
    path = tmp_path / "batch.csv"
    # A uniform sample of everyone: each person drawn with probability 1.
    code, out = call(
        capsys, "--store", str(ws), "annotate", run_id, "--template", str(path),
        "--sample", str(population), "--design", "uniform", "--seed", "3",
    )  # fmt: skip
    assert code == 0, out
    rows = _rows(path)
    assert list(rows[0])[:9] == ["image", "setting", "position", "identity", "stereotype",
                                 "label", "annotator", "run", "tone"]  # fmt: skip
    assert len(rows) == population and {r["tone"] for r in rows} == {""}
    for r in rows:
        r["label"] = r["stereotype"]
        r["tone"] = str(TRUTH[r["identity"]])
    # One person of a single image not judged: no tone label (the paired figures below are
    # everyone's; a person left out is read through the annotator, as any unlabelled one).
    next(r for r in rows if r["setting"] == "single")["tone"] = ""
    _write(path, rows)
    code, out = call(capsys, "--store", str(ws), "annotate", run_id, "--import", str(path))
    assert code == 0, out
    assert f"{population} labels and {population - 1} skin tones from batch.csv" in out
    tones = _tones(ws, run_id)
    assert len(tones) == population - 1
    assert {(t.design.design, t.design.probability) for t in tones if t.design} == {
        ("uniform", 1.0)
    }
    with Workspace.open(ws) as workspace:
        numbers = workspace.analysis.analyze(run_id).numbers
    # Everyone of the paired images is labelled: the corrected gap is people's mean step of
    # the masculine-stereotyped persons less the feminine-stereotyped persons'.
    paired = [r for r in rows if r["setting"] == "paired" and r["tone"]]
    mean = {
        g: sum(int(r["tone"]) for r in paired if r["stereotype"] == g)
        / sum(1 for r in paired if r["stereotype"] == g)
        for g in ("masculine", "feminine")
    }
    gap = numbers[GAP]
    assert gap["value"] == pytest.approx(mean["masculine"] - mean["feminine"], abs=1e-9)
    assert gap["n_labelled"] == len(paired) and gap["by_design"] == {"uniform": len(paired)}
    dark = numbers["occupation: tone share Monk 8–10, paired, prediction-powered"]
    carpenters = sum(1 for r in paired if r["identity"] == "carpenter")
    assert dark["value"] == pytest.approx(carpenters / len(paired), abs=1e-9)


@pytest.mark.parametrize("bad", ["11", "0", "3.5", "monk-3", "dark"])
def test_a_tone_that_is_no_monk_step_refuses_the_file_and_stores_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: str
) -> None:
    ws = tmp_path / "ws"
    run_id, _ = _run(ws)
    path = tmp_path / "labels.csv"
    code, out = call(capsys, "--store", str(ws), "annotate", run_id, "--template", str(path))
    assert code == 0, out
    rows = _rows(path)
    for r in rows:
        r["label"], r["tone"] = r["stereotype"], "4"
    rows[2]["tone"] = bad
    _write(path, rows)
    code, out = call(capsys, "--store", str(ws), "annotate", run_id, "--import", str(path))
    assert code != 0
    # Line 4: the header is line 1, the third row line 4.
    message = [line for line in out.splitlines() if line.strip()]
    assert len(message) == 1, out
    assert "line 4, column tone" in message[0] and repr(bad) in message[0]
    assert "nothing of it was stored" in message[0]
    assert _tones(ws, run_id) == []
    with open_store(ws) as store:
        assert not [lab for lab in store.labels(run_id) if lab.kind == "human"]
