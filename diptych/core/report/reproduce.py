"""The ``diptych run`` command that makes a stored run again, to paste into a POSIX shell.

Run in the workspace that holds the run, the command plans the same trials under the same
fingerprint, finds every one stored and asks nothing. So it names every probe parameter and
every model option set away from its default — ``base_url`` included, or the copy would call
OpenAI's own service — quoted with :func:`shlex.quote`. Two things are never printed: a value of a
parameter whose name says it holds a secret (the run reads those from the variable or file it
names) and the user and password written into a URL.

A value the command line cannot carry (a mapping, an unset value where the default is set, a
list item with a comma) is named in :attr:`RunCommand.unsaid`, so the report says which part
the command leaves out instead of printing one that runs something else.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, TypeAdapter

from diptych.core.audit.overrides import set_words
from diptych.core.errors import DiptychError
from diptych.core.plugins import model_class, parse_params, probe_class

#: Parameter names that hold a secret (``api_key``, ``token`` ...); ``*_env`` and ``*_file``
#: only name where the secret is and are printed.
_SECRET = re.compile(r"(^|_)(api_?key|secret|token|password)$", re.IGNORECASE)


@dataclass
class RunCommand:
    """The command and what of the run it cannot say."""

    text: str
    #: ``"probe parameter 'seed'"``-style names of the values left out.
    unsaid: list[str] = field(default_factory=list)


def _without_credentials(value: str) -> str:
    """``value`` with the user and password taken out when it is a URL that carries them."""
    try:
        parts = urlsplit(value)
    except ValueError:
        return value
    if not parts.scheme or not (parts.username or parts.password):
        return value
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def shown_overrides(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``--set``'s fields as a report may print them: never a secret's value (the run reads
    those from the variable or file it names), a URL without its user and password."""
    return {
        key: _without_credentials(value) if isinstance(value, str) else value
        for key, value in overrides.items()
        if not _SECRET.search(key.rpartition(".")[2]) or key.endswith(("_env", "_file"))
    }


def _as_text(value: Any) -> str | None:
    """How ``key=value`` writes ``value`` (parse_params splits lists on commas); None when it
    cannot."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _without_credentials(value)
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple) and value:
        items = [_as_text(v) for v in value]
        if all(i is not None and i and "," not in i for i in items):
            return ",".join(str(i) for i in items)
    return None


def _defaults(schema: type[BaseModel]) -> dict[str, Any]:
    """The JSON form of each optional parameter's default (as the run stored its values)."""
    out = {}
    for name, info in schema.model_fields.items():
        if not info.is_required():
            default = info.get_default(call_default_factory=True)
            out[name] = TypeAdapter(Any).dump_python(default, mode="json")
    return out


def _tokens(
    schema: type[BaseModel] | None, stored: dict[str, Any], owner: str, unsaid: list[str]
) -> list[str]:
    """``key=value`` for each value set away from its default that survives the road through
    the command line unchanged (checked by parsing it back as ``diptych run`` would)."""
    defaults = _defaults(schema) if schema is not None else {}
    tokens: dict[str, str] = {}
    for key, value in stored.items():
        if key in defaults and defaults[key] == value:
            continue
        if _SECRET.search(key) and not key.endswith(("_env", "_file")):
            unsaid.append(f"{owner} parameter '{key}' (a secret)")
            continue
        text = _as_text(value)
        if text is None:
            unsaid.append(f"{owner} parameter '{key}' ({value!r})")
            continue
        tokens[key] = f"{key}={text}"
    if schema is None or not tokens:
        return list(tokens.values())
    try:
        parsed = parse_params(schema, list(tokens.values()), owner=owner).model_dump(mode="json")
    except DiptychError:
        parsed = {}
    for key in list(tokens):
        # A value changed on the way (text read as another type) would run something else:
        # said, not printed as if it were. A URL is meant to lose its user and password.
        meant = stored[key]
        if isinstance(meant, str):
            meant = _without_credentials(meant)
        if parsed.get(key, object()) != meant:
            unsaid.append(f"{owner} parameter '{key}' ({stored[key]!r})")
            del tokens[key]
    return list(tokens.values())


_Place = str | os.PathLike[str] | None

#: Where a workspace is when no ``--store`` names it (and ``DIPTYCH_STORE`` is not set).
DEFAULT_STORE = ".diptych"


def store_words(store: _Place, cwd: _Place = None) -> list[str]:
    """``["--store", PATH]`` that names the workspace ``store`` for a command pasted in ``cwd``
    (the report's own directory), or nothing when it is the default there: a command that
    leaves out a workspace elsewhere finds none ("no diptych workspace at .diptych"). The path
    is relative to ``cwd`` (``../.diptych``), so that it holds wherever the two were made."""
    if store is None:
        return []
    here = Path(cwd if cwd is not None else os.getcwd()).resolve()
    where = Path(store).resolve()
    if where == here / DEFAULT_STORE:
        return []
    return ["--store", from_here(where, here)]


def from_here(path: str | os.PathLike[str], here: str | os.PathLike[str]) -> str:
    """``path`` as a command run in ``here`` names it: relative, or absolute where no relative
    path leads there (another drive)."""
    try:
        return os.path.relpath(Path(path).resolve(), Path(here).resolve())
    except ValueError:
        return str(Path(path).resolve())


#: Where a reproduce command writes the report again: a folder beside this report's (run from
#: its directory), never over it, so that the two can be compared.
AGAIN = "reproduced"
#: Where the command that makes an audit again writes its report: a folder of its own, so that
#: the report's two commands can be run one after the other and neither meets the other's.
AUDIT_AGAIN = "reproduced-audit"


def diptych_words(store: _Place, cwd: _Place = None) -> list[str]:
    """``diptych`` and the workspace it must open, the start of every printed command."""
    return ["diptych", *store_words(store, cwd)]


#: What ``diptych report --audit`` takes for a report of the runs alone, whatever audit with
#: gates records them.
NO_AUDIT = "none"


def kept_audit(scope: dict[str, Any]) -> str:
    """The audit record whose gates a report of ``scope`` shows, as ``diptych report --audit``
    takes it: :data:`NO_AUDIT` where it shows none."""
    gated = (scope.get("gates") or {}).get("checks")
    return str(scope.get("audit_id") or NO_AUDIT) if gated else NO_AUDIT


def report_command(
    run_ids: list[str], store: _Place, cwd: _Place = None, audit: str | None = None
) -> str:
    """The ``diptych report`` command that writes this report again; ``audit`` (a record's id,
    or :data:`NO_AUDIT`) names the audit whose gates it kept, so that the command still
    writes this report after a newer audit records the same runs."""
    pinned = ["--audit", audit] if audit else []
    return shlex.join([*diptych_words(store, cwd), "report", *run_ids, *pinned, "--out", AGAIN])


def audit_command(scope: dict[str, Any], store: _Place, cwd: _Place = None) -> str | None:
    """The ``diptych audit run FILE`` command that makes an audit's report again from what it
    stored (with ``--until-decided`` and its batches when it was bought until decided, so that
    it stops at the same look and buys nothing); None when the audit had no file."""
    file = scope.get("file")
    if not isinstance(file, str) or not file or file.startswith("("):
        return None
    # The file as the audit was run (relative to the directory it ran in, this process's),
    # named from the report's directory where the command is pasted.
    if cwd is not None and Path(file).resolve().is_file():
        file = from_here(file, cwd)
    words = [*diptych_words(store, cwd), "audit", "run", file]
    # The fields its run replaced (``--set``), given again: without them it runs another audit.
    words += set_words(shown_overrides(scope.get("overrides") or {}))
    sequential = scope.get("sequential")
    if isinstance(sequential, dict):
        words += ["--until-decided", "--batches", str(sequential.get("batches"))]
    return shlex.join([*words, "--out", AUDIT_AGAIN])


#: What an audit made on the command line (``diptych run --gate``) records as its file.
COMMAND_LINE = "(command line)"


def _limit(value: Any) -> str:
    number = float(value)
    return str(int(number)) if number.is_integer() else repr(number)


def _gate_words(gate: dict[str, Any]) -> str | None:
    """One gate as ``--gate`` takes it ("FIGURE RULE LIMIT"); None for what it cannot say."""
    rules = [r for r in ("below", "not_above", "above", "not_below") if gate.get(r) is not None]
    if gate.get("within") is not None:
        low, high = gate["within"]
        return f"{gate['figure']} within {_limit(low)} {_limit(high)}"
    if len(rules) == 1:
        return f"{gate['figure']} {rules[0]} {_limit(gate[rules[0]])}"
    return None


def gated_run_command(
    run: Any, scope: dict[str, Any], store: _Place = None, cwd: _Place = None
) -> str | None:
    """The ``diptych run … --gate …`` command that makes the report of an audit made on the
    command line again: the run's own command with its gates (and ``--until-decided`` with
    its batches where it was bought until decided), which stops at the same look and buys
    nothing; None when the command line cannot carry the run or one of its gates."""
    if scope.get("file") != COMMAND_LINE:
        return None
    command = run_command(run, store, cwd)
    stated = scope.get("gates") or {}
    said = [_gate_words(g) for g in stated.get("checks") or []]
    if command.unsaid or not said or None in said:
        return None
    words = [w for g in said for w in ("--gate", str(g))]
    sequential = scope.get("sequential")
    if isinstance(sequential, dict):
        words += ["--until-decided", "--batches", str(sequential.get("batches"))]
    return " ".join([command.text, shlex.join([*words, "--report", AUDIT_AGAIN])])


def run_command(run: Any, store: _Place = None, cwd: _Place = None) -> RunCommand:
    """The ``diptych run`` command of a stored run (a :class:`~diptych.core.store.RunRecord`),
    naming the workspace ``store`` where it is not the default in ``cwd``."""
    unsaid: list[str] = []
    try:
        probe_schema: type[BaseModel] | None = probe_class(run.probe).Params
    except DiptychError:
        probe_schema = None
    words = [*diptych_words(store, cwd), "run", run.probe]
    names = [str(m.get("name") or m["model_id"]) for m in run.models]
    for name in names:
        words += ["--model", name]
    words += [
        w
        for token in _tokens(probe_schema, run.params, f"probe '{run.probe}'", unsaid)
        for w in ("-p", token)
    ]
    for name, m in zip(names, run.models, strict=True):
        try:
            schema: type[BaseModel] | None = model_class(name).Params
        except DiptychError:
            schema = None
        tokens = _tokens(schema, m.get("params") or {}, f"model '{name}'", unsaid)
        if names.count(name) > 1 and tokens:
            unsaid.append(f"the options of each '{name}' (two models of one name)")
            continue
        # One model: -M key=value; several: -M name:key=value for the one named.
        scope = f"{name}:" if len(names) > 1 else ""
        words += [w for token in tokens for w in ("-M", scope + token)]
    return RunCommand(shlex.join(words), unsaid)
