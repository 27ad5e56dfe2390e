"""JSON schemas in the shape OpenAI's strict structured outputs accept.

Strict mode wants every property required and ``additionalProperties`` false at every object
level; an optional property becomes one that may be null. The agent sends every schema in this
shape, to a local grammar as to a service, so that one schema serves both.
"""

from __future__ import annotations

import copy
from typing import Any


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` as OpenAI's strict structured outputs take it: at every object level every
    property is required and ``additionalProperties`` is false; a property that was optional
    may be null instead (strict mode's way of saying "optional"). The constraints a local
    grammar uses to keep a small model's strings short are kept."""
    return _strict(copy.deepcopy(schema))


def _strict(node: Any) -> Any:
    if isinstance(node, list):
        return [_strict(x) for x in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            # Property names are names, not schema keywords: only their schemas are walked.
            out[key] = {name: _strict(sub) for name, sub in value.items()}
        else:
            out[key] = _strict(value)
    props = out.get("properties")
    if isinstance(props, dict) or out.get("type") == "object":
        props = props if isinstance(props, dict) else {}
        required = [k for k in out.get("required", []) if k in props]
        for name in props:
            if name not in required:
                props[name] = _nullable(props[name])
        out["properties"] = props
        out["required"] = list(props)
        out["additionalProperties"] = False
    return out


def _nullable(prop: dict[str, Any]) -> dict[str, Any]:
    # anyOf rather than a list of types: a local grammar (llama.cpp's) keeps the bounds of
    # the original only inside a branch of its own.
    if prop.get("type") == "null" or {"type": "null"} in prop.get("anyOf", []):
        return prop
    return {"anyOf": [prop, {"type": "null"}]}
