"""``audit run --set``: an audit file with some fields replaced for one run."""

from __future__ import annotations

import json
from typing import Any

from diptych.core.audit.schema import AuditFile, parse_audit
from diptych.core.errors import UsageError


def apply_overrides(audit: AuditFile, overrides: dict[str, Any]) -> AuditFile:
    """The audit with dotted-path values replaced (``models.dalle3.params.base_url=...``,
    ``probes.0.params.samples_paired=1``), validated again. The recorded hash stays the
    file's: an override is for pointing a file at a test service, not for changing an audit."""
    data = audit.model_dump(exclude_unset=True)
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
    return parse_audit(json.dumps(data), "override")


def _list_index(items: list[Any], key: str) -> int:
    index = int(key)
    if not 0 <= index < len(items):
        raise IndexError(index)
    return index
