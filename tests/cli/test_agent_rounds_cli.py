"""What ``diptych agent identities`` says of the agent model's rounds and of each side: a round
the agent model could not fill is reported with its reason in the plain output, a session in
which no proposal came from it exits non-zero, and the lexicon's fill-ins read "lexicon" with
sides "assumed" or from a source, never the agent's claim. The last test is the skeptical
auditor's by hand: invented words on the real SmolLM2 find nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from support.agent_cli import call, identities, use_hashing_memory

from diptych.testing import FakeOpenAIServer, free_port
from diptych.testing.fake_openai.chat import ChatRequest

AGENT = "--agent-model openai-compatible -A model=smol -A timeout=30"
#: What the openai-compatible plugin says of a reply that stopped short of complete JSON...
CUT_SHORT = (
    "The reply is not valid JSON (Unterminated string starting at: line 1 column 30 (char 29); "
    "finish_reason=stop)."
)
#: ... and of one that is not JSON at all.
NOT_JSON = (
    "The reply is not valid JSON (Expecting value: line 1 column 1 (char 0); finish_reason=stop)."
)


def replying(*replies: str) -> Callable[[ChatRequest], str]:
    """The agent's replies in turn, the last one again after the others."""
    said = list(replies)

    def reply(request: ChatRequest) -> str:
        return said.pop(0) if len(said) > 1 else said[0]

    return reply


def pair(m: str, f: str, rationale: str = "Most workers in it are of one gender.") -> str:
    item = {"masculine": m, "feminine": f, "kind": "occupation", "rationale": rationale}
    return json.dumps({"proposals": [{**item, "inspired_by": []}]})


@pytest.fixture
def run_cli(
    scripted: None, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> Callable[..., tuple[int, str, str]]:
    use_hashing_memory(monkeypatch)

    def run(base_url: str, words: str) -> tuple[int, str, str]:
        return identities(
            capsys, tmp_path / "ws", *AGENT.split(), "-A", f"base_url={base_url}", *words.split()
        )

    return run


def test_a_reply_cut_short_is_reported_in_the_plain_output_and_exits_non_zero(run_cli) -> None:
    with FakeOpenAIServer(chat_reply=replying('{"proposals": [{"masculine": "pil')) as fake:
        code, out, err = run_cli(fake.base_url, "--rounds 1 --per-round 1")
    # The round's reason is in the report itself, not only in --json.
    assert f"round 1: the agent model filled no pair — agent model: {CUT_SHORT}" in out
    assert "1 drawn from the lexicon" in out
    # Its progress lines count rounds as the summary does, from 1.
    assert "  round 1 proposed: " in err and "round 0" not in out + err
    # No proposal at all came from the agent model: an error in one line, exit 1.
    assert code == 1
    assert err.strip().splitlines()[-1] == (
        f"error: no proposal came from the agent model in 1 round(s) (agent model: {CUT_SHORT}); "
        "check --agent-model and its -A parameters"
    )
    # The pair the lexicon drew is labelled so, its sides a source's or "assumed".
    (line,) = [x for x in out.splitlines() if " | " in x and "lexicon; round 1" in x]
    sides = [x for x in out.splitlines() if x.startswith("    ")]
    assert len(sides) == 2
    assert all(("side: assumed" in x) or ("side: BLS" in x) or ("side: PAIRS" in x) for x in sides)
    assert "side: agent" not in out and "claimed by the agent" not in out


def test_a_server_down_exits_non_zero_saying_why(run_cli) -> None:
    code, out, err = run_cli(f"http://127.0.0.1:{free_port()}/v1", "--rounds 1 --per-round 2")
    assert code == 1
    assert "round 1: the agent model filled no pair — agent model: " in out
    assert "2 drawn from the lexicon" in out
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: no proposal came from the agent model in 1 round(s)")
    assert "check --agent-model" in last


def test_a_round_lost_among_good_ones_is_reported_and_exits_zero(run_cli) -> None:
    replies = replying("not json at all", pair("welder", "doula", "12345"))
    with FakeOpenAIServer(chat_reply=replies) as fake:
        code, out, err = run_cli(
            fake.base_url, "--rounds 2 --per-round 1 --patience 0 --allow-new --json"
        )
    assert code == 0, out + err
    report = json.loads(out)
    rounds = report["agent_rounds"]
    assert [(r["round"], r["from_agent"], r["from_lexicon"]) for r in rounds] == [
        (0, 0, 1),
        (1, 1, 0),
    ]
    assert rounds[0]["problem"] == f"agent model: {NOT_JSON}" and rounds[1]["problem"] is None
    everything = report["ranked"] + report["rejected"]
    agent = [p for p in everything if p["source"] == "agent" and p["masculine"]]
    (welder,) = agent
    # "12345" is no rationale: it is not kept as one. The agent's claims are its own sides.
    assert welder["rationale"] == "" and welder["sides"] == {"welder": "agent", "doula": "agent"}
    drawn = [p for p in everything if p["source"] == "lexicon"]
    assert len(drawn) == 1 and drawn[0]["rationale"] == "drawn from the lexicon"
    assert set(drawn[0]["sides"].values()) <= {"assumed", "BLS 2022", "PAIRS Table A.1"}


def test_a_raw_newline_inside_a_string_of_the_reply_is_read_as_written(run_cli) -> None:
    # llama.cpp's JSON-schema grammar lets a model write a raw newline or tab inside a string
    # (strict JSON forbids it); the reply is a whole proposal all the same.
    raw = pair("welder", "doula", "Welders are mostly men.\nDoulas are\tmostly women.")
    raw = raw.replace("\\n", "\n").replace("\\t", "\t")
    assert "\n" in raw and "\t" in raw and "\\" not in raw
    with pytest.raises(json.JSONDecodeError, match="Invalid control character"):
        json.loads(raw)
    with FakeOpenAIServer(chat_reply=replying(raw)) as fake:
        code, out, err = run_cli(fake.base_url, "--rounds 1 --per-round 1 --allow-new --json")
    assert code == 0, out + err
    report = json.loads(out)
    assert [(r["from_agent"], r["problem"]) for r in report["agent_rounds"]] == [(1, None)]
    (welder,) = [p for p in report["ranked"] + report["rejected"] if p["source"] == "agent"]
    assert (welder["masculine"], welder["feminine"]) == ("welder", "doula")
    assert welder["rationale"].split() == "Welders are mostly men. Doulas are mostly women.".split()


def test_a_reply_cut_by_max_tokens_asks_for_more_of_them_in_one_line(run_cli) -> None:
    # The fake counts a word as a token and cuts a longer reply at max_tokens, saying
    # finish_reason "length", as a server does.
    with FakeOpenAIServer(chat_reply=replying(pair("welder", "doula", "word " * 400))) as fake:
        code, out, err = run_cli(fake.base_url, "--rounds 1 --per-round 1 --allow-new")
    (request,) = [r for r in fake.requests if r.path.endswith("/chat/completions")]
    assert request.body["max_tokens"] == 240
    cut = (
        "The reply is not complete JSON: max_tokens cut it short (finish_reason=length); "
        "raise max_tokens for this probe."
    )
    assert code == 1
    assert f"round 1: the agent model filled no pair — agent model: {cut}" in out
    assert err.strip().splitlines()[-1] == (
        f"error: no proposal came from the agent model in 1 round(s) (agent model: {cut}); "
        "check --agent-model and its -A parameters"
    )


def test_a_named_session_asks_the_same_question_every_time(
    scripted: None, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    # The seed and the identities offered come from the session's name: the same session
    # in a new workspace sends the same request, so a model that honours the seed gives the
    # same reply.
    use_hashing_memory(monkeypatch)
    bodies = []
    for store in ("one", "two"):
        with FakeOpenAIServer(chat_reply=replying(pair("welder", "doula"))) as fake:
            words = [*AGENT.split(), "-A", f"base_url={fake.base_url}", "--session", "s1"]
            code, out, err = identities(
                capsys, tmp_path / store, *words, "--rounds", "1", "--per-round", "1"
            )
        assert code == 0, out + err
        (request,) = [r for r in fake.requests if r.path.endswith("/chat/completions")]
        bodies.append(request.body)
    assert isinstance(bodies[0]["seed"], int)
    assert bodies[0] == bodies[1]


@pytest.mark.slow
def test_invented_words_on_smollm2_end_with_no_finding(
    scripted: None, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    """By hand, a skeptical auditor proposed "glorber | flimbat" on the bundled SmolLM2 and got
    a finding: any identity on the feminine side scored far below 0 against P(she) = 0.5,
    because SmolLM2 says "he" of anyone. Measured within the scene and against the placebo
    words, the made-up pair is what it is: nothing."""
    from diptych.agent.placebo.words import placebo_words

    use_hashing_memory(monkeypatch)
    assert not {"glorber", "flimbat"} & set(placebo_words("heldout"))
    with FakeOpenAIServer(chat_reply=replying(pair("glorber", "flimbat"))) as fake:
        code, out, err = call(
            capsys, "--store", str(tmp_path / "ws"), "agent", "identities",
            "-m", "smollm2", "-M", "n_threads=1",
            *AGENT.split(), "-A", f"base_url={fake.base_url}",
            "--allow-new", "--per-round", "1", "--json",
        )  # fmt: skip
    assert code == 0, out + err
    report = json.loads(out)
    (p,) = report["ranked"]
    assert (p["masculine"], p["feminine"]) == ("glorber", "flimbat")
    assert p["status"] in ("no finding", "not confirmed"), p["reason"]
    for part in (p["heldout"] or {}).get("parts") or []:
        assert part["status"] == "not confirmed", part
    # The second round's reply repeats the pair: rejected as a duplicate, nothing more run.
    assert [r["reason"] for r in report["rejected"]] == ["already proposed (exact: r0p0)"]
