"""``audit run --set``: an audit file with some fields replaced for one run.

A value is read as JSON where it is JSON (``5``, ``true``, ``'["html","md"]'``), else as text;
a list-typed field (``report.formats``) also takes a comma list, bare (``html,md``) or in
brackets (``[html,md]``), so that a list needs no JSON quoting in a shell. The overrides are
recorded with the audit and said again, each as :func:`set_words` writes it, in the command
that makes the audit's report again.
"""

from __future__ import annotations

import json
import types
from collections.abc import Mapping
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

from diptych.core.audit.schema import AuditFile, parse_audit
from diptych.core.errors import DiptychError, UsageError
from diptych.core.json_input import parse_json
from diptych.core.plugins import model_class, probe_class

#: What a list-typed field's value may look like, for the line that refuses another.
LIST_FORMS = 'a list is given as html,md or [html,md] or as JSON \'["html","md"]\''


def parse_sets(items: list[str]) -> dict[str, Any]:
    """``--set FIELD.PATH=VALUE`` items as a mapping of dotted paths to values: a JSON value,
    else the text itself (a list-typed field splits it when applied)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--set takes FIELD.PATH=VALUE, not '{item}'")
        out[key] = _value(raw, key)
    return out


def _value(raw: str, key: str) -> Any:
    try:
        return parse_json(raw, f"--set {key}: ")
    except json.JSONDecodeError:
        return raw


def set_words(overrides: Mapping[str, Any]) -> list[str]:
    """``--set KEY=VALUE`` words that give ``overrides`` again (for :func:`shlex.join`): text
    as it is where it reads back as the same text, any other value as JSON."""
    words = []
    for key, value in overrides.items():
        text = value if isinstance(value, str) else None
        if text is None or _value(text, key) != value:
            text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        words += ["--set", f"{key}={text}"]
    return words


def apply_overrides(audit: AuditFile, overrides: dict[str, Any]) -> AuditFile:
    """The audit with dotted-path values replaced (``models.dalle3.params.base_url=...``,
    ``probes.0.params.samples_paired=1``), validated again. The recorded hash stays the
    file's: an override is for pointing a file at a test service, not for changing an audit."""
    data = audit.model_dump(exclude_unset=True)
    listed = []
    for dotted, value in overrides.items():
        node: Any = data
        keys = dotted.split(".")
        try:
            for key in keys[:-1]:
                if isinstance(node, list):
                    node = node[_list_index(node, key)]
                elif isinstance(node, dict):
                    node = node.setdefault(key, {})
                else:
                    raise KeyError(key)
            last = keys[-1]
            if isinstance(node, dict) and (
                isinstance(node.get(last), list)
                or _list_typed(AuditFile, keys)
                or _list_typed(_plugin_params(data, keys), keys[-1:])
            ):
                listed.append(dotted)
                value = _as_list(dotted, value)
            if isinstance(node, list):
                node[_list_index(node, last)] = value
            elif isinstance(node, dict):
                node[last] = value
            else:
                raise KeyError(last)
        except (KeyError, IndexError, ValueError):
            raise UsageError(
                f"--set {dotted}: the audit has no such field (a list is indexed from 0 up to "
                "its length less one, as in probes.0.params.seed)"
            ) from None
    try:
        return parse_audit(json.dumps(data), "override")
    except DiptychError as exc:
        # A list's wrong value is said in one line with the forms a list takes.
        for dotted in listed:
            for line in str(exc).splitlines():
                said = line.partition(": ")[2]
                if said.startswith(dotted):
                    raise UsageError(f"--set {said}; {LIST_FORMS}") from None
        raise


def changing(audit: AuditFile, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``overrides`` less each that changes nothing of ``audit`` (the file's own value given
    again): one that changes nothing changes neither the audit's record nor what it runs.
    Raises as :func:`apply_overrides` for a field the audit does not have."""
    kept = dict(overrides)
    if not kept:
        return kept
    whole = apply_overrides(audit, kept).model_dump()
    for key in list(kept):
        rest = {k: v for k, v in kept.items() if k != key}
        if apply_overrides(audit, rest).model_dump() == whole:
            kept = rest
    return kept


def _as_list(dotted: str, value: Any) -> Any:
    """A list-typed field's text as its list (``html,md``, ``[html,md]``); JSON as it is."""
    if not isinstance(value, str):
        if isinstance(value, list):
            return value
        raise UsageError(f"--set {dotted}: {value!r} is not a list; {LIST_FORMS}")
    text = value.strip()
    if text.startswith("[") != text.endswith("]"):
        raise UsageError(f"--set {dotted}: '{value}' is not a list; {LIST_FORMS}")
    if text.startswith("["):
        text = text[1:-1]
    items = [item.strip() for item in text.split(",")] if text.strip() else []
    if any(not item for item in items):
        raise UsageError(f"--set {dotted}: '{value}' has an empty item; {LIST_FORMS}")
    return items


def _list_typed(model: type[BaseModel] | None, keys: list[str]) -> bool:
    """Whether the field at ``keys`` in ``model`` is declared a list (a field whose type the
    schema leaves open, as a plugin's params, is not)."""
    annotation: Any = model
    if model is None:
        return False
    for key in keys:
        annotation = _child(annotation, key)
        if annotation is None:
            return False
    return any(get_origin(a) is list for a in _options(annotation))


def _plugin_params(data: dict[str, Any], keys: list[str]) -> Any:
    """The parameters' schema of the probe or model whose parameter ``keys`` names
    (``probes.0.params.masculine``, ``models.m.params.style``); None where there is none."""
    if len(keys) != 4 or keys[2] != "params" or keys[0] not in ("probes", "models"):
        return None
    try:
        if keys[0] == "probes":
            return probe_class(str(data["probes"][int(keys[1])]["probe"])).Params
        return model_class(str(data["models"][keys[1]]["plugin"])).Params
    except (DiptychError, LookupError, ValueError, TypeError, AttributeError):
        return None


def _child(annotation: Any, key: str) -> Any:
    """The type of ``key`` (a field, a mapping's key or a list's index) inside ``annotation``."""
    for option in _options(annotation):
        if isinstance(option, type) and issubclass(option, BaseModel):
            if key in option.model_fields:
                return option.model_fields[key].annotation
        elif get_origin(option) is list and key.isdigit():
            return get_args(option)[0]
        elif get_origin(option) is dict:
            return get_args(option)[1]
    return None


def _options(annotation: Any) -> tuple[Any, ...]:
    """The types a possibly optional or union type allows."""
    if get_origin(annotation) in (Union, types.UnionType):
        return get_args(annotation)
    return (annotation,)


def _list_index(items: list[Any], key: str) -> int:
    index = int(key)
    if not 0 <= index < len(items):
        raise IndexError(index)
    return index
