"""The Agent screen: start an agent session, watch its proposals arrive with their status and
scores, and accept a pair into the workspace's identity list or an intervention into its
intervention list, or reject it.

The session runs in a thread worker that opens its own Workspace (:mod:`.session`); its
events come back as dataclass messages, and only the UI thread touches a widget. Accepting and
rejecting write the store, so they run in a worker too. Every field of the form is labelled
(the search, its models, probe or baseline run, rounds, proposals per round, who proposes and
whether new words are allowed), and the agent's model is named whole; the highlighted row's
whole reason (and its q-value and held-out figure, where the session has them) is shown under
the table. Accepting a proposal that is not a finding asks first, saying why the session did
not confirm it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Header, Input, Label, Select, Static

from diptych.agent import round_name
from diptych.core.errors import DiptychError
from diptych.core.report.agent_cells import NOT_TESTED, q_across_text
from diptych.core.report.findings import is_finding
from diptych.core.report.formatting import bounds, counted, figure_text, p_text
from diptych.core.safe_text import escape_controls
from diptych.core.workspace import Workspace
from diptych.tui.screens.agent.confirm import ConfirmAccept, confirmation_text
from diptych.tui.screens.agent.form import (
    AGENT_TIP,
    ALLOW_NEW_TIP,
    NUMBERS,
    PER_ROUND_TIP,
    PROPOSAL_COLUMNS,
    PROPOSER_TIP,
    PROPOSERS,
    TARGET_TIP,
)
from diptych.tui.screens.agent.session import (
    AgentAccepted,
    AgentFailed,
    AgentFinished,
    AgentProposed,
    AgentRejected,
    AgentScored,
    ModelOf,
    SessionRequest,
    agent_by_name,
    model_by_name,
    run_session,
)
from diptych.tui.widgets.fit_table import FitTable
from diptych.tui.widgets.footer import KeysFooter
from diptych.tui.widgets.params_form import INVALID, WHOLE, NumberInput
from diptych.tui.widgets.said import SaidLine, say
from diptych.tui.widgets.ticks import TickBox
from diptych.tui.widgets.whole_numbers import WholeNumbers

if TYPE_CHECKING:
    from diptych.agent.memory import Embedder
    from diptych.agent.rows import AgentRow


@dataclass
class _Decision:
    """What the auditor said about a row on this screen."""

    accepted: bool
    note: str = ""


@dataclass
class _Rows:
    by_id: dict[str, AgentRow] = field(default_factory=dict)
    decisions: dict[str, _Decision] = field(default_factory=dict)


class AgentScreen(Screen[None]):
    """Start an agent session and decide on its proposals."""

    CSS_PATH = "agent.tcss"
    HELP_PURPOSE = (
        "Let an LLM agent search for identity pairs or interventions: its proposals are run and "
        "tested as they arrive, and you accept the findings into the workspace's lists (a) or "
        "reject them (x). ^s starts a session."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", "Start"),
        Binding("a", "accept", "Accept"),
        Binding("x", "reject", "Reject"),
        Binding("escape", "app.pop_screen", "Back"),
    ]

    #: How the worker gets the target and the agent's model by name, and the memory's
    #: embedder (None: the bundled sentence model); tests hand in scripted ones.
    model_of: ModelOf = staticmethod(model_by_name)
    agent_of: ModelOf | None = None
    embedder: Embedder | None = None

    def __init__(self, store_path: Path | None = None) -> None:
        super().__init__()
        self._store_path = store_path
        self._rows = _Rows()
        self.session = ""
        #: The number field a start was refused for ("" when none).
        self._refused_field = ""
        #: The agent's model as the form named it, shown whole in the status line.
        self.agent_name = ""
        self.new_session_id: Callable[[], str] = lambda: f"tui-{uuid.uuid4().hex[:8]}"

    @property
    def store_path(self) -> Path:
        return self._store_path or Path(getattr(self.app, "store_path", ".diptych"))

    def compose(self) -> ComposeResult:
        yield Header()
        # Three rows of labelled fields, one line each: the models' names (the target's, the
        # agent's with its parameters) get the width of several columns, so that they show
        # whole at 60 columns too.
        with Grid(id="agent-form"):
            yield Label("search", id="agent-kind-label")
            yield Label("probe", id="agent-probe-label")
            yield Label("rounds", id="agent-rounds-label")
            yield Label("per round", id="agent-per-round-label")
            yield Select(
                [("identities", "identities"), ("mitigate", "mitigate")],
                value="identities",
                allow_blank=False,
                id="agent-kind",
                compact=True,
            )
            yield Input("pst-text", placeholder="pst-text or pst", id="agent-probe", compact=True)
            yield NumberInput(
                "2", takes="integer", placeholder="rounds", id="agent-rounds", compact=True
            )
            yield NumberInput(
                "3", takes="integer", placeholder="n", id="agent-per-round", tooltip=PER_ROUND_TIP,
                compact=True,
            )  # fmt: skip
            yield Label("target model", id="agent-target-label", classes="whole")
            yield Input(
                "smollm2", placeholder="the model searched", id="agent-target", tooltip=TARGET_TIP,
                classes="whole", compact=True,
            )  # fmt: skip
            yield Label("agent model", id="agent-model-label", classes="wide")
            yield Label("proposer", id="agent-proposer-label")
            yield Label("allow new", id="agent-allow-new-label")
            yield Input(
                "smollm2",
                placeholder="the agent's model",
                id="agent-model",
                tooltip=AGENT_TIP,
                classes="wide",
                compact=True,
            )
            yield Select(
                [(p, p) for p in PROPOSERS],
                value="hybrid",
                allow_blank=False,
                id="agent-proposer",
                tooltip=PROPOSER_TIP,
                compact=True,
            )
            yield TickBox("", False, id="agent-allow-new", tooltip=ALLOW_NEW_TIP, compact=True)
        # Fitted to the width: a long proposal wraps, its figures and decision stay whole.
        yield FitTable(PROPOSAL_COLUMNS, id="agent-proposals")
        # The whole reason, scrolled (with a scrollbar saying so) where the terminal is short.
        with VerticalScroll(id="agent-reason-box"):
            yield WholeNumbers("", id="agent-reason")
        yield WholeNumbers("^s starts a session", id="agent-status")
        yield KeysFooter()

    @on(Select.Changed, "#agent-kind")
    def _kind_changed(self, event: Select.Changed) -> None:
        mitigate = event.value == "mitigate"
        self.query_one("#agent-probe-label", Label).update("baseline run" if mitigate else "probe")
        self.query_one("#agent-target-label", Label).update(
            "target (the run's)" if mitigate else "target model"
        )
        self.query_one("#agent-target", Input).disabled = mitigate
        # Who proposes and whether new words may be named concern identity searches only.
        self.query_one("#agent-proposer", Select).disabled = mitigate
        self.query_one("#agent-allow-new", TickBox).disabled = mitigate
        self.query_one("#agent-per-round", Input).value = "2" if mitigate else "3"
        self.query_one("#agent-probe", Input).placeholder = (
            "a pst-text run id" if mitigate else "pst-text or pst"
        )

    # --- starting ---------------------------------------------------------------------------

    def _number(self, field_id: str) -> int | None:
        """The whole number field ``field_id`` holds, if a session takes it; None otherwise."""
        text = self.query_one(f"#{field_id}", Input).value.strip()
        if WHOLE.fullmatch(text) is None:
            return None
        value = int(text)
        return value if 1 <= value <= NUMBERS[field_id][1] else None

    def _bad_number(self) -> str | None:
        """The first number field (by id) holding what a session cannot take; None if none."""
        return next((f for f in NUMBERS if self._number(f) is None), None)

    @on(Input.Changed, "#agent-rounds, #agent-per-round")
    def _number_typed(self, event: Input.Changed) -> None:
        """Mark a number field as keys arrive: ✗ by its name while a session cannot take what
        it holds (red alone is lost in monochrome); fixed, the mark and the refusal go."""
        field_id = event.input.id or ""
        name = NUMBERS[field_id][0]
        bad = self._number(field_id) is None
        self.query_one(f"#{field_id}-label", Label).update(f"{INVALID} {name}" if bad else name)
        event.input.set_class(bad, "-invalid")
        if not bad and self._refused_field == field_id:
            self._refused_field = ""
            self._status("^s starts a session")

    def request(self) -> SessionRequest | None:
        """The session the form asks for; None while a number field holds what a session
        cannot take."""
        rounds = self._number("agent-rounds")
        per_round = self._number("agent-per-round")
        if rounds is None or per_round is None:
            return None
        kind = str(self.query_one("#agent-kind", Select).value)
        probe_or_run = self.query_one("#agent-probe", Input).value.strip()
        return SessionRequest(
            kind=kind,
            target=self.query_one("#agent-target", Input).value.strip(),
            agent=self.query_one("#agent-model", Input).value.strip(),
            probe=probe_or_run if kind == "identities" else "pst-text",
            baseline=probe_or_run if kind == "mitigate" else "",
            rounds=rounds,
            # As the CLI's --per-round: one to ten proposals a round.
            per_round=per_round,
            proposer=str(self.query_one("#agent-proposer", Select).value),
            allow_new=self.query_one("#agent-allow-new", TickBox).value,
            session=self.new_session_id(),
        )

    def action_start(self) -> None:
        bad = self._bad_number()
        if bad is not None:
            # As New run refuses: what was typed stays, marked, and the field comes into view,
            # focused, with the line saying what it takes.
            field = self.query_one(f"#{bad}", Input)
            name, high = NUMBERS[bad]
            self.query_one(f"#{bad}-label", Label).update(f"{INVALID} {name}")
            field.add_class("-invalid")
            self._refused_field = bad
            self._status(
                f"the session cannot start: {name} takes a whole number from 1 to {high:,}"
            )
            field.scroll_visible(animate=False)
            field.focus()
            return
        request = self.request()
        if request is None:
            return
        self.session = request.session
        self._rows = _Rows()
        self.query_one("#agent-proposals", FitTable).set_rows([])
        self.agent_name = request.agent
        self._unsay_nothing_listed()
        self._status(f"session {request.session}: asking {request.agent} …")
        self._run(request)

    @work(thread=True, exclusive=True, exit_on_error=False, group="agent-session")
    def _run(self, request: SessionRequest) -> None:
        run_session(
            request,
            self.store_path,
            self.post_message,
            model_of=self.model_of,
            agent_of=self.agent_of or agent_by_name,
            embedder=self.embedder,
        )

    # --- session events (UI thread) ---------------------------------------------------------

    @on(AgentProposed)
    def _proposed(self, message: AgentProposed) -> None:
        said = counted(message.n, "proposal")
        self._status(
            f"{round_name(message.round)}: {said}, running {'it' if message.n == 1 else 'them'} …"
        )

    @on(AgentScored)
    def _scored(self, message: AgentScored) -> None:
        self._show(message.row)

    @on(AgentFinished)
    def _finished(self, message: AgentFinished) -> None:
        for row in message.rows:
            self._show(row)
        found = sum(is_finding(r.status) for r in message.rows)
        scored = sum(r.acceptable for r in message.rows)
        rejected = sum(r.status == "rejected" for r in message.rows)
        unscored = sum(r.status == "unscored" for r in message.rows)
        self._status(
            f"session {message.session} (agent {self.agent_name}): {counted(found, 'finding')} "
            f"of {scored} scored, {unscored} unscored, {rejected} rejected "
            f"({message.stop_reason}{'; spent ' + message.spent if message.spent else ''}); "
            "a accepts, x rejects"
        )
        self._explain()
        if message.rows:
            # The proposals take the focus: a and x decide, not type into the last field.
            self.query_one("#agent-proposals", FitTable).focus()

    @on(AgentFailed)
    def _failed(self, message: AgentFailed) -> None:
        self._status(f"session stopped: {message.error}")

    @on(AgentAccepted)
    def _accepted(self, message: AgentAccepted) -> None:
        if message.error:
            self._rows.decisions.pop(message.row_id, None)
            self._status(f"{message.row_id} not accepted: {message.error}")
        else:
            note = "accepted" if message.stored else "listed already"
            self._rows.decisions[message.row_id] = _Decision(True, note)
            self._status(f"{message.row_id}: {note} in the workspace's list")
        self._show(self._rows.by_id[message.row_id])

    @on(AgentRejected)
    def _rejected(self, message: AgentRejected) -> None:
        if message.error:
            self._rows.decisions.pop(message.row_id, None)
            self._status(f"{message.row_id} not rejected: {message.error}")
        else:
            self._rows.decisions[message.row_id] = _Decision(False, "rejected")
            self._status(f"{message.row_id}: rejected (recorded in the workspace)")
        self._show(self._rows.by_id[message.row_id])

    @on(DataTable.RowHighlighted, "#agent-proposals")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._explain()

    def _explain(self) -> None:
        """The highlighted row's whole reason and figures, under the table."""
        row = self._current()
        text = (
            "" if row is None else escape_controls(describe(row, self._rows.decisions.get(row.id)))
        )
        self.query_one("#agent-reason", Static).update(text)

    # --- deciding ---------------------------------------------------------------------------

    def _current(self) -> AgentRow | None:
        table = self.query_one("#agent-proposals", DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self._rows.by_id.get(str(key))

    def action_accept(self) -> None:
        row = self._current()
        if row is None:
            self._nothing_to_decide("accept")
            return
        if not row.acceptable:
            self._status(f"{row.id} is {row.status}: only measured proposals can be accepted")
            return
        if not is_finding(row.status):
            # Measured but not a finding: the auditor is told why before it is stored.
            text = confirmation_text(row.id, row.what, row.status, row.reason)
            self.app.push_screen(
                ConfirmAccept(text), lambda yes: self._accept_confirmed(row, bool(yes))
            )
            return
        self._start_accept(row)

    def _accept_confirmed(self, row: AgentRow, yes: bool) -> None:
        if yes:
            self._start_accept(row)
        else:
            self._status(f"{row.id} not accepted ({row.status})")

    def _start_accept(self, row: AgentRow) -> None:
        self._rows.decisions[row.id] = _Decision(True, "accepting …")
        self._show(row)
        self._accept(row, self.session)

    @work(thread=True, exit_on_error=False, group="agent-accept")
    def _accept(self, row: AgentRow, session: str) -> None:
        from diptych.agent.rows import accept_row

        try:
            with Workspace.open(self.store_path) as ws:
                stored = accept_row(ws, row, session)
        except (DiptychError, ValueError) as error:
            self.post_message(AgentAccepted(row.id, False, str(error)))
            return
        self.post_message(AgentAccepted(row.id, stored))

    def action_reject(self) -> None:
        row = self._current()
        if row is None:
            self._nothing_to_decide("reject")
            return
        self._rows.decisions[row.id] = _Decision(False, "rejecting …")
        self._show(row)
        self._reject(row, self.session)

    @work(thread=True, exit_on_error=False, group="agent-reject")
    def _reject(self, row: AgentRow, session: str) -> None:
        from diptych.agent.rows import reject_row

        try:
            with Workspace.open(self.store_path) as ws:
                reject_row(ws, row, session)
        except (DiptychError, ValueError) as error:
            self.post_message(AgentRejected(row.id, str(error)))
            return
        self.post_message(AgentRejected(row.id))

    # --- drawing ----------------------------------------------------------------------------

    def _show(self, row: AgentRow) -> None:
        """Add or update ``row`` in the table (a later event about a row replaces it)."""
        table = self.query_one("#agent-proposals", FitTable)
        known = self._rows.by_id.get(row.id)
        if known is not None and row.kind == "intervention" and not row.what.strip(": "):
            # A scored event carries no text; keep what the row said.
            row.what, row.payload = known.what, {**known.payload, **row.payload}
        self._rows.by_id[row.id] = row
        self._unsay_nothing_listed()
        decision = self._rows.decisions.get(row.id)
        cells = (
            row.id,
            row.what,
            row.status,
            row.why,
            figure_text(row.score),
            bounds(row.ci_low, row.ci_high),
            # A decided pair with no q-value: its held-out test did not run.
            NOT_TESTED if row.q_value is None and row.q_across is not None else p_text(row.q_value),
            "" if decision is None else decision.note,
        )
        # Pairs and reasons come from a model's answers: escaped, never replayed by the terminal.
        table.upsert(row.id, [escape_controls(c) for c in cells])
        current = self._current()
        if current is not None and current.id == row.id:
            self._explain()

    def _status(self, text: str) -> None:
        self.query_one("#agent-status", Static).update(text)

    def _nothing_to_decide(self, verb: str) -> None:
        """a and x act on the highlighted proposal: before a session has listed one, say so on
        the line above the keys, where the next key or the first proposal listed takes it back
        (the status line goes on saying the session's progress)."""
        if not self.session:
            text = (f"no proposal to {verb} yet: ^s starts a session, and a and x then accept "
                    "or reject the highlighted proposal")  # fmt: skip
        else:
            text = f"no proposal to {verb} yet: the session lists each as it is measured"
        say(self, text, about=NOTHING_LISTED)

    def _unsay_nothing_listed(self) -> None:
        for line in self.query(SaidLine):
            line.unsay(NOTHING_LISTED)


#: What "no proposal to accept yet" is about: no proposal listed (a listed one takes it back).
NOTHING_LISTED = "no proposal listed"


def describe(row: AgentRow, decision: _Decision | None = None) -> str:
    """One row in full: what it is, its status and why, and its figures."""
    figures = []
    if row.score is not None:
        figures.append(f"search {figure_text(row.score)}")
    if row.ci_low is not None and row.ci_high is not None:
        figures.append(f"search 95% CI, unadjusted {bounds(row.ci_low, row.ci_high)}")
    if row.heldout is not None:
        figures.append(f"held-out {figure_text(row.heldout)}")
    if row.q_value is not None:
        figures.append(
            f"q {p_text(row.q_value)} (Benjamini–Hochberg {q_across_text(row.q_across)})"
        )
    elif row.q_across is not None:
        figures.append(f"q {NOT_TESTED}: its held-out test did not run")
    head = f"{row.id} {row.what}: {row.status}"
    if row.reason:
        head += f" — {row.reason}"
    if figures:
        head += f" ({', '.join(figures)})"
    if decision is not None and decision.note:
        head += f"; {decision.note}"
    return head
