"""An agent search's cap counts requests bought, as the audit's ``budget.max_requests`` does:
trials already stored (or sharing one request) cost nothing and never count against it. The
cap is named ``max_requests`` (``--max-requests``); the former ``max_trials`` is read as the
same, and both at once is one clear error."""

from __future__ import annotations

import warnings

import pytest

from diptych.agent.identities import IdentitySettings
from diptych.agent.paraphrases import paraphrases
from diptych.agent.scoring import Budget, measure_claims
from diptych.core.audit.schema import Search
from tests.support.cli import call

PARTNERS = {
    "masculine": ["carpenter", "driver", "farmer"],
    "feminine": ["nurse", "editor", "baker"],
}


def _measured(ws, target, budget: Budget, identity: str = "pilot"):  # type: ignore[no-untyped-def]
    return measure_claims(
        ws, "pst-text", target, [(identity, "masculine")], PARTNERS,
        paraphrases("likelihood_paired", "search")[:2], budget, samples=1, seed=0,
    )  # fmt: skip


def test_trials_already_stored_do_not_count_against_the_cap(ws) -> None:  # type: ignore[no-untyped-def]
    target = ws.plugins.model(("scripted-likelihood", {"p_feminine": {"pilot": 0.3}}))
    first = _measured(ws, target, Budget())
    assert first.scored
    # The same claim again: every trial is stored, so nothing is bought and one request is
    # room enough; the session counts none.
    capped = Budget(max_requests=1)
    again = _measured(ws, target, capped)
    assert again.scored and capped.trials == 0
    assert again.parts == first.parts
    # A claim not yet asked needs requests of its own: one is not enough, said in requests.
    over = Budget(max_requests=1)
    new = _measured(ws, target, over, identity="welder")
    assert not new.scored and over.trials == 0
    assert "more requests than --max-requests allows" in (new.reason or ""), new.reason


def test_the_former_name_is_read_as_the_same_and_both_is_an_error() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = IdentitySettings(session="s", max_trials=40)
    assert old.max_requests == 40 and old.max_trials is None
    assert any("max_requests" in str(w.message) for w in caught)
    with pytest.raises(
        ValueError, match="^max_trials is the former name of max_requests; give one$"
    ):
        IdentitySettings(session="s", max_trials=40, max_requests=40)
    search = {"name": "s", "kind": "identities", "agent_model": "a", "target": "m"}
    assert Search.model_validate({**search, "max_trials": 7}).max_requests == 7
    with pytest.raises(ValueError, match="max_trials is the former name of max_requests"):
        Search.model_validate({**search, "max_trials": 7, "max_requests": 7})


def test_the_cli_names_requests_and_refuses_both_flags(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = call(capsys, "agent", "identities", "--help")
    assert code == 0 and "--max-requests" in out and "requests" in out, out
    code, out = call(capsys, "agent", "identities", "-m", "scripted-likelihood",
                     "--max-trials", "5", "--max-requests", "5")  # fmt: skip
    assert code == 2, out
    assert [line for line in out.splitlines() if line.strip()] == [
        "error: --max-trials is the former name of --max-requests; give one"
    ], out
