"""Output paths (``-o FILE``, ``--out DIR``, ``--report DIR``) checked before any work starts,
and input files checked to be files of a bounded size (a device such as ``/dev/zero`` or a pipe
would be read forever).

A report or export that fails on its last step, after minutes of analysis, for a typo in a path
is the failure these checks prevent; what the checks cannot foresee (a full disk, a filesystem
that refuses a name) is still one line, through :func:`writing`.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from diptych.core.errors import DiptychError, UsageError
from diptych.core.evidence.manifest import drop_stale_signatures

#: The largest input file a command reads (labels, responses, corpora, audit files).
MAX_INPUT_BYTES = 2 * 1024**3


def output_path(option: str, what: str) -> Callable[[str], Path]:
    """The parser of an output option (``typer.Option(parser=...)``): its value as a Path, an
    empty one refused. ``Path("")`` is the current directory, so an unset variable in a script
    (``--report "$DIR"``) would otherwise write into wherever the command was started, or
    carry that directory into a bundle."""

    def parse(value: str) -> Path:
        if isinstance(value, Path):  # a default, already a Path
            return value
        if not value.strip():
            raise UsageError(f"{option} is empty; give {what}")
        return Path(value)

    return parse


def check_input_file(path: Path, option: str, limit: int = MAX_INPUT_BYTES) -> None:
    """``path`` is a regular file this process may read, of at most ``limit`` bytes."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise UsageError(f"{option} {path}: no such file") from None
    except OSError as error:
        raise UsageError(f"{option} {path}: cannot read it ({error.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise UsageError(f"{option} {path}: is a directory; give a file")
    if not stat.S_ISREG(info.st_mode):
        raise UsageError(
            f"{option} {path}: not a regular file (a device, pipe or socket); give a file"
        )
    if info.st_size > limit:
        raise UsageError(
            f"{option} {path}: {info.st_size:,} bytes, more than the {limit:,} this command "
            "reads; split it"
        )
    if not os.access(path, os.R_OK):
        raise UsageError(f"{option} {path}: the file is not readable; check its permissions")


def check_output_file(path: Path, option: str) -> None:
    """``path`` can be written as a file: not a directory, in a directory that exists and that
    this process may write in."""
    if path.is_dir():
        raise UsageError(f"{option} {path}: is a directory; give a file name")
    parent = path.absolute().parent
    if not parent.is_dir():
        raise UsageError(f"{option} {path}: directory {parent} does not exist; create it first")
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{option} {path}: the file is not writable; choose another path")
    if not path.exists() and not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {path}: cannot write in {parent}; choose another directory")


def prepare_output_dir(path: Path, option: str) -> None:
    """Make the directory ``path`` (its parent must exist) or check an existing one is a
    writable directory, so that the files written into it at the end can be."""
    if path.exists() and not path.is_dir():
        raise UsageError(f"{option} {path}: is a file, not a directory; give a directory")
    parent = path.absolute().parent
    if not parent.is_dir():
        raise UsageError(f"{option} {path}: directory {parent} does not exist; create it first")
    try:
        path.mkdir(exist_ok=True)
    except OSError as error:
        raise UsageError(f"{option} {path}: cannot create it ({error.strerror})") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {path}: cannot write in it; choose another directory")


@contextmanager
def writing(path: Path) -> Iterator[None]:
    """Turn a failure to write ``path`` (or a file in it) into one line."""
    try:
        yield
    except OSError as error:
        named = (
            f" ({error.filename})" if error.filename and str(error.filename) != str(path) else ""
        )
        raise DiptychError(f"writing {path} failed: {error.strerror or error}{named}") from error


@contextmanager
def undone_if_failed(path: Path) -> Iterator[None]:
    """Take back what the block made at ``path`` if it fails: a directory that did not exist
    (with the parents made for it) is removed whole; in a directory that existed and held
    nothing, what appeared in it is removed. What existed is never touched, so a workspace
    that was there before stays as it was (its own import adds nothing when refused)."""
    absolute = Path(os.path.abspath(path))
    top = None  # the highest directory the block would make
    here = absolute
    while not os.path.lexists(here) and here != here.parent:
        top, here = here, here.parent
    # An existing directory that held nothing: whatever is in it afterwards is the block's.
    try:
        was_empty = top is None and absolute.is_dir() and not any(absolute.iterdir())
    except OSError:  # unreadable: the block will fail on it, having made nothing
        was_empty = False
    try:
        yield
    except BaseException:
        # Also on Ctrl-C: a new path left holding an empty workspace would be taken for one.
        if top is not None:
            shutil.rmtree(top, ignore_errors=True)
        elif was_empty:
            for made in absolute.iterdir():
                if made.is_dir() and not made.is_symlink():
                    shutil.rmtree(made, ignore_errors=True)
                else:
                    made.unlink(missing_ok=True)
        raise


def files_written(written: dict[str, Path]) -> str:
    """What a report wrote, every file named: its documents, then its figures directory with
    the number of figure and image files in it. A signed report's manifest and signature that
    the folder's new files no longer match are removed, and the last line says so."""
    stale = drop_stale_signatures(written)
    lines = []
    for kind, path in written.items():
        if kind == "figures":
            count = sum(1 for f in path.rglob("*") if f.is_file())
            lines.append(f"  {path}{os.sep} ({count:,} file{'' if count == 1 else 's'})")
        else:
            lines.append(f"  {path}")
    return "report written:\n" + "\n".join(lines + stale)


#: ``--store PATH`` (the global option and the tui's): an empty one would make a workspace of
#: the current directory.
store_path = output_path("--store", "the workspace directory (or leave --store out for ./.diptych)")
