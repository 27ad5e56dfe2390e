"""The New-run screen's Models list: the models the chosen probe can use, narrowed by a
search, ticked in the order chosen, one parameter form per model ticked; and, each time the
list is filled again, the focused field kept in view as the list's new height moves the pane."""

from __future__ import annotations

from textual import on
from textual.containers import VerticalScroll
from textual.widgets import Input, SelectionList

from diptych.core.workspace import Workspace
from diptych.tui.screens.new_run.fields import PointsAtFields
from diptych.tui.screens.new_run.panes import (
    ChoicesScroll,
    ModelsHint,
    in_view_beside_focus,
    keep_in_view,
)
from diptych.tui.screens.new_run.plan import form_id, none_fit
from diptych.tui.widgets.params_form import ParamsForm
from diptych.tui.widgets.pick_list import matches


class ChoosesModels(PointsAtFields):
    """The Models list of a screen whose ``probe_name`` says which probe it is for."""

    probe_name: str

    def __init__(self) -> None:
        super().__init__()
        #: The models the probe can use, and those chosen, in the order chosen.
        self._model_choices: list[str] = []
        self._chosen: list[str] = []
        self._syncing_models = False
        #: The list's refills not yet laid out, and how many have been, each followed by the
        #: focused field put back in view.
        self._refills_due = 0
        self.refills_settled = 0

    def _read_ticks(self) -> None:
        """The list's ticks into ``_chosen``: a hidden model stays as it was, new ones last."""
        models = self.query_one("#models", SelectionList)
        shown = [models.get_option_at_index(i).value for i in range(models.option_count)]
        ticked = set(models.selected)
        kept = [m for m in self._chosen if m not in shown or m in ticked]
        self._chosen = kept + [m for m in shown if m in ticked and m not in kept]

    def _show_models(self, *, keep_ticks: bool = True) -> None:
        """The offered models that match the search, the chosen ones ticked (a chosen model
        the search hides stays chosen); ``keep_ticks=False``: ``_chosen`` was just set."""
        models = self.query_one("#models", SelectionList)
        search = self.query_one("#models-search", Input).value
        if keep_ticks:
            # A tick whose message is still queued (the screen was busy changing the probe)
            # is read before the list is rebuilt; rebuilding would otherwise drop it.
            self._read_ticks()
        self._syncing_models = True
        try:
            models.clear_options()
            models.add_options(
                [(n, n, n in self._chosen) for n in matches(self._model_choices, search)]
            )
        finally:
            self._syncing_models = False
        why = none_fit(self.probe_name, self._model_choices, search)
        hidden = [
            m for m in self.selected_models() if m not in matches(self._model_choices, search)
        ]
        if why and hidden:
            why += f"; ticked, hidden by the search: {', '.join(hidden)}"
        hint = self.query_one("#models-hint", ModelsHint)
        hint.update("" if models.option_count else why)
        hint.display = not models.option_count and bool(why)
        models.set_class(hint.display, "-hinted")  # its rows to the hint (new_run.tcss)
        # Read whole, not cut at the pane's edge: the pane kept at its end, and scrolled to it.
        self.query_one("#choose", ChoicesScroll).anchor(hint.display)
        if hint.display:
            self.call_after_refresh(in_view_beside_focus, hint, over_focus=True)
        self._refills_due += 1
        self.call_after_refresh(self._refilled)

    def _refilled(self) -> None:
        """The Models list laid out at its new height: the focused field back in view, or,
        where the list is empty, why (which must be read whole) with the field beside it."""
        self._refills_due -= 1
        hint = self.query_one("#models-hint", ModelsHint)
        if hint.display:
            in_view_beside_focus(hint, over_focus=True)
        elif self.focused is not None:
            keep_in_view(self.focused)
        self.refills_settled += 1

    @on(Input.Changed, "#models-search")
    def _search_models(self) -> None:
        self._show_models()

    @on(SelectionList.SelectionHighlighted, "#models")
    def _models_in_view(self) -> None:
        # The list scrolls its own rows; the pane around it must show the list too, or the
        # highlighted model is below the pane's edge. Only while the user is in the list: a
        # highlight set as the list is filled must not scroll the probe out of a new form.
        models = self.query_one("#models", SelectionList)
        if models.has_focus:
            models.scroll_visible(animate=False)

    @on(Input.Submitted, "#models-search")
    def _to_models(self) -> None:
        self.query_one("#models", SelectionList).focus()

    async def _sync_model_forms(self) -> None:
        """One parameter form per chosen model, in the order chosen; edits are kept."""
        forms = self.query_one("#forms", VerticalScroll)
        chosen = self.selected_models()
        for form in list(forms.query(ParamsForm)):
            if form.id not in ("form-probe", "form-run") and form.id not in {
                form_id(m) for m in chosen
            }:
                await form.remove()
        registry = Workspace.plugins.registry()
        for name in chosen:
            if not forms.query(f"#{form_id(name)}"):
                form = ParamsForm(registry.models[name].Params, f"model {name}", id=form_id(name))
                await forms.mount(form, before=forms.query_one("#form-run"))

    def selected_models(self) -> list[str]:
        """The chosen models, in the order chosen (those a search hides too)."""
        return [m for m in self._chosen if m in self._model_choices]
