"""The audit files of the searched-audit command-line tests, as YAML text: a paired ``pst-text``
part on the scripted likelihood model ``target`` (four identities a side, its likelihood read)
and an identity search that the scripted chat model ``agent`` proposes to."""

from __future__ import annotations

#: One round of one proposal, stopping at once.
IDENTITY_SEARCH = """\
  - {name: identities, kind: identities, target: target, agent_model: agent, rounds: 1,
     per_round: 1, patience: 0}
"""


def searched_audit(
    name: str,
    models: str,
    *,
    params: str = "",
    searches: str = IDENTITY_SEARCH,
    more: str = "",
    formats: str = "[json]",
) -> str:
    """The audit ``name`` of ``models`` (their YAML lines, ``target`` and ``agent`` among them),
    the paired part with ``params`` (YAML lines) added to its own, ``searches``, ``more`` (YAML
    lines: a budget, say) and a report of ``formats``."""
    return (
        f"audit: 1\nname: {name}\nmodels:\n{models}"
        "probes:\n"
        "  - probe: pst-text\n"
        "    models: [target]\n"
        "    params:\n"
        "      mode: likelihood\n"
        "      setting: paired\n"
        f"{params}"
        "      masculine: [carpenter, driver, farmer, lawyer]\n"
        "      feminine: [nurse, editor, baker, clerk]\n"
        f"searches:\n{searches}{more}"
        f"report:\n  formats: {formats}\n"
    )
