"""The New-run screen: choose a probe, models and parameters, see the plan and its cost, start.

Values are parsed exactly as the CLI parses ``-p`` / ``-M`` (``key=value`` strings through
``Workspace.plugins.probe`` / ``Workspace.plugins.model``), so the screen accepts what
``diptych run`` accepts and says why it refuses the rest. The dry-run estimate (``diptych run
--dry-run``) is recomputed in a worker thread shortly after each change. The screen returns a
:class:`RunRequest`; the app runs it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.timer import Timer
from textual.widgets import Button, Header, Input, Label, Select, SelectionList, Static
from textual.worker import Worker, WorkerState

from diptych.core.errors import DiptychError
from diptych.core.plugins import parse_params
from diptych.core.workspace import Workspace
from diptych.tui.jobs import JobHost, RunRequest, job_host
from diptych.tui.messages import EstimateReady
from diptych.tui.screens.new_run.models import ChoosesModels
from diptych.tui.screens.new_run.panes import (
    ChoicesScroll,
    FormsScroll,
    ModelsHint,
    ModelsReason,
)
from diptych.tui.screens.new_run.plan import (
    DEBOUNCE,
    RunOptions,
    estimate_text,
    few_units_said,
    form_id,
    probe_class,
)
from diptych.tui.widgets.footer import KeysFooter
from diptych.tui.widgets.params_form import INVALID, ParamsForm, mark_named_field
from diptych.tui.widgets.said import SaidLine
from diptych.tui.widgets.ticks import TickList
from diptych.tui.widgets.whole_numbers import WholeNumbers
from diptych.tui.workers import estimate_request


class NewRunScreen(ChoosesModels):
    """Choose a probe, models and parameters; see the trials and their cost; start the run."""

    CSS_PATH = "new_run.tcss"
    # A terminal under 30 rows: the headings give up their blank line and the plan its height.
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]
    HELP_PURPOSE = (
        "Plan a run before paying for it: choose a probe, the models it tests and their "
        "parameters; the plan at the foot shows the trials, their cost and the precision to "
        "expect. ^s starts the run."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", "Start run", priority=True),
        Binding("escape", "back", "Back"),
        Binding("f6", "other_pane", "Other pane"),
    ]

    def __init__(self, probe: str | None = None, last: dict[str, Any] | None = None) -> None:
        """``last``: the last run asked for in this workspace (``probe``, ``params``,
        ``models``), offered again."""
        super().__init__()
        registry = Workspace.plugins.registry()
        self.probe_names = sorted(registry.probes)
        self.last = last if last and last.get("probe") in registry.probes else None
        if probe is None and self.last is not None:
            probe = str(self.last["probe"])
        self.probe_name = probe if probe in registry.probes else self._first_probe()
        self._generation = 0
        self._estimate_error: str | None = None
        #: Whether ctrl+s was refused since the form last held: the plan keeps saying so;
        #: and the estimate's reason it gave, which a plan made again that meets it keeps.
        self._refused = False
        self._refused_because: str | None = None
        # Where the panes were before the plan scrolled them to a refusal the user had not
        # asked about (a new form's empty Models list): put back once the form holds.
        self._before_refusal: dict[str, float] | None = None
        self._debounce: Timer | None = None
        #: The request last sent to be planned, the generation the last plan answered, and
        #: whether ctrl+s waits for the plan of what the form holds now (a field's change is
        #: a message still queued when the key arrives): a run the plan would refuse must
        #: not start meanwhile.
        self._planning: RunRequest | None = None
        self._answered = 0
        self._start_asked = False
        #: The request whose plan said its design's warning (too few units a side): a ctrl+s
        #: that waited for the plan starts the run only once the warning was on screen.
        self._warned: RunRequest | None = None
        #: The request a ctrl+s waited for and was held on its warning: its plan, made again,
        #: still says the next ctrl+s starts it.
        self._held: RunRequest | None = None
        #: A new probe's forms and Models list still being put up.
        self._probe_changing = False

    def _first_probe(self) -> str:
        """The first probe a model that works offline can run (pst-text on the bundled
        SmolLM2: a plan that holds at once), else the first some installed model can run (not
        one, like ``calibration``, that only annotators answer)."""
        registry = Workspace.plugins.registry()
        models = list(registry.models.values())
        offline = [model for model in models if model.works_offline()]
        for fitting in (offline, models):
            for name in self.probe_names:
                wanted = registry.probes[name].capabilities
                if any(wanted & model.capabilities for model in fitting):
                    return name
        return self.probe_names[0] if self.probe_names else ""

    @property
    def diptych(self) -> JobHost:
        return job_host(self.app)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="body"):
            with ChoicesScroll(id="choose"):
                yield Label("Probe", classes="heading")
                yield Select(
                    [(name, name) for name in self.probe_names],
                    value=self.probe_name or Select.NULL,
                    allow_blank=not self.probe_names,
                    id="probe",
                    compact=True,
                )
                yield Static(id="probe-description")
                yield Label("Models", classes="heading", id="models-heading")
                yield Input(placeholder="search models", id="models-search", compact=True)
                yield TickList(id="models")
                # Why the list is empty, when it is: the search, or no model fits the probe.
                yield ModelsHint("", id="models-hint")
                yield ModelsReason("", id="models-error")
            with FormsScroll(id="forms"):
                if self.probe_name:
                    yield self._probe_form()
                yield ParamsForm(RunOptions, "run options", id="form-run")
        # What the app says (a run ended), above the plan: a toast there covered Start and
        # Back, and the plan is docked where a line docked above the footer would go.
        yield SaidLine(id="said")
        with Horizontal(id="plan"):
            # The plan scrolls rather than take the rows the Models list needs: a probe that
            # plans its figures' precision writes a line per figure.
            with VerticalScroll(id="estimate-scroll", can_focus=False):
                # Its costs and counts wrap whole: "estimated cost not" over "priced" read
                # as a label with half a value.
                yield WholeNumbers("", id="estimate")
            with Vertical(id="actions"):
                yield Button("Start", id="start", variant="primary", compact=True)
                yield Button("Back", id="back", compact=True)
        yield KeysFooter()

    def _probe_form(self) -> ParamsForm:
        return ParamsForm(
            probe_class(self.probe_name).Params, f"probe {self.probe_name}", id="form-probe"
        )

    async def on_mount(self) -> None:
        # The longest probe's name whole in the selector: 8 cells of its arrow and the pane's
        # padding, border and scrollbar around it ("counterfactual-retriev ▼" over "al").
        longest = max(map(len, self.probe_names), default=0)
        self.query_one("#choose").styles.width = max(30, longest + 8)
        self._show_probe()
        self.query_one("#probe", Select).focus()
        if self.last is not None and self.last.get("probe") == self.probe_name:
            await self._offer_last(self.last)
        else:
            await self._sync_model_forms()  # the model that works offline, ticked
        self._schedule()

    async def _offer_last(self, last: dict[str, Any]) -> None:
        """The last run's models and parameters, as they were given."""
        offered = set(self._model_choices)
        self._chosen = [name for name, _ in last.get("models", []) if name in offered]
        self._show_models(keep_ticks=False)
        await self._sync_model_forms()
        self._fill(self.query_one("#form-probe", ParamsForm), last.get("params", []))
        for name, params in last.get("models", []):
            if self.query(f"#{form_id(name)}"):
                self._fill(self.query_one(f"#{form_id(name)}", ParamsForm), params)

    @staticmethod
    def _fill(form: ParamsForm, params: list[str]) -> None:
        for pair in params:
            key, _, value = str(pair).partition("=")
            if key in {spec.name for spec in form.specs}:
                form.set_value(key, value)

    # --- choosing -------------------------------------------------------------------------

    def _show_probe(self) -> None:
        """Describe the probe and offer the models that have a capability it can use."""
        description = self.query_one("#probe-description", Static)
        if not self.probe_name:
            description.update("no probe is installed")
            return
        cls = probe_class(self.probe_name)
        description.update(cls.description())
        models = Workspace.plugins.registry().models
        self._model_choices = [
            name for name, model in sorted(models.items()) if cls.capabilities & model.capabilities
        ]
        if not self.selected_models():
            # None chosen fits: the model that answers here with no key, network or download
            # is ticked, so that the plan holds as the screen opens; where none is installed
            # the list stays to be ticked (and says so).
            offline = [n for n in self._model_choices if models[n].works_offline()]
            self._chosen = [*self._chosen, *offline[:1]]
        self._show_models()

    @property
    def settled(self) -> bool:
        """Whether what the screen does by itself after a change is done: the probe's forms
        put up, the Models list refilled and laid out, and the plan of the form asked for."""
        return not self._probe_changing and not self._refills_due and self._debounce is None

    @on(Select.Changed, "#probe")
    async def _probe_changed(self, event: Select.Changed) -> None:
        if event.value is Select.NULL or event.value == self.probe_name:
            return
        self.probe_name = str(event.value)
        self._probe_changing = True
        try:
            forms = self.query_one("#forms", VerticalScroll)
            await forms.query("#form-probe").remove()
            await forms.mount(self._probe_form(), before=0)
            self._show_probe()
            await self._sync_model_forms()
            self._schedule()
        finally:
            self._probe_changing = False

    @on(SelectionList.SelectedChanged, "#models")
    async def _models_changed(self) -> None:
        if self._syncing_models:
            return
        self._read_ticks()
        await self._sync_model_forms()
        self._schedule()

    @on(ParamsForm.Changed)
    def _form_changed(self) -> None:
        self._schedule()

    # --- validating and estimating ---------------------------------------------------------

    def _schedule(self) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(DEBOUNCE, self._replan)

    def _replan(self) -> None:
        self._debounce = None
        if any(not self.query(f"#{form_id(m)}") for m in self.selected_models()):
            # A chosen model's form is still being mounted; the handler mounting it plans
            # again once it is there.
            return
        request = self.validate()
        self._generation += 1
        self._estimate_error = None
        self.remove_class("-held")  # until a plan says the warning it waits on again
        estimate = self.query_one("#estimate", Static)
        if request is None:
            first = self.first_invalid()
            where = "" if first is None else f" ({first[0]})"
            self._refused |= self._start_asked
            self._start_asked = False
            if self._refused:
                # ctrl+s was refused and the form is not fixed yet: that still holds.
                self._cannot_start(f"fix the field marked in red{where}")
            else:
                estimate.update(
                    Text(f"fix the field marked in red{where} to see the plan", style="red")
                )
            if first is not None and not self._typing_in_a_form():
                # In view, so that the sentence points at something on the screen; the focus
                # stays where the user is (ctrl+s takes it there).
                if self._before_refusal is None:
                    self._before_refusal = self._pane_scrolls()
                self._into_view(first[1])
            return
        self._refused = False
        if self._before_refusal is not None:
            # The refusal is gone: the panes go back to where the user had them (a new
            # form's probe at the top, not cut off by the scroll to the empty list).
            # A pane anchored to the Models hint since (a search left the list empty) stays
            # there: put back, the hint would be cut at its edge.
            for pane in self.query(VerticalScroll):
                if pane.id in self._before_refusal and not pane.is_anchored:
                    pane.scroll_to(y=self._before_refusal[pane.id], animate=False)
            self._before_refusal = None
        estimate.update(Text("estimating…", style="dim"))
        self._planning = request
        self._estimate(self._generation, self.diptych.store_path, request)

    def validate(self) -> RunRequest | None:
        """The request the form describes, or None after showing each error where it is."""
        if not self.probe_name:
            return None
        ok = True
        probe_form = self.query_one("#form-probe", ParamsForm)
        probe_params = probe_form.values()
        try:
            Workspace.plugins.probe(self.probe_name, probe_params)
            probe_form.show_error(None)
        except DiptychError as error:
            probe_form.show_error(str(error))
            ok = False
        models: list[tuple[str, tuple[str, ...]]] = []
        for name in self.selected_models():
            form = self.query_one(f"#{form_id(name)}", ParamsForm)
            params = form.values()
            try:
                Workspace.plugins.model((name, params))
                form.show_error(None)
            except DiptychError as error:
                form.show_error(str(error))
                ok = False
            models.append((name, tuple(params)))
        models_error = self.query_one("#models-error", Static)
        # Whole in the pane's width; the heading above it marked with a sign, not colour alone.
        models_error.update("" if models else f"{INVALID} tick one or more (space)")
        heading = self.query_one("#models-heading", Label)
        heading.set_class(not models, "-invalid")
        heading.update("Models" if models else f"{INVALID} Models")
        ok = ok and bool(models)
        run_form = self.query_one("#form-run", ParamsForm)
        try:
            options = parse_params(RunOptions, run_form.values(), owner="run")
            run_form.show_error(None)
        except DiptychError as error:
            run_form.show_error(str(error))
            return None
        if not ok:
            return None
        return RunRequest(
            probe=self.probe_name,
            probe_params=tuple(probe_params),
            models=tuple(models),
            concurrency=options.concurrency,
            max_attempts=options.max_attempts,
            timeout=options.timeout,
            max_cost=options.max_cost,
            max_retry_wait=options.max_retry_wait,
            paid_retries=options.paid_retries,
            target_width=options.target_width,
        )

    @work(thread=True, exclusive=True, exit_on_error=False, group="estimate")
    def _estimate(self, generation: int, store_path: Path, request: RunRequest) -> None:
        try:
            result = estimate_request(store_path, request)
        except DiptychError as error:
            self.post_message(EstimateReady(generation, None, str(error)))
            return
        self.post_message(EstimateReady(generation, result))

    @on(EstimateReady)
    def _estimated(self, message: EstimateReady) -> None:
        if message.generation != self._generation:
            return  # an answer to a form that has changed since
        panel = self.query_one("#estimate", Static)
        self._estimate_error = message.error
        self._answered = message.generation
        if self._start_asked:
            estimate = message.estimate
            if estimate is not None and few_units_said(estimate) and self._warned != self._planning:
                # As `diptych run` says it before buying: the warning first, on screen; the
                # next ctrl+s starts the run.
                self._start_asked = False
                self._warned = self._held = self._planning
                options = parse_params(
                    RunOptions, self.query_one("#form-run", ParamsForm).values(), owner="run"
                )
                panel.update(estimate_text(estimate, options.max_cost, again=True))
                self.add_class("-held")
                self.query_one("#estimate-scroll", VerticalScroll).scroll_home(animate=False)
                return
            self.action_start()  # the plan ctrl+s waited for: start, or say why not
            return
        if message.error != self._refused_because:
            self._refused_because = None  # the form changed what it refuses, or holds
        if message.estimate is None and self._refused_because is not None:
            self._cannot_start(self._refused_because)
        elif message.estimate is None:
            panel.update(Text(f"cannot run: {message.error}", style="red"))
        if message.estimate is None:
            mark_named_field(self.query(ParamsForm), message.error or "")
            return
        options = parse_params(
            RunOptions, self.query_one("#form-run", ParamsForm).values(), owner="run"
        )
        again = self._held is not None and self._held == self._planning
        panel.update(estimate_text(message.estimate, options.max_cost, again=again))
        self.set_class(again, "-held")
        if few_units_said(message.estimate):
            self._warned = self._planning  # read at the top of the plan before ctrl+s

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # A plugin's own bug while planning: say so rather than "estimating…" for ever.
        if event.worker.group == "estimate" and event.state == WorkerState.ERROR:
            error = event.worker.error
            self._estimate_error = f"{type(error).__name__}: {error}"
            self._answered = self._generation
            self.query_one("#estimate", Static).update(
                Text(f"the plan failed: {self._estimate_error}", style="red")
            )
            if self._start_asked:
                self.action_start()

    # --- leaving --------------------------------------------------------------------------

    def action_start(self) -> None:
        request = self.validate()
        if request is None:
            first = self.first_invalid()
            where = "" if first is None else f" ({first[0]})"
            self._cannot_start(f"fix the field marked in red{where}")
            if first is not None:
                # The field to fix, in view and focused: the message points at it; again once
                # the focus has moved (keeping the focused input in view can cut off its name).
                self._into_view(first[1])
                first[1].focus()
                self.call_after_refresh(self._into_view, first[1])
            return
        planned = self._planning == request and self._answered == self._generation
        self._start_asked = self._debounce is not None or not planned
        if self._start_asked:
            # The plan of what the form holds is not in yet: it starts the run or says why not.
            if self._debounce is not None:
                self._debounce.stop()
            if self._debounce is not None or self._planning != request:
                self._replan()
            self.query_one("#estimate", Static).update(
                Text("checking the plan; the run starts once it allows…", style="dim")
            )
            return
        if self._estimate_error is not None:
            # The field refused, in view and focused; the line names it, so it holds after.
            self._cannot_start(self._estimate_error)
            self._refused_because = self._estimate_error
            marked = mark_named_field(self.query(ParamsForm), self._estimate_error)
            if marked is not None:
                self._into_view(marked)
                marked.focus()
            return
        self.dismiss(request)

    def _cannot_start(self, why: str) -> None:
        """Say why in the plan, where the trials and cost would be (a toast covered Start and
        Back; a line of its own took a row Models needs at 60×20); a fixed form takes it back."""
        self._refused = True
        self.query_one("#estimate", Static).update(
            Text(f"the run cannot start: {why}", style="bold red")
        )

    def action_back(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#start")
    def _start_pressed(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#back")
    def _back_pressed(self) -> None:
        self.action_back()
