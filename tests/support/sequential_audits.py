"""An audit file of one paired ``pst-text`` part on the scripted likelihood model, with a planted
bias: the audits the ``--until-decided`` tests buy batch by batch."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

#: The figure their gates read.
FIGURE = "STS paired (expected from P(he), P(she))"


def planted_audit(
    path: Path,
    gates: list[dict[str, Any]],
    masculine: Sequence[str],
    feminine: Sequence[str],
    *,
    name: str,
    seed: int,
    model_params: dict[str, Any] | None = None,
    **extra: Any,
) -> Path:
    """Write the audit to ``path``. Masculine-stereotyped identities get P(she) near 0.2,
    feminine ones near 0.8 (noise ±0.3 a prompt): a paired expected STS near 60."""
    planted = {**{m: 0.2 for m in masculine}, **{f: 0.8 for f in feminine}}
    params = {"p_feminine": planted, "noise": 0.3, **(model_params or {})}
    data = {
        "name": name,
        "seed": seed,
        "models": {"target": {"plugin": "scripted-likelihood", "params": params}},
        "probes": [
            {
                "probe": "pst-text",
                "models": ["target"],
                "params": {
                    "masculine": list(masculine),
                    "feminine": list(feminine),
                    "setting": "paired",
                },
            }
        ],
        "report": {"formats": ["json"]},
        "gates": gates,
        **extra,
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def gated_below_95(directory: Path, name: str) -> str:
    """``a.yaml`` in ``directory``: :func:`planted_audit` of :data:`MASC` and :data:`FEM`, seed 2,
    its figure gated below 95 (a paired expected STS near 60 passes it); the file's path."""
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    return str(planted_audit(directory / "a.yaml", gates, MASC, FEM, name=name, seed=2))


#: Six identities a list: a null pst-text design its gate on FIGURE decides at the first look.
MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
LISTS = ["-p", "masculine=" + ",".join(MASC), "-p", "feminine=" + ",".join(FEM)]


def design(*model: str, lists: Sequence[str] = LISTS) -> list[str]:
    """``diptych run``'s words for the null design of ``lists`` on the scripted model."""
    return ["pst-text", "-m", "scripted-likelihood", *model, "-p", "setting=both", *lists]


def until_decided(*model: str, lists: Sequence[str] = LISTS) -> list[str]:
    """``diptych run``'s words that buy :func:`design` until its gate is decided (4 batches)."""
    return ["run", *design(*model, lists=lists), "--gate", f"{FIGURE} below 60", "--until-decided",
            "--batches", "4"]  # fmt: skip


def decided_at_first_look(capsys: Any, ws: str, *model: str, lists: Sequence[str] = LISTS) -> str:
    """Run the null design of :data:`LISTS` on the scripted model (with ``model``'s ``-M``
    words) until its gate is decided (at look 1 of 4, no bias planted); the run's id."""
    import re

    from tests.support.cli import call

    code, out = call(capsys, "--store", ws, *until_decided(*model, lists=lists))
    assert code == 0, out
    said = re.search(r"^run (\S+) decided at look 1 of 4: ", out, re.M)
    assert said is not None, out
    return said[1]


def decided_single_without_interval(capsys: Any, ws: str, *model: str) -> str:
    """:func:`design` bought in 8 batches until its gate is decided, at look 1 of 8, where that
    look read the single setting's STS (:data:`SINGLE`) of one masculine identity only, and
    so without an interval; the run's id."""
    import re

    from tests.support.cli import call

    words = [*until_decided(*model)[:-1], "8"]
    code, out = call(capsys, "--store", ws, *words)
    assert code == 0, out
    said = re.search(r"^run (\S+) decided at look 1 of 8: ", out, re.M)
    assert said is not None, out
    return said[1]


#: The figure of the single setting, which no gate reads.
SINGLE = "STS single (expected from P(he), P(she))"


def file_decided_and_bought_on(capsys: Any, tmp_path: Path) -> tuple[str, str, str]:
    """The audit file of one gated part (:func:`planted_audit`, answers slow enough for a stop
    to land) run ``--until-decided`` into ``tmp_path/ws`` and decided, then its run bought on
    and stopped part way (Ctrl-C on ``diptych resume``): the workspace, the file, the run."""
    from diptych.core.workspace import Workspace
    from tests.support.cli import call
    from tests.support.stopped_runs import bought_on_and_interrupted

    ws = str(tmp_path / "ws")
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    file = str(planted_audit(tmp_path / "a.yaml", gates, MASC, FEM, name="bought-on", seed=2,
                             model_params={"latency": 0.01}))  # fmt: skip
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--until-decided",
                     "--batches", "4", "--quiet")  # fmt: skip
    assert code == 0, out
    with Workspace.open(ws) as opened:
        ((run_id,),) = [[p.run_id for p in a.parts] for a in opened.audits.list()]
        assert run_id is not None and opened.runs.get(run_id).status == "decided"
        assert opened.audits.decided_runs(opened.audits.list()[0].id) == [run_id]
    bought_on_and_interrupted(ws, run_id)
    return ws, file, run_id


def decided_at_look_two_then_bought_whole(
    capsys: Any, tmp_path: Path, ws: str, report: Path
) -> tuple[Path, str]:
    """:func:`planted_audit` of :data:`MASC` and :data:`FEM`, seed 2, gated below 70, bought
    ``--until-decided`` in 4 batches (decided at look 2 of 4) and then run whole (its complete
    design look 3) into ``ws``, its report (json, md) in ``report``: the file and its run."""
    from diptych.core.workspace import Workspace
    from tests.support.cli import call

    gate = {"part": "pst-text", "figure": FIGURE, "below": 70}
    file = planted_audit(tmp_path / "a.yaml", [gate], MASC, FEM, name="three", seed=2,
                         report={"formats": ["json", "md"]})  # fmt: skip
    run = ["--store", ws, "audit", "run", str(file), "--out", str(report)]
    code, out = call(capsys, *run, "--until-decided", "--batches", "4")
    assert code == 0 and "decided at look 2 of 4" in out, out
    code, out = call(capsys, *run, "--yes")
    assert code == 0, out
    with Workspace.open(ws) as opened:
        ((run_id,),) = [[p.run_id for p in a.parts] for a in opened.audits.list()]
    assert run_id is not None
    return file, run_id


#: Two identities of each of :data:`LISTS`' lists: a design whose requests are some of its.
EARLIER = ["-p", "masculine=carpenter,farmer", "-p", "feminine=nurse,editor"]


def decided_on_reused(capsys: Any, ws: str) -> tuple[str, set[str]]:
    """:func:`design` of :data:`EARLIER` run whole, then :func:`decided_at_first_look`, which
    reuses its answers (shared by request): the decided run's id and the requests the earlier
    run stored."""
    import re
    import sqlite3

    from tests.support.cli import call

    code, out = call(capsys, "--store", ws, "run", *design(lists=EARLIER))
    assert code == 0, out
    earlier = re.search(r"^run (\S+) complete", out, re.M)
    assert earlier is not None, out
    with sqlite3.connect(Path(ws) / "diptych.db") as db:
        rows = db.execute(
            "SELECT DISTINCT r.key FROM results r JOIN trials t ON t.key = r.key"
            " WHERE t.run_id = ?",
            (earlier[1],),
        ).fetchall()
    return decided_at_first_look(capsys, ws), {key for (key,) in rows}


def stored_answers(ws: str, run_id: str, column: str = "output") -> dict[str, Any]:
    """The run's requests with a stored answer, each with ``column`` of its result (its
    ``output``, or when it was stored, ``finished_at``)."""
    import sqlite3

    assert column in ("output", "finished_at"), column
    with sqlite3.connect(Path(ws) / "diptych.db") as db:
        rows = db.execute(
            f"SELECT DISTINCT r.key, r.{column} FROM results r JOIN trials t ON t.key = r.key"
            " WHERE t.run_id = ?",
            (run_id,),
        ).fetchall()
    return dict(rows)


def lose_answer(ws: str, run_id: str, key: str) -> None:
    """Delete the stored answer to request ``key`` (as a damaged store loses it), and check the
    run finds that answer, and only it, lost."""
    import sqlite3

    from diptych.core.workspace import Workspace

    with sqlite3.connect(Path(ws) / "diptych.db") as db:
        db.execute("DELETE FROM results WHERE key = ?", (key,))
    with Workspace.open(Path(ws)) as opened:
        assert opened.runs.lost_answers(run_id) == [key]
