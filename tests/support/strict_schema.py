"""What OpenAI's strict structured outputs refuse in a JSON schema, found recursively."""

from __future__ import annotations

from typing import Any


def strict_problems(node: Any, where: str = "$") -> list[str]:
    """Where ``node`` breaks OpenAI's strict structured outputs: an object level without
    ``additionalProperties: false`` or with a property left out of ``required``."""
    problems: list[str] = []
    if isinstance(node, list):
        for i, item in enumerate(node):
            problems += strict_problems(item, f"{where}[{i}]")
        return problems
    if not isinstance(node, dict):
        return problems
    if node.get("type") == "object" or "properties" in node:
        props = node.get("properties") or {}
        if node.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties is not false")
        missing = set(props) - set(node.get("required") or [])
        if missing:
            problems.append(f"{where}: not required: {sorted(missing)}")
    for key, value in node.items():
        problems += strict_problems(value, f"{where}.{key}")
    return problems
