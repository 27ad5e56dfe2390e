"""What an agent session spent says what is known (``diptych agent identities|mitigate``, their
``--json``): the priced requests in dollars, the unpriced ones counted as "not priced", never
"$0.00" for calls that cost an unknown amount; and ``--max-cost`` counts dollars at declared
prices only, as its help says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.agent_cli import call, identities, use_hashing_memory

from diptych.agent.scoring import Budget, spent_text
from diptych.core.cost import Cost, cost_text


@pytest.fixture
def fast_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    use_hashing_memory(monkeypatch)


LEXICON = "--agent-model scripted-chat --proposer lexicon --allow-new --rounds 1 --per-round 1"


def test_unpriced_agent_and_target_spend_not_priced_never_zero_dollars(
    scripted: None, fast_memory: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = identities(capsys, tmp_path / "ws", *LEXICON.split())
    assert code == 0, err
    first = out.splitlines()[0]
    assert "$0.00" not in out and "spent not priced" in first, first
    code, out, err = identities(capsys, tmp_path / "ws2", *LEXICON.split(), "--json")
    assert code == 0, err
    budget = json.loads(out)["budget"]
    assert budget["spent"] == 0.0 and budget["spent_text"].startswith("not priced")
    # Every target request the session made is counted, though none has a price.
    assert budget["cost"]["unpriced_requests"] >= budget["trials"] > 0
    assert budget["cost"]["priced_requests"] == 0


def test_a_priced_agent_on_an_unpriced_target_says_both_parts(
    scripted: None, fast_memory: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    words = "--agent-model scripted-chat -A price_per_call=0.25 --proposer hybrid --allow-new"
    code, out, err = identities(
        capsys, tmp_path / "ws", *words.split(), "--rounds", "1", "--per-round", "1", "--json"
    )
    # The scripted agent answers "{}": the lexicon fills the round, and the session exits 1
    # saying no proposal came from the agent; its call was paid all the same.
    assert code == 1 and "no proposal came from the agent" in err, err
    budget = json.loads(out)["budget"]
    assert budget["spent"] == pytest.approx(0.25)
    assert (
        budget["spent_text"].startswith("$0.25 + ")
        and "requests not priced" in (budget["spent_text"])
    )
    assert budget["cost"]["priced_requests"] == 1 and budget["cost"]["unpriced_requests"] > 0


def test_max_cost_counts_only_priced_requests_and_its_help_says_so(
    scripted: None, fast_memory: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Every request unpriced: a budget of one cent refuses nothing, and the spend says why.
    code, out, err = identities(capsys, tmp_path / "ws", *LEXICON.split(), "--max-cost", "0.01")
    assert code == 0, err
    assert "over budget" not in out and "spent not priced" in out.splitlines()[0], out
    for command in ("identities", "mitigate"):
        code, out, err = call(capsys, "agent", command, "--help")
        assert code == 0, err
        assert "counts nothing toward it" in " ".join(out.replace("│", " ").split()), out


def test_mitigate_prints_its_spend(
    scripted: None, fast_memory: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from diptych.core.workspace import Workspace

    masculine = ["carpenter", "driver", "farmer", "lawyer"]
    feminine = ["nurse", "editor", "baker", "clerk"]
    with Workspace.open(tmp_path / "ws") as ws:
        target = ws.plugins.model("scripted-likelihood")
        base = ws.runs.run_sync(
            "pst-text",
            [target],
            params={"masculine": masculine, "feminine": feminine, "setting": "paired"},
        )
    code, out, err = call(
        capsys, "--store", str(tmp_path / "ws"), "agent", "mitigate", base.id,
        "--agent-model", "scripted-chat",
    )  # fmt: skip
    assert code == 0, err
    first = out.splitlines()[0]
    assert "; spent not priced" in first and "$0.00" not in out, first


def test_a_budget_keeps_its_unpriced_requests_across_a_resume() -> None:
    budget = Budget(max_cost=1.0)
    budget.charge(Cost(0.5, priced=2, kinds={"priced"}))
    budget.charge(Cost(0.0, unpriced=3, local=3))
    saved = json.loads(json.dumps(budget.to_dict()))
    again = Budget.resumed(1.0, None, saved).spent
    assert (float(again), again.priced, again.unpriced, again.local) == (0.5, 2, 3, 3)
    assert (
        spent_text(saved)
        == cost_text(budget.spent)
        == ("$0.50 + 3 requests computed on this machine")
    )
    # A record of dollars alone (written before the counts) reads as dollars.
    assert spent_text({"spent": 0.3, "trials": 4}) == "$0.30"


def test_the_spend_line_counts_the_requests_of_its_runs_as_requests(
    scripted: None, fast_memory: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The count --max-requests caps, named as it: never "trials", which a run's rows count.
    code, out, err = identities(capsys, tmp_path / "ws", *LEXICON.split(), "--json")
    assert code == 0, err
    asked = json.loads(out)["budget"]["trials"]
    assert asked > 0
    code, out, err = identities(capsys, tmp_path / "ws2", *LEXICON.split())
    assert code == 0, err
    first = out.splitlines()[0]
    assert first.endswith(f"; its runs asked {asked:,} requests"), first
    assert "trial" not in first, first
