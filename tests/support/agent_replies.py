"""What the scripted agent answers: a round's proposals as the agent's JSON reply."""

from __future__ import annotations

import json


def proposals(*pairs: tuple[str, str]) -> str:
    """One round's reply proposing each (masculine, feminine) occupation pair."""
    return json.dumps(
        {
            "proposals": [
                {"masculine": m, "feminine": f, "kind": "occupation", "rationale": "r"}
                for m, f in pairs
            ]
        }
    )
