"""Usage errors as one line, and help screens that show flags as flags.

typer 0.29 carries its own copy of click (``typer._click``), so its usage errors are
:class:`typer.TyperException` subclasses, not ``click.ClickException``. The range of typer this
module is written against is pinned in pyproject.toml; a test walks every command to keep it so.
"""

from __future__ import annotations

import difflib
import inspect
import re
from collections.abc import Callable, Collection
from typing import Any, TypeVar

import typer
from typer.core import TyperGroup, TyperOption

from diptych.core.errors import UsageError
from diptych.core.number_words import not_the_number

#: What the number of an option checked by one of these callbacks counts, and a value to suggest.
_COUNTED: dict[Callable[..., Any], tuple[str | None, float]] = {}

_Check = TypeVar("_Check", bound=Callable[..., Any])


def counts(noun: str | None, example: float) -> Callable[[_Check], _Check]:
    """Mark an option's callback as checking a number that counts ``noun`` (None: a plain
    number), with ``example`` a good value: the words for a value that is no number at all,
    which typer refuses before the callback sees it."""

    def mark(check: _Check) -> _Check:
        _COUNTED[check] = (noun, example)
        return check

    return mark


def one_line(error: typer.TyperException) -> str:
    """The error as one line: typer's message, and where to read the command's usage."""
    # typer validates values with pydantic, whose messages start "Value error, ".
    words = _number_words(error)
    if words is not None:
        error.message = words
    message = " ".join(error.format_message().replace("Value error, ", "").split())
    ctx = getattr(error, "ctx", None)
    option = getattr(error, "option_name", None)
    if option == "--store" and ctx is not None and ctx.parent is not None:
        # The one option users most often put after the command: say where it goes.
        return (
            f"no such option --store for '{ctx.command_path}': it goes before the command, "
            f"as in 'diptych --store PATH {ctx.info_name} ...'"
        )
    possibilities = sorted(getattr(error, "possibilities", None) or [])
    if type(error).__name__ == "NoSuchOption" and option:
        # In the words of every other error line: lower case, the near miss as a question.
        message = f"no such option {option}"
        if len(possibilities) == 1:
            message += f"; did you mean {possibilities[0]}?"
        elif possibilities:
            message += f"; did you mean one of {', '.join(possibilities)}?"
    elif re.match(r"[A-Z][a-z]", message):
        # click's sentences ("Missing option", "Invalid value") start as no other line does.
        message = message[0].lower() + message[1:]
    if ctx is not None:
        return f"{message} (see '{ctx.command_path} --help')"
    return message


def _number_words(error: typer.TyperException) -> str | None:
    """The project's line for a numeric option's value that typer (through pydantic) refused:
    the value, the number wanted and an example, where pydantic names neither."""
    errors = getattr(error.__cause__, "errors", None)
    param = getattr(error, "param", None)
    descriptor = getattr(param, "type_descriptor", None)
    if not callable(errors) or param is None or descriptor is None:
        return None
    problems = errors()
    if not problems:
        return None
    whole = descriptor.annotation is int
    if descriptor.annotation not in (int, float):
        return None
    # typer hands click its own wrapper of the callback (functools.wraps keeps ours under it).
    callback = getattr(param, "callback", None)
    check = inspect.unwrap(callback) if callable(callback) else None
    noun, example = _COUNTED.get(check, (None, None)) if check else (None, None)
    default = getattr(param, "default", None)
    return not_the_number(
        problems[0],
        whole=whole,
        noun=noun,
        lowest=getattr(param, "min", None),
        highest=getattr(param, "max", None),
        example=example if example is not None else default,
    )


def exit_code(error: typer.TyperException) -> int:
    # A UsageError carries 2; anything typer raises about the command line is a usage error.
    return error.exit_code if error.exit_code != 1 else 2


_display_type_rich = TyperOption.display_type_rich


def _flag_display(self: TyperOption, ctx: Any) -> str | None:
    # typer 0.29's rich help prints the type of every option, "<bool>" for a flag that takes no
    # value; a flag has no value to describe.
    if self.is_flag:
        return None
    shown = _display_type_rich(self, ctx=ctx)
    # "<list[str]>" of a repeatable option reads as its element type, as click prints it.
    return re.sub(r"<list\[(\w+)\]>", r"<\1>", shown) if shown else shown


def show_flags_as_flags() -> None:
    """Install the flag display above (idempotent)."""
    TyperOption.display_type_rich = _flag_display  # type: ignore[method-assign]


class OneLineSummaries(TyperGroup):
    """The root group: each command's summary in the command lists on one line.

    Typer's rich help keeps the single line breaks of a docstring's first paragraph in the
    command panels (it joins them only in a command's own help), so a summary wrapped at 100
    characters in the source broke mid-sentence in ``diptych --help``. The sub-groups are built
    before the root, so one walk here reaches every command."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _join_summaries(self)


def _join_summaries(group: TyperGroup) -> None:
    for command in group.commands.values():
        if command.short_help is None and command.help:
            first = inspect.cleandoc(command.help).split("\n\n")[0]
            command.short_help = " ".join(first.split())
        if isinstance(command, TyperGroup):
            _join_summaries(command)


def misspelt(probe: str, name: str, options: Collection[str]) -> None:
    """Refuse ``--name`` read as a probe parameter when the probe has no such parameter: as a
    near miss of one of ``diptych run``'s own ``options`` (``--dry-rn``) when it is one (the
    user meant the option), else as neither kind, each listed on the one line. The probe's
    "no parameter" error would send them the wrong way: they never gave a -p."""
    from diptych.core.workspace import Workspace

    cls = Workspace.plugins.registry().probes.get(probe)
    if cls is None or name.replace("-", "_") in cls.Params.model_fields:
        return
    close = difflib.get_close_matches(f"--{name}", [o for o in options if o.startswith("--")],
                                      n=1, cutoff=0.75)  # fmt: skip
    if close:
        raise UsageError(
            f"no such option --{name}; did you mean {close[0]}? (probe parameters are given "
            "as -p NAME=VALUE)"
        )
    # Neither kind: the probe's "no parameter" error would speak of a -p the user never gave.
    own = sorted({o for o in options if o.startswith("--")})
    params = ", ".join(f"--{p.replace('_', '-')}" for p in cls.Params.model_fields) or "none"
    raise UsageError(
        f"no such option --{name}: neither an option of 'diptych run' ({', '.join(own)}) nor a "
        f"parameter of {probe} ({params})"
    )
