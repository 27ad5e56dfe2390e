"""A workspace with an audit's identity search whose session holds runs of three kinds: scored
proposals and a placebo word's run it made, and two runs stored before it that it read again
(the user's paired run, and a run an earlier agent session made). Its saved findings name every
one of them, one twice; the search's runs and trials are worked out here from the rows written."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from diptych.core.workspace import Workspace

#: The search, as an audit names its session, and an earlier agent session.
SEARCH = "audit-smollm2-offline-5c366747d6-identities"
EARLIER = "id-earlier01"


@dataclass(frozen=True)
class SearchCounts:
    """The search's runs (the ones it made, the ones it reused) and its trials, each once."""

    made: list[str]
    reused: list[str]
    trials: int
    done: int
    #: Done or refused: the trials with an outcome, as a plan counts those stored.
    finished: int

    @property
    def runs(self) -> int:
        return len(self.made) + len(self.reused)


def _paired(masculine: str) -> dict[str, object]:
    return {"setting": "paired", "masculine": [masculine], "feminine": ["nurse"]}


def search_workspace(path: Path) -> SearchCounts:
    """The workspace at ``path`` (the scripted plugin registered) and what its search holds."""
    with Workspace.open(path, create=True) as ws:
        mine = ws.runs.run_sync("pst-text", ["scripted-likelihood"], params={"setting": "paired"})
        with ws.runs.made_by(EARLIER):
            earlier = ws.runs.run_sync("pst-text", ["scripted-likelihood"], params=_paired("guard"))
        made = []
        with ws.runs.made_by(SEARCH):
            for word in (
                "carpenter",
                "driver",
                "lawyer",
            ):  # two proposals; the placebo word's stand-in
                made.append(ws.runs.run_sync("pst-text", ["scripted-likelihood"],
                                             params=_paired(word)).id)  # fmt: skip
            # Found again by their fingerprints: they stay where they were made.
            again = [
                ws.runs.run_sync("pst-text", ["scripted-likelihood"], params={"setting": "paired"}),
                ws.runs.run_sync("pst-text", ["scripted-likelihood"], params=_paired("guard")),
            ]
        assert [r.id for r in again] == [mine.id, earlier.id]
        ws.findings.save(
            SEARCH,
            {
                "kind": "identities",
                "decision": {"findings": 0, "text": "0 findings of 2 proposals scored"},
                "findings": [],
                "runs": [made[0], made[1], made[2], mine.id, earlier.id, made[0]],
                "stop_reason": "1 round done",
            },
        )
        reused = [mine.id, earlier.id]
        stored = {s.run.id: s for s in ws.runs.list()}
        ids = [*made, *reused]
        return SearchCounts(
            made,
            reused,
            sum(stored[r].run.n_trials for r in ids),
            sum(stored[r].counts["done"] for r in ids),
            sum(stored[r].counts["done"] + stored[r].counts["refused"] for r in ids),
        )
