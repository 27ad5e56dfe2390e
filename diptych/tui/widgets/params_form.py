"""A form for a plugin's ``Params``: one input per pydantic field, with its description.

The form never validates by itself: it turns what was changed into ``key=value`` strings, and
the caller parses those through the CLI's own path (``Workspace.plugins.probe`` /
``Workspace.plugins.model`` / ``parse_params``), so a value is accepted or refused exactly as
``diptych run -p`` would. The resulting one-line error is shown under the field it names.

A list field whose schema names its vocabulary (``json_schema_extra={"choices": [...]}``, e.g.
the PST identities) also gets a searchable pick-list under it; what is picked is written into
the field, and what is typed into the field is picked.
"""

from __future__ import annotations

import re
import types
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, TypeAdapter
from rich.cells import cell_len
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label, Select, Static

from diptych.tui.widgets.pick_list import PickList
from diptych.tui.widgets.ticks import TickBox

#: The sign a field to fix carries beside its name: red alone is lost on a monochrome terminal.
INVALID = "✗"

#: A refusal's list of what would have been accepted: ``...; known: a, b, c``.
KNOWN_LIST = re.compile(r"; known: (.*)$")


def short_known(message: str, *, picks: bool) -> str:
    """A refusal short enough to read beside its field: a field with a pick list points to the
    list instead of repeating it, any other keeps its first few known values and counts the
    rest (the CLI prints the whole list)."""
    match = KNOWN_LIST.search(message)
    if match is None:
        return message
    if picks:
        return message[: match.start()] + "; pick from the list under the field"
    known = match.group(1).split(", ")
    if len(known) <= 5:
        return message
    rest = f"{len(known) - 4:,}"
    return message[: match.start()] + f"; known: {', '.join(known[:4])} and {rest} more"


#: The field a parse error names: ``... parameter 'masculine.0': ...`` -> ``masculine``.
ERROR_FIELD = re.compile(r"parameter '([^'.]+)[^']*'(?:: (.*))?")


#: What a number field takes, said when a key it cannot take is dropped.
TAKES = {"integer": "whole numbers", "number": "numbers"}


def takes_words(name: str, kind: str, width: int) -> str:
    """One line under field ``name`` saying what it takes: with its name where ``width``
    cells hold it ("seed takes whole numbers"), else the words alone ("whole numbers only")."""
    named = f"{name} takes {TAKES[kind]}"
    return named if cell_len(named) <= width else f"{TAKES[kind]} only"


class NumberInput(Input):
    """An integer or number input that keeps what is typed into it, whatever it is ("1a" in
    a whole-number field stays "1a", where Textual's own dropped the key and rang the bell, so
    the field showed a value the user had not given): the form marks it and says what the
    field takes, and the run is refused until it is fixed."""

    def __init__(self, value: str, *, takes: Literal["integer", "number"], **kwargs: Any) -> None:
        super().__init__(value, type="text", **kwargs)
        #: What the field takes: "integer" (whole numbers) or "number".
        self.takes: Literal["integer", "number"] = takes

    def holds_a_number(self) -> bool:
        """Whether the field is empty (its default) or holds what it takes."""
        text = self.value.strip()
        if not text:
            return True
        if self.takes == "integer":
            return WHOLE.fullmatch(text) is not None
        try:
            float(text)
        except ValueError:
            return False
        return True


#: A whole number as a field takes it.
WHOLE = re.compile(r"[-+]?\d+")


@dataclass(frozen=True)
class FieldSpec:
    """How one parameter is shown and how its value is written back as ``key=value``."""

    name: str
    #: bool, choice, int, float, list or text.
    kind: str
    description: str
    #: The value shown at first: the default in its CLI form ("" when there is none).
    initial: str
    choices: tuple[str, ...] = ()
    optional: bool = False
    #: The vocabulary a list field picks from (its schema's ``choices``), if it names one.
    suggestions: tuple[str, ...] = ()


def _strip_optional(annotation: Any) -> tuple[Any, bool]:
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        optional = len(args) < len(get_args(annotation))
        if len(args) == 1:
            return args[0], optional
        return annotation, optional
    return annotation, False


def _kind(annotation: Any) -> tuple[str, tuple[str, ...]]:
    origin = get_origin(annotation)
    if annotation is bool:
        return "bool", ()
    if origin is Literal:
        return "choice", tuple(str(a) for a in get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return "choice", tuple(str(m.value) for m in annotation)
    if annotation is int:
        return "int", ()
    if annotation is float:
        return "float", ()
    if origin in (list, tuple, set, frozenset):
        return "list", ()
    return "text", ()


def _as_text(value: Any) -> str:
    """A default in the form ``key=value`` would give it (lists comma-separated)."""
    value = TypeAdapter(Any).dump_python(value, mode="json")
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


def field_specs(schema: type[BaseModel]) -> list[FieldSpec]:
    specs = []
    for name, info in schema.model_fields.items():
        annotation, optional = _strip_optional(info.annotation)
        kind, choices = _kind(annotation)
        initial = (
            "" if info.is_required() else _as_text(info.get_default(call_default_factory=True))
        )
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        vocabulary = extra.get("choices")
        suggestions = (
            tuple(str(v) for v in vocabulary)
            if kind == "list" and isinstance(vocabulary, list | tuple)
            else ()
        )
        specs.append(
            FieldSpec(
                name=name,
                kind=kind,
                description=info.description or "",
                initial=initial,
                choices=choices,
                optional=optional or info.is_required(),
                suggestions=suggestions,
            )
        )
    return specs


class ParamsForm(Vertical):
    """Inputs for every field of a pydantic ``Params`` model, titled, with inline errors."""

    DEFAULT_CSS = """
    ParamsForm {
        height: auto;
        padding: 0 0 1 0;
    }
    ParamsForm > .form-title {
        text-style: bold;
        color: $accent;
    }
    ParamsForm .field {
        height: auto;
    }
    ParamsForm .field-row {
        height: 1;
    }
    ParamsForm .field-name {
        width: 18;
    }
    ParamsForm .field-input {
        width: 1fr;
    }
    /* The focus ring: the field's name and input stand out, not a grey 30 → 39. */
    ParamsForm .field-input:focus {
        background: $accent 40%;
        text-style: bold;
    }
    ParamsForm .field-row:focus-within .field-name {
        color: $text;
        background: $accent;
        text-style: bold;
    }
    ParamsForm .field-help {
        padding-left: 18;
        color: $text-muted;
    }
    ParamsForm .field-error, ParamsForm > .form-error {
        color: $error;
        display: none;
    }
    ParamsForm .field-error {
        padding-left: 18;
    }
    ParamsForm .field-error.-shown, ParamsForm > .form-error.-shown {
        display: block;
    }
    ParamsForm .field-pick {
        padding-left: 18;
    }
    ParamsForm .no-params {
        color: $text-muted;
    }
    """

    class Changed(Message):
        """Some value of the form changed."""

        def __init__(self, form: ParamsForm) -> None:
            super().__init__()
            self.form = form

    def __init__(self, schema: type[BaseModel], title: str, *, id: str) -> None:
        super().__init__(id=id)
        self.schema = schema
        self.title = title
        self.specs = field_specs(schema)
        self._inputs: dict[str, Widget] = {}
        self._labels: dict[str, Label] = {}

    def _widget_id(self, name: str) -> str:
        return f"{self.id}-{name}"

    def _input_for(self, spec: FieldSpec) -> Widget:
        widget_id = self._widget_id(spec.name)
        if spec.kind == "bool":
            return TickBox(value=spec.initial == "true", id=widget_id, compact=True)
        if spec.kind == "choice":
            return Select(
                [(choice, choice) for choice in spec.choices],
                value=spec.initial if spec.initial in spec.choices else Select.NULL,
                allow_blank=spec.optional or spec.initial not in spec.choices,
                prompt="(default)",
                id=widget_id,
                compact=True,
            )
        kind: Literal["integer", "number", "text"] = {"int": "integer", "float": "number"}.get(
            spec.kind, "text"
        )  # type: ignore[assignment]
        placeholder = "a,b,c (comma-separated)" if spec.kind == "list" else "(default)"
        if kind != "text":
            return NumberInput(
                spec.initial, takes=kind, placeholder=placeholder, id=widget_id, compact=True
            )
        return Input(
            spec.initial,
            placeholder=placeholder,
            type=kind,
            valid_empty=True,
            id=widget_id,
            compact=True,
        )

    def compose(self) -> ComposeResult:
        yield Static(self.title, classes="form-title")
        if not self.specs:
            yield Static("no parameters", classes="no-params")
        # Every name of the form whole beside its input ("similarity_thresho(default)" ran a
        # name into its value), the inputs in one column.
        name_width = max([18, *(cell_len(spec.name) + 1 for spec in self.specs)])
        for spec in self.specs:
            widget = self._input_for(spec)
            widget.add_class("field-input")
            self._inputs[spec.name] = widget
            with Vertical(classes="field"):
                with Horizontal(classes="field-row"):
                    name = Label(spec.name, classes="field-name")
                    name.styles.min_width = name_width
                    self._labels[spec.name] = name
                    yield name
                    yield widget
                # Under the field it explains, above its pick list: focused after ctrl+s, the
                # field and its reason share the view (below a list, the reason was off it).
                yield Static("", classes="field-error", id=f"{self.id}-{spec.name}-error")
                if spec.suggestions:
                    yield PickList(
                        spec.suggestions,
                        picked=_split(spec.initial),
                        placeholder="search (space picks)",
                        id=f"{self.id}-{spec.name}-pick",
                        classes="field-pick",
                    )
                if spec.description:
                    yield Static(spec.description, classes="field-help")
        yield Static("", classes="form-error")

    # --- values ---------------------------------------------------------------------------

    def _current(self, spec: FieldSpec) -> str | None:
        """The field's value in its ``key=value`` form; None when it says "default"."""
        widget = self._inputs[spec.name]
        if isinstance(widget, Checkbox):
            return "true" if widget.value else "false"
        if isinstance(widget, Select):
            value = widget.value
            return None if value is Select.NULL else str(value)
        assert isinstance(widget, Input)
        # Empty means the default, as the placeholder says (not "an empty integer").
        return widget.value if widget.value.strip() else None

    def values(self) -> list[str]:
        """``key=value`` for each field changed from its default, as ``-p`` would take them."""
        out = []
        for spec in self.specs:
            current = self._current(spec)
            if current is not None and current != spec.initial:
                out.append(f"{spec.name}={current}")
        return out

    def set_value(self, name: str, value: str | bool) -> None:
        """Set a field as a user would (used to prefill a form)."""
        widget = self._inputs[name]
        if isinstance(widget, Checkbox):
            widget.value = bool(value)
        elif isinstance(widget, Select):
            widget.value = value
        else:
            assert isinstance(widget, Input)
            widget.value = str(value)

    # --- errors ---------------------------------------------------------------------------

    def show_error(self, message: str | None) -> None:
        """Show a parse error under the field it names (or under the form); None clears."""
        for error in self.query(".field-error, .form-error").results(Static):
            error.update("")
            error.remove_class("-shown")
        for field, label in self._labels.items():
            label.update(field)
        if message is None:
            return
        name = self.field_named(message)
        if name is not None:
            # Marked by a sign beside its name, as the Models list is, not by red alone.
            self._labels[name].update(f"{INVALID} {name}")
            target = self.query_one(f"#{self.id}-{name}-error", Static)
            match = ERROR_FIELD.search(message)
            detail = match.group(2) if match and match.group(1) == name else None
            spec = next((spec for spec in self.specs if spec.name == name), None)
            text = (detail or message).removeprefix("Value error, ")
            # A letter in a number field: what the field takes, as said when it was typed.
            text = self._takes(name) or short_known(text, picks=bool(spec and spec.suggestions))
            target.update(text)
        else:
            target = self.query_one(".form-error", Static)
            target.update(message)
        target.add_class("-shown")
        target.scroll_visible()

    def marked_field(self) -> tuple[str, Widget] | None:
        """The field whose error is shown (its name and input), if one is; the form's own
        error marks its first field."""
        for spec in self.specs:
            if self.query_one(f"#{self.id}-{spec.name}-error").has_class("-shown"):
                return spec.name, self._inputs[spec.name]
        if self.query_one(".form-error").has_class("-shown") and self.specs:
            first = self.specs[0].name
            return first, self._inputs[first]
        return None

    def field_named(self, message: str) -> str | None:
        """The field a parse error is about: the one it names as the parameter, else (a check
        of the whole model, which names no parameter) the first field it mentions."""
        match = ERROR_FIELD.search(message)
        if match and match.group(1) in self._inputs:
            return match.group(1)
        detail = match.group(2) if match and match.group(2) else message
        for spec in self.specs:
            if re.search(rf"\b{re.escape(spec.name)}\b", detail):
                return spec.name
        return None

    def pick_list(self, name: str) -> PickList | None:
        """The pick-list of field ``name``, if it has one."""
        found = self.query(f"#{self.id}-{name}-pick").results(PickList)
        return next(iter(found), None)

    @on(PickList.Changed)
    def _picked(self, event: PickList.Changed) -> None:
        event.stop()
        name = (event.pick_list.id or "").removeprefix(f"{self.id}-").removesuffix("-pick")
        widget = self._inputs.get(name)
        if isinstance(widget, Input):
            # In the order the user gave them, as ``-p`` keeps it: names typed that are not in
            # the vocabulary (new identities) stay where they are, a name unpicked goes, a
            # name picked comes last.
            picked = event.pick_list.picked
            typed = _split(widget.value)
            kept = [v for v in typed if v not in event.pick_list.choices or v in picked]
            values = kept + [p for p in picked if p not in kept]
            if values != typed:
                # Written back only when it differs: "carpenter," typed on its way to the next
                # name keeps its comma.
                widget.value = ",".join(values)

    def _takes(self, name: str) -> str | None:
        """What number field ``name`` takes, in words that fit under it, while it holds
        something else ("seed takes whole numbers"); None otherwise."""
        widget = self._inputs.get(name)
        if not isinstance(widget, NumberInput) or widget.holds_a_number():
            return None
        # The error line's width under the input (its padding is the names' column, or less
        # where a narrow pane puts each name over its input).
        padding = self.query_one(f"#{self.id}-{name}-error").styles.padding
        return takes_words(name, widget.takes, self.content_size.width - padding.width)

    def _mark_typed(self, input: NumberInput) -> None:
        """Mark a number field as its keys arrive: what it holds is not a number (the line
        says what it takes, at once), or is again (the line goes; the plan checks the rest)."""
        name = (input.id or "").removeprefix(f"{self.id}-")
        error = self.query_one(f"#{self.id}-{name}-error", Static)
        said = self._takes(name)
        if said is not None:
            self._labels[name].update(f"{INVALID} {name}")
            error.update(said)
            error.add_class("-shown")
            error.scroll_visible(animate=False)
        elif error.has_class("-shown") and str(error.render()).endswith((*TAKES.values(), " only")):
            self._labels[name].update(name)
            error.update("")
            error.remove_class("-shown")

    @on(Input.Changed)
    @on(Select.Changed)
    @on(Checkbox.Changed)
    def _changed(self, event: Message) -> None:
        event.stop()
        if isinstance(event, Input.Changed) and isinstance(event.input, NumberInput):
            self._mark_typed(event.input)
        if isinstance(event, Input.Changed) and event.input.id:
            name = event.input.id.removeprefix(f"{self.id}-")
            picker = self.pick_list(name) if name in self._inputs else None
            if picker is not None and picker.picked != _split(event.value):
                picker.set_picked(_split(event.value))
        self.post_message(self.Changed(self))


def mark_named_field(forms: Iterable[ParamsForm], error: str) -> Widget | None:
    """Mark the field of ``forms`` a refusal names, if one does (a dataset not found): the
    input to fix, or None."""
    for form in forms:
        if form.field_named(error) is not None:
            form.show_error(error)
            marked = form.marked_field()
            return None if marked is None else marked[1]
    return None


def _split(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]
