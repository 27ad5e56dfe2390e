"""``diptych agent identities`` from the command line with any chat model as the agent: an
OpenAI-compatible service (the fake, checking that every schema is strict as OpenAI's strict
structured outputs require), its calls priced against --max-cost, and usage errors in one line."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.agent_cli import call, identities, use_hashing_memory
from support.strict_schema import strict_problems

from diptych.testing import FakeOpenAIServer
from diptych.testing.fake_openai.chat import ChatRequest
from diptych.testing.fake_openai.wire import RecordedRequest, Reply

PAIRS = [("welder", "florist"), ("roofer", "doula"), ("plumber", "midwife")]
OPENAI_COMPATIBLE = "--agent-model openai-compatible"
#: One proposal a round, and no stopping early.
TWO_ROUNDS = "--rounds 2 --per-round 1 --patience 0"


class StrictFake(FakeOpenAIServer):
    """The fake service, refusing a ``json_schema`` response format that strict mode would
    refuse (as OpenAI does, with a 400 naming the schema)."""

    def _chat(self, body: dict[str, Any]) -> dict[str, Any]:
        form = body.get("response_format") or {}
        if form.get("type") == "json_schema":
            spec = form["json_schema"]
            problems = strict_problems(spec["schema"]) if spec.get("strict") else ["not strict"]
            if problems:
                raise Reply(
                    400,
                    f"Invalid schema for response_format '{spec.get('name')}': {problems[0]}",
                    param="response_format",
                )
        return super()._chat(body)


class Proposing:
    """The agent's replies: one pair a round as JSON, the first identities the schema offers
    (where it names them as choices) or the next of PAIRS."""

    def __init__(self) -> None:
        self.calls = 0
        self.pairs: list[tuple[str, str]] = []
        self.tokens: list[tuple[int, int]] = []

    def __call__(self, request: ChatRequest) -> str:
        form = request.body.get("response_format") or {}
        schema = (form.get("json_schema") or {}).get("schema") or form.get("schema") or {}
        answer = schema["properties"]["proposals"]
        # A list of pairs, or (names from the lexicon) one property a pair: answer the first.
        first = answer["items"] if "items" in answer else next(iter(answer["properties"].values()))
        # A pair whose names may stand on either side is offered in two branches: the first.
        item_props = first.get("anyOf", [first])[0]["properties"]
        m, f = PAIRS[self.calls % len(PAIRS)]
        m = next((x for x in item_props["masculine"].get("enum") or [] if x), m)
        f = next((x for x in item_props["feminine"].get("enum") or [] if x), f)
        self.calls += 1
        self.pairs.append((m, f))
        item = {"masculine": m, "feminine": f, "kind": "occupation", "rationale": "BLS"}
        reply = json.dumps({"proposals": [{**item, "inspired_by": []}]})
        # The fake counts a word as a token (see its chat_completion).
        self.tokens.append((sum(len(t.split()) for t in request.texts), len(reply.split())))
        return reply


@pytest.fixture
def fast_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    use_hashing_memory(monkeypatch)


#: ``served(fake, words)``: the exit code, stdout and stderr of ``agent identities`` with these
#: words, in a new workspace, the agent's model at the fake service.
Served = Callable[[FakeOpenAIServer, str], tuple[int, str, str]]


@pytest.fixture
def served(
    scripted: None, fast_memory: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> Served:
    def run(fake: FakeOpenAIServer, words: str) -> tuple[int, str, str]:
        at_fake = ("-A", f"base_url={fake.base_url}")
        return identities(capsys, tmp_path / "ws", *words.split(), *at_fake)

    return run


def chats(fake: FakeOpenAIServer) -> list[RecordedRequest]:
    return [r for r in fake.requests if r.path.endswith("/chat/completions")]


def test_openai_compatible_agent_from_the_cli_with_its_own_params(served: Served) -> None:
    agent = Proposing()
    with StrictFake(chat_reply=agent) as fake:
        code, out, err = served(
            fake, f"{OPENAI_COMPATIBLE} -A model=gpt-4o-mini {TWO_ROUNDS} --json"
        )
        asked = chats(fake)
    assert code == 0, out + err
    report = json.loads(out)
    assert report["stop_reason"] == "2 rounds done"
    proposed = report["ranked"] + report["rejected"]
    assert {(p["masculine"], p["feminine"]) for p in proposed} >= set(agent.pairs)
    assert len(agent.pairs) == 2 and report["ranked"]
    for p in report["ranked"]:
        assert p["sts"]["ci_low"] <= p["sts"]["value"] <= p["sts"]["ci_high"]
    # Two rounds, two calls, each under a strict JSON schema naming the served model.
    assert len(asked) == 2
    for request in asked:
        assert request.status == 200
        assert request.body["model"] == "gpt-4o-mini"
        form = request.body["response_format"]
        assert form["type"] == "json_schema" and form["json_schema"]["strict"] is True
        assert strict_problems(form["json_schema"]["schema"]) == []


def test_the_agents_calls_exhaust_max_cost_and_the_session_says_so(served: Served) -> None:
    with StrictFake(chat_reply=Proposing()) as fake:
        words = "-A price_per_call=0.3 --rounds 5 --per-round 1 --patience 0 --max-cost 0.5"
        code, out, err = served(fake, f"{OPENAI_COMPATIBLE} {words}")
        asked = len(chats(fake))
    assert code == 0, out + err
    first = out.splitlines()[0]
    assert "over budget: the agent's next call ($0.30) would pass --max-cost $0.50" in first
    # The scripted target declares no price: its requests are counted apart, never as dollars.
    assert re.search(r"spent \$0\.30 \+ [\d,]+ requests not priced; its runs asked ", first), first
    assert asked == 1


def test_a_langchain_provider_model_as_the_agent_priced_by_its_tokens(served: Served) -> None:
    """``openai:gpt-4o-mini`` through LangChain's init_chat_model (langchain-openai), pointed
    at the fake service: strict schema, and its calls charged at the shipped token prices."""
    agent = Proposing()
    with StrictFake(chat_reply=agent, api_key="sk-test-lc") as fake:
        words = "--agent-model openai:gpt-4o-mini -A api_key=sk-test-lc -A max_retries=0"
        code, out, err = served(fake, f"{words} {TWO_ROUNDS} --json")
        asked = chats(fake)
    assert code == 0, out + err
    report = json.loads(out)
    assert report["stop_reason"] == "2 rounds done" and len(asked) == 2
    for request in asked:
        assert request.status == 200 and request.body["model"] == "gpt-4o-mini"
        form = request.body["response_format"]
        assert form["json_schema"]["strict"] is True
        assert strict_problems(form["json_schema"]["schema"]) == []
    proposed = {(p["masculine"], p["feminine"]) for p in report["ranked"] + report["rejected"]}
    assert proposed >= set(agent.pairs) and len(agent.pairs) == 2
    # The scripted target is free: all that was spent is the agent's tokens at $0.15 and $0.60
    # a million (chat_prices.yaml).
    expected = sum(i * 0.15 + o * 0.60 for i, o in agent.tokens) / 1e6
    assert report["budget"]["spent"] == pytest.approx(expected) and expected > 0


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--agent-model", "openai-compatible"], "base_url"),
        (["--agent-model", "anthropic:claude-3-5-haiku-latest"], "langchain-anthropic"),
        (["--agent-model", "scripted-chat", "-A", "price_per_call=lots"], "US dollars"),
        (["--agent-model", "scripted-likelihood"], "the agent needs a chat model"),
        (["--patience", "-1"], "--patience"),
        (["--probe", "bogus"], "pst-text or pst"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    args: list[str], says: str, scripted: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = identities(capsys, tmp_path / "ws", *args)
    assert code == 2, out + err
    lines = [line for line in (out + err).splitlines() if line.strip()]
    assert len(lines) == 1 and says in lines[0], lines
    # Nothing was created: the models are checked before the workspace is opened.
    assert not (tmp_path / "ws").exists()


@pytest.mark.slow
def test_a_real_llama_cpp_server_on_loopback_as_the_agent(
    scripted: None,
    fast_memory: None,
    llama_server: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """SmolLM2 behind llama-cpp-python's OpenAI-compatible server proposes under the strict
    schema; the scripted target scores what it proposed."""
    code, out, err = identities(
        capsys,
        tmp_path / "ws",
        *f"--agent-model openai-compatible -A base_url={llama_server} -A model=smollm2".split(),
        # A grammar-constrained reply on a busy two-core machine may take minutes.
        *"-A timeout=900 --rounds 1 --per-round 1 --json".split(),
        # A named session: its seed and the identities it offers (so the prompt, 659 tokens of
        # the server's 2048 with 240 for the reply) are the same on every run.
        *"--session server-agent".split(),
    )
    assert code == 0, out + err
    report = json.loads(out)
    assert report["stop_reason"] == "1 round done"
    everything = report["ranked"] + report["rejected"]
    assert len(everything) == 1, everything
    for p in everything:
        if p["status"] == "rejected":
            assert p["reason"]
        elif p["status"] != "unscored":
            assert p["sts"]["ci_low"] <= p["sts"]["value"] <= p["sts"]["ci_high"]
    # The reply was JSON of the schema's shape: no proposal is a malformed, unparsed reply.
    assert not any(p["reason"] and p["reason"].startswith("schema:") for p in everything), out


def test_mitigate_takes_patience_and_refuses_a_negative_one(
    scripted: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = call(
        capsys, "--store", str(tmp_path / "ws"), "agent", "mitigate", "RUN", "--patience", "-1"
    )
    assert code == 2 and "--patience" in err and len(err.strip().splitlines()) == 1
    code, out, err = call(capsys, "agent", "mitigate", "--help")
    assert code == 0 and "--patience" in out


def test_mitigate_counts_what_it_scored(
    scripted: None, fast_memory: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from diptych.core.workspace import Workspace

    masculine = ["carpenter", "driver", "farmer", "lawyer"]
    feminine = ["nurse", "editor", "baker", "clerk"]
    planted = {**dict.fromkeys(masculine, 0.3), **dict.fromkeys(feminine, 0.7)}
    with Workspace.open(tmp_path / "ws") as ws:
        target = ws.plugins.model(("scripted-likelihood", {"p_feminine": planted}))
        base = ws.runs.run_sync(
            "pst-text",
            [target],
            params={"masculine": masculine, "feminine": feminine, "setting": "paired"},
        )
    # The scripted agent answers "{}": its round is rejected, and the two seed interventions
    # (which change nothing on this target) are scored with no finding.
    code, out, err = call(
        capsys, "--store", str(tmp_path / "ws"), "agent", "mitigate", base.id,
        "--agent-model", "scripted-chat",
    )  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert "2 interventions scored (2 no finding); 1 rejected" in lines
    assert "(no intervention lowered the STS on held-out data)" in lines
    assert "(no intervention could be scored)" not in out


def test_one_round_is_said_in_the_singular(served: Served) -> None:
    with StrictFake(chat_reply=Proposing()) as fake:
        code, out, err = served(fake, f"{OPENAI_COMPATIBLE} -A model=gpt-4o-mini --rounds 1 "
                                      "--per-round 1 --patience 0")  # fmt: skip
    assert code == 0, out + err
    assert ": 1 round done;" in out and "rounds done" not in out, out
    # The summary counts every proposal with a finding, as the decided line does.
    said = (out + err).splitlines()
    decided = json.loads(next(x for x in said if "decided: " in x).split(": ", 1)[1])
    tally = next(x for x in out.splitlines() if " of 1 proposal scored" in x)
    found = decided["findings"]
    assert tally.startswith(f"{found} finding{'' if found == 1 else 's'} of 1 proposal scored")
