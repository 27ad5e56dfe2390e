"""The ``diptych`` command: one typer app, one module per command group."""

from __future__ import annotations

import errno
import logging
import re
import sys
import traceback
from pathlib import Path
from typing import Annotated

import typer

from diptych import __version__
from diptych.cli import (
    agent_cmd,
    agreement_cmd,
    annotate_cmd,
    audit_cmd,
    bundle_cmd,
    calibrate_cmd,
    compare_cmd,
    doctor_cmd,
    evidence_cmd,
    metrics,
    plugins_cmd,
    run_cmd,
    runs_cmd,
    standings_cmd,
    tui_cmd,
)
from diptych.cli.context import State
from diptych.cli.paths import store_path
from diptych.cli.signals import terminate_as_interrupt
from diptych.cli.usage import OneLineSummaries, exit_code, one_line, show_flags_as_flags
from diptych.core.errors import DiptychError
from diptych.core.plugins.faults import plugin_fault
from diptych.core.safe_text import escape_controls
from diptych.core.workspace import damage_of

show_flags_as_flags()

app = typer.Typer(
    name="diptych",
    cls=OneLineSummaries,
    help="Audit generative text, text-to-image and vision-language models for social bias.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"diptych {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    store: Annotated[
        Path | None,
        typer.Option(
            "--store",
            envvar="DIPTYCH_STORE",
            metavar="PATH",
            parser=store_path,
            help="Workspace directory (default ./.diptych).",
        ),
    ] = None,
    chroma: Annotated[
        str | None,
        typer.Option(
            "--chroma",
            envvar="DIPTYCH_CHROMA",
            metavar="URL",
            help="chromadb server of the vector index and agent memory (default: the workspace).",
        ),
    ] = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print version.")
    ] = False,
) -> None:
    ctx.obj = State(store_path=store, chroma_url=chroma, debug=debug)


run_cmd.register(app)
runs_cmd.register(app)
evidence_cmd.register(app)
bundle_cmd.register(app)
plugins_cmd.register(app)
compare_cmd.register(app)
standings_cmd.register(app)
annotate_cmd.register(app)
agreement_cmd.register(app)
calibrate_cmd.register(app)
tui_cmd.register(app)
agent_cmd.register(app)
audit_cmd.register(app)
doctor_cmd.register(app)
app.add_typer(metrics.app, name="metrics", help="Score data gathered elsewhere (CSV/JSONL in).")


#: Control characters a terminal acts on (C0 but tab and newline, DEL, C1).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class _OneLine(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"{record.levelname.lower()}: {escape_controls(record.getMessage())}"


def main(argv: list[str] | None = None) -> None:
    """Entry point: every DiptychError becomes one line on stderr and a non-zero exit."""
    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args
    logger = logging.getLogger("diptych")
    if not any(isinstance(h.formatter, _OneLine) for h in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_OneLine())
        logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if debug else logging.WARNING)
    for arg in args:
        control = _CONTROL.search(arg)
        if control is not None:
            # An escape sequence in a name would be replayed by the terminal each time the
            # name is printed (moving the cursor, rewriting what an auditor reads).
            shown = arg.encode("unicode_escape").decode("ascii")[:80]
            _fail(
                False,
                f"argument {shown!r} holds a terminal control character "
                f"(U+{ord(control.group()):04X}); remove it",
                2,
            )
    try:
        with terminate_as_interrupt():
            code = app(args=args, prog_name="diptych", standalone_mode=False)
    except DiptychError as error:
        if debug:
            traceback.print_exc()
        # A message may quote a value read from a file (an identity, a group): shown escaped.
        print(f"error: {escape_controls(str(error))}", file=sys.stderr)
        sys.exit(error.exit_code)
    except typer.Abort:
        print("aborted", file=sys.stderr)
        sys.exit(130)
    except typer.TyperException as error:
        if type(error).__name__ == "NoArgsIsHelpError":
            # A group named alone (`diptych audit`) asks what it holds: the help is the
            # answer, not a usage error. Rich help is printed as it is made and leaves the
            # message empty; plain help is the message.
            help_text = error.format_message()
            if help_text:
                print(help_text)
            sys.exit(0)
        # Usage errors (unknown option or command, bad or missing value): one line, exit 2.
        if debug:
            traceback.print_exc()
        print(f"error: {escape_controls(one_line(error))}", file=sys.stderr)
        sys.exit(exit_code(error))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    except RecursionError:
        # Input nested deeper than any reader follows (brackets, YAML, JSON).
        _fail(debug, "an input is nested too deeply to read; flatten it", 2)
    except MemoryError:
        _fail(debug, "an input is too large to hold in memory; split it or give a smaller one", 2)
    except UnicodeDecodeError as error:
        _fail(
            debug,
            f"an input is not UTF-8 text (byte {error.start}: {error.reason}); give a text file",
            2,
        )
    except Exception as error:  # noqa: BLE001 (the last guard: one line, never a traceback)
        damage = damage_of(error, _store_named(args))
        if damage is not None:
            # Found past the Workspace's own guard (a query outside its with-block).
            _fail(debug, str(damage), damage.exit_code)
        full = _disk_full(error)
        if full is not None:
            _fail(debug, full, 1)
        fault = plugin_fault(error)
        if fault is not None:
            # A third party's probe or model failed: its authors get the report, not diptych's.
            _fail(debug, fault.message(error), 1)
        _fail(
            debug,
            f"internal error: {type(error).__name__}: {' '.join(str(error).split())[:300]} "
            "(run with --debug for the traceback, and report it)",
            1,
        )
    sys.exit(code if isinstance(code, int) else 0)


def _disk_full(error: Exception) -> str | None:
    """The one line for a write that found its disk full past the store's own guard (the
    listing printed to a full disk, a --junit file), or None for any other error."""
    if not isinstance(error, OSError) or error.errno not in (errno.ENOSPC, errno.EDQUOT):
        return None
    where = f" writing {error.filename}" if error.filename else " writing the output"
    return (
        f"no space left on the disk{where} ({error.strerror}); free some space or write "
        "elsewhere, then run the command again"
    )


def _store_named(args: list[str]) -> str | None:
    """The workspace ``--store PATH`` names on the command line (the global option or the
    tui's), or None for the default."""
    for i, arg in enumerate(args):
        if arg == "--store" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--store="):
            return arg.partition("=")[2]
    return None


def _fail(debug: bool, message: str, code: int) -> None:
    if debug:
        traceback.print_exc()
    print(f"error: {escape_controls(message)}", file=sys.stderr)
    sys.exit(code)


if __name__ == "__main__":
    main()
