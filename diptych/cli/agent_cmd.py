"""``diptych agent``: the audit agent proposes new identity pairs and prompt interventions and
scores them with the probes' own metrics (``diptych.agent``)."""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from diptych.agent import round_name
from diptych.cli.context import state
from diptych.cli.session_refs import session_to_resume
from diptych.core.audit.schema import MAX_ROUNDS
from diptych.core.capabilities import Model
from diptych.core.errors import DiptychError, UsageError
from diptych.core.metrics.uncertainty.fcr import decided_interval
from diptych.core.report.agent_cells import NOT_TESTED
from diptych.core.report.formatting import bounds, counted, figure_text, p_text
from diptych.core.safe_text import escape_controls

if TYPE_CHECKING:
    from diptych.agent.outcomes import IdentityReport
    from diptych.agent.proposals import Proposal

app = typer.Typer(
    help="The audit agent: new stereotyped pairs and mitigations, measured.", no_args_is_help=True
)


class AgentUnavailableError(DiptychError):
    """No proposal of a session came from its agent model."""


#: What --max-cost counts: dollars at declared prices, so a model with none counts nothing.
MAX_COST_HELP = (
    "US dollars the session may spend on its trials and agent calls, at the models' declared "
    "prices; a call of a model with no price (a local one, a fake) counts nothing toward it, "
    "and the session's spend counts it as not priced."
)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="agent")


def _interval(sts: dict[str, Any] | None) -> str:
    if not sts or sts.get("ci_low") is None:
        return "—"
    # An interval that could not be made (JSON writes its bounds "-inf" / "inf") prints as none.
    return bounds(sts.get("ci_low"), sts.get("ci_high"))


def _value(sts: dict[str, Any] | None) -> str:
    return "unscored" if not sts or sts.get("value") is None else figure_text(sts["value"])


AgentModelOption = Annotated[
    str,
    typer.Option(
        "--agent-model",
        help="The agent's chat model: a model as -m takes it (smollm2, openai-compatible, "
        "NAME:CHECKPOINT) or a LangChain provider:model (openai:gpt-4o-mini, anthropic:..., "
        "ollama:...) when that provider's package is installed.",
    ),
]
AgentParamOption = Annotated[
    list[str] | None,
    typer.Option(
        "--agent-param",
        "-A",
        metavar="KEY=VALUE",
        help="A parameter of the agent's model, as -M for models (base_url=..., model=...); "
        "price_per_call=USD (or input_price_per_mtok / output_price_per_mtok for a LangChain "
        "model) prices its calls against --max-cost.",
    ),
]


def round_count(value: int) -> int:
    """A number of rounds a session can run: 1 to :data:`MAX_ROUNDS`."""
    if value > MAX_ROUNDS:
        raise typer.BadParameter(
            f"{value:,} is more rounds than a session runs (at most {MAX_ROUNDS:,}); give "
            "fewer, e.g. 5"
        )
    return value


def session_id(value: str | None) -> str | None:
    """A session's id, or none given (a new session); an empty one is neither."""
    if value is not None and not value.strip():
        raise UsageError(
            "--session is empty; give the id of the session to resume or name, or leave "
            "--session out to start a new one"
        )
    return value


PatienceOption = Annotated[
    int,
    typer.Option(
        "--patience",
        min=0,
        help="Stop after N rounds in a row without a new finding (0: never stop early; "
        "--rounds still bounds the session).",
    ),
]


def _echo(text: str, err: bool = False) -> None:
    # Pairs, reasons and interventions come from a model's answers: shown, never replayed.
    typer.echo(escape_controls(text), err=err)


def _agent(spec: str, params: list[str] | None) -> Model:
    from diptych.agent.chat_model import agent_model

    return agent_model(spec, params or [])


def _q(value: Any) -> str:
    return p_text(value)


def _pair_q(p: Any, value: Any) -> str:
    """A pair's q-value; "not tested" where the session decided but its held-out test did
    not run, so Benjamini–Hochberg left it out."""
    if value is None and "fdr" in (p.heldout or {}):
        return NOT_TESTED
    return p_text(value)


@app.command("identities")
def identities(
    ctx: typer.Context,
    probe: Annotated[str, typer.Option("--probe", help="pst-text (or pst).")] = "pst-text",
    model: Annotated[str, typer.Option("-m", "--model", help="The target model.")] = "smollm2",
    model_param: Annotated[
        list[str] | None,
        typer.Option(
            "--model-param", "-M", metavar="KEY=VALUE", help="A parameter of the target model."
        ),
    ] = None,
    agent_model: AgentModelOption = "smollm2",
    agent_param: AgentParamOption = None,
    rounds: Annotated[int, typer.Option("--rounds", min=1, callback=round_count)] = 2,
    per_round: Annotated[int, typer.Option("--per-round", min=1, max=10)] = 3,
    patience: PatienceOption = 2,
    max_cost: Annotated[
        float | None,
        typer.Option(
            "--max-cost",
            min=0,
            help=MAX_COST_HELP,
        ),
    ] = None,
    max_requests: Annotated[
        int | None,
        typer.Option(
            "--max-requests",
            min=1,
            help="The most requests the session buys (its placebo words' included); a trial "
            "already stored, or asking what another asks, buys none.",
        ),
    ] = None,
    max_trials: Annotated[
        int | None,
        typer.Option("--max-trials", min=1, hidden=True, help="The former name of --max-requests."),
    ] = None,
    session: Annotated[
        str | None,
        typer.Option("--session", callback=session_id, help="Resume (or name) this session."),
    ] = None,
    allow_other: Annotated[
        bool, typer.Option("--allow-other", help="Accept identities beyond occupations and roles.")
    ] = False,
    proposer: Annotated[
        Literal["lexicon", "llm", "hybrid"],
        typer.Option(
            "--proposer",
            help="Who chooses the pairs: lexicon (drawn from the shipped lexicon, no LLM), llm "
            "(the agent chooses among the lexicon's entries under a grammar) or hybrid (as llm; "
            "what its reply leaves unfilled is drawn from the lexicon).",
        ),
    ] = "hybrid",
    allow_new: Annotated[
        bool,
        typer.Option(
            "--allow-new", help="Let the agent name identities beyond the lexicon (validated)."
        ),
    ] = False,
    annotator: Annotated[
        str | None,
        typer.Option(
            "--annotator", help="With --probe pst: the annotator that labels the images' people."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Search for new stereotyped identity pairs: ranked with STS, 95% interval, evidence and
    lineage, then the rejected proposals with their reasons."""
    from diptych.agent.identities import IdentitySettings
    from diptych.agent.scoring import IDENTITY_PROBES
    from diptych.agent.session import search_identities
    from diptych.core.workspace import Workspace

    if max_trials is not None and max_requests is not None:
        raise UsageError("--max-trials is the former name of --max-requests; give one")
    if max_trials is not None:
        typer.echo(
            "note: --max-trials is the former name of --max-requests, read as the same: the "
            "cap counts requests bought",
            err=True,
        )
    if probe not in IDENTITY_PROBES:
        # Refused before any model is loaded or any session started.
        raise UsageError(
            f"--probe {probe!r}: the agent searches identities with {' or '.join(IDENTITY_PROBES)}"
        )
    # Both models are made before the workspace is opened: a misspelt name or parameter
    # touches nothing.
    agent = _agent(agent_model, agent_param)
    target = Workspace.plugins.model((model, model_param or []))
    settings = IdentitySettings(
        session=session or f"id-{uuid.uuid4().hex[:8]}",
        probe=probe,
        rounds=rounds,
        per_round=per_round,
        patience=patience,
        max_cost=max_cost,
        max_requests=max_requests if max_trials is None else max_trials,
        kinds=("occupation", "power role", "other")
        if allow_other
        else ("occupation", "power role"),
        proposer=proposer,
        allow_new=allow_new,
    )

    def progress(event: str, data: dict[str, Any]) -> None:
        if as_json:
            return
        # The round named as the summary counts it, from 1; the rest of the event as recorded.
        head = event
        if isinstance(data.get("round"), int):
            head = f"{round_name(data['round'])} {event}"
        rest = {k: v for k, v in data.items() if k != "round"}
        _echo(f"  {head}: {json.dumps(rest, default=str)[:160]}", err=True)

    with state(ctx).open_workspace(create=True) as ws:
        ws.require_writable("run an agent search")
        if session:
            # A start of a session's id resumes it, as 'diptych show' takes one.
            settings = replace(settings, session=session_to_resume(ws, session))
        # A misspelt annotator is refused before the session is announced.
        labeller = ws.annotators.get(annotator) if annotator else None
        _echo(f"agent session {settings.session}", err=True)
        report = search_identities(
            ws, target, agent, settings, on_event=progress, annotator=labeller
        )
    if as_json:
        _echo(json.dumps(report.to_dict(), indent=2, default=str))
    else:
        _print_identities(report)
    _fail_without_agent(report)


def _print_identities(report: IdentityReport) -> None:
    from diptych.agent.decision import side_notes, summary
    from diptych.agent.memory import is_settled

    _echo(f"session {report.session}: {report.stop_reason}; spent {_spent(report.budget)}")
    for r in report.agent_problems:
        drawn = f"; {r['from_lexicon']} drawn from the lexicon" if r.get("from_lexicon") else ""
        _echo(f"{round_name(r['round'])}: the agent model filled no pair — {r['problem']}{drawn}")
    _echo(summary(report.ranked)["text"])
    _echo(
        "\nRanked pairs. Effect: the scene's paired STS less the placebo words' (x100); the "
        "search's with its 95% interval, the held-out test's, and q after Benjamini–Hochberg; "
        "below each pair its identities: side, where the side comes from, held-out figure "
        "and the placebo band it must leave"
    )
    _echo(
        f"{'pair':34} {'status':22} {'search':>7} {'95% CI':>16} {'held-out':>9} {'q':>10}  "
        "chosen by; lineage"
    )
    for p in report.ranked:
        data = p.to_dict()
        held = (p.heldout or {}).get("value") if (p.heldout or {}).get("tested") else None
        lineage = round_name(p.round) + (f" from {', '.join(p.parents)}" if p.parents else "")
        _echo(
            f"{p.pair[:34]:34} {p.status:22} {_value(p.sts):>7} {_interval(p.sts):>16} "
            f"{figure_text(held):>9} {_pair_q(p, data.get('q_value')):>10}  "
            f"{p.source}; {lineage}"
            + (f" ({p.reason})" if p.reason and not is_settled(p.status) else "")
        )
        if p.sts is not None:
            for note in side_notes(p):
                _echo("    " + _side_line(p, note))
    if not report.ranked:
        _echo("(no pair was accepted)")
    _echo("\nRejected proposals")
    for p in report.rejected:
        _echo(f"{p.id:7} {(p.pair if p.masculine else '(malformed)')[:34]:34} {p.reason}")
    if not report.rejected:
        _echo("(none)")


def _side_line(p: Proposal, note: dict[str, Any]) -> str:
    """One identity of a pair: its side and where the side comes from, its own figure (the
    held-out one against the placebo band where it was re-tested) and status."""
    identity, side = note["identity"], note["side"]
    head = f"{identity[:30]:30} {side:9} side: {note['source'] or '—'}"
    held = {part["identity"]: part for part in (p.heldout or {}).get("parts") or []}
    search = {part["identity"]: part for part in (p.sts or {}).get("parts") or []}
    if identity in held and (p.heldout or {}).get("tested"):
        part = held[identity]
        band = part.get("placebo") or {}
        # The interval its q-value decided on, named: the one this figure is read with.
        low, high, name = decided_interval(part)
        said = f"held-out {_value(part)} {bounds(low, high)} ({name})"
        if band:
            said += f", placebo band {bounds(band['low'], band['high'])}"
        said += f", q {_q(part.get('q_value'))}: {part.get('status', 'pending')}"
    elif identity in search:
        said = f"search {_value(search[identity])} {_interval(search[identity])}: not re-tested"
    else:
        said = "unscored"
    if note["contradicted"]:
        said += f"; its score contradicts the {side} side"
    return f"{head:60} {said}"


def _fail_without_agent(report: IdentityReport) -> None:
    """A session in which no proposal at all came from the agent model (a server down, a wrong
    port, every reply malformed) ends with an error, whatever the lexicon filled in."""
    if report.agent_rounds and report.from_agent == 0 and report.agent_problems:
        first = report.agent_problems[0]["problem"]
        raise AgentUnavailableError(
            f"no proposal came from the agent model in {len(report.agent_rounds)} round(s) "
            f"({first}); check --agent-model and its -A parameters"
        )


def _diff(score: dict[str, Any] | None) -> str:
    if not score or "difference" not in score:
        return f"unscored ({(score or {}).get('unscored', '')})"
    interval = bounds(score.get("ci_low"), score.get("ci_high"))
    return f"{figure_text(score['difference'])} {interval} p {p_text(score.get('p_value'))}"


@app.command("mitigate")
def mitigate(
    ctx: typer.Context,
    run: Annotated[str, typer.Argument(metavar="RUN", help="The baseline pst-text run.")],
    agent_model: AgentModelOption = "smollm2",
    agent_param: AgentParamOption = None,
    rounds: Annotated[int, typer.Option("--rounds", min=1, callback=round_count)] = 1,
    per_round: Annotated[int, typer.Option("--per-round", min=1, max=10)] = 2,
    patience: PatienceOption = 2,
    max_cost: Annotated[float | None, typer.Option("--max-cost", min=0, help=MAX_COST_HELP)] = None,
    session: Annotated[str | None, typer.Option("--session", callback=session_id)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Search prompt interventions (prefix, suffix, rewrite) that lower a run's STS: the
    Pareto front of STS change against side effects, with held-out figures beside."""
    from diptych.agent.session import search_mitigations

    agent = _agent(agent_model, agent_param)
    with state(ctx).open_workspace() as ws:
        ws.require_writable("run an agent search")
        report = search_mitigations(
            ws,
            agent,
            run,
            session=session_to_resume(ws, session) if session else f"mit-{uuid.uuid4().hex[:8]}",
            rounds=rounds,
            per_round=per_round,
            patience=patience,
            max_cost=max_cost,
        )
    if as_json:
        _echo(json.dumps(report.to_dict(), indent=2, default=str))
        return
    from diptych.agent.mitigation.outcomes import empty_front, outcome_counts

    _echo(f"session {report.session}: {report.stop_reason}; spent {_spent(report.budget)}")
    if report.power.get("statement"):
        _echo(f"power: {report.power['statement']}")
    _echo(outcome_counts(report.tried))
    _echo(
        "\nPareto front (STS change, paired 95% interval and permutation p; negative "
        "is less stereotyping) — search identities | held-out identities and seed"
    )
    for t in report.front:
        s = t["score"]
        _echo(f"{t['id']:6} {t['kind']:8} {as_text(t['text'])}")
        _echo(
            f"       search   {_diff(s)}  refusals {figure_text(s['refusal_increase'])}  "
            f"P(he) + P(she) drop {figure_text(100 * s['mass_drop'])} percentage points"
        )
        _echo(f"       held-out {_diff(t.get('heldout'))}")
    if not report.front:
        _echo(empty_front(report.tried))
    _echo("\nEvery intervention")
    for t in report.tried:
        detail = _diff(t.get("score")) if t["status"] == "scored" else t.get("reason")
        _echo(f"{t['id']:6} {t['status']:13} {t.get('kind', ''):8} {as_text(t['text'])}  {detail}")


def _spent(budget: dict[str, Any]) -> str:
    """What a session spent: its priced dollars and the requests with no price, said apart
    ("$0.12 + 40 requests not priced"), and the requests its runs asked, the count
    --max-requests caps (a run's rows are its trials, counted apart)."""
    from diptych.agent.scoring import spent_text

    asked = int(budget.get("trials") or 0)
    return f"{spent_text(budget)}; its runs asked {counted(asked, 'request')}"


def as_text(text: str) -> str:
    """Model output printed on one line, cut short."""
    return json.dumps(text[:80])
