"""The plugin API's version: what a plugin declares, what changed, and what the host does about it.

A plugin module says which version of the plugin API it was written for::

    DIPTYCH_PLUGIN_API = 2

The host loads a plugin written for the current version silently; one written for an older
version that no breaking change separates from this one loads with one warning line naming
every change since; one written for a version this diptych does not know (newer than it), or
from before a breaking change, is refused with one line: the plugin, its package version and
what to change. A third-party plugin that declares nothing was written before versions were
declared: it is taken as API 1. diptych's own plugins ship with the host and are always
current.

Each change is a row of :data:`CHANGES`; :data:`SINCE` says for each hook and each method a
plugin implements since which version it exists, which the hook documentation repeats.
"""

from __future__ import annotations

from dataclasses import dataclass

from diptych.core.errors import DiptychError

#: The module attribute a plugin declares its API version in.
ATTRIBUTE = "DIPTYCH_PLUGIN_API"


@dataclass(frozen=True)
class APIChange:
    """One version of the plugin API: what it changed, and what an older plugin changes to
    follow it. A ``breaking`` change makes every plugin written before it incompatible."""

    version: int
    changed: str
    todo: str
    breaking: bool = False


CHANGES: tuple[APIChange, ...] = (
    APIChange(
        1,
        "the hooks register_probes, register_models, register_annotators and report_sections; "
        "the Probe and Model base classes",
        "",
    ),
    APIChange(
        2,
        "Probe.bind receives a read-only RunLookup (diptych.core.lookup) instead of the Store, "
        "and the images a probe brings along come from Probe.input_blobs, not from bind",
        "type bind's argument as RunLookup, read earlier runs through it and yield input "
        "images from input_blobs()",
    ),
)

#: The version of the plugin API this diptych implements.
PLUGIN_API: int = CHANGES[-1].version

#: Since which version each hook (``register_probes``) and each method a plugin overrides
#: (``Probe.bind``) exists; a later change to it is in :data:`CHANGED`.
SINCE: dict[str, int] = {
    "register_probes": 1,
    "register_models": 1,
    "register_annotators": 1,
    "report_sections": 1,
    "Probe.plan": 1,
    "Probe.analyze": 1,
    "Probe.self_labels": 1,
    "Probe.review_flags": 1,
    "Probe.compare": 1,
    "Probe.bind": 1,
    "Probe.input_blobs": 2,
    "Model.load": 1,
    "Model.aclose": 1,
}

#: The versions that changed a hook or method after it appeared.
CHANGED: dict[str, tuple[int, ...]] = {"Probe.bind": (2,)}


class PluginAPIError(DiptychError):
    """A plugin was written for a plugin API this diptych cannot load it under."""


def declared(plugin: object) -> object:
    """What the plugin declares (None: nothing)."""
    return getattr(plugin, ATTRIBUTE, None)


def _who(name: str, distribution: str, version: str) -> str:
    package = f"{distribution} {version}".strip() or "not installed from a package"
    return f"plugin '{name}' ({package})"


def check(plugin: object, *, name: str, distribution: str = "", version: str = "") -> str | None:
    """The warning line for a plugin written for an older compatible API, None for a current
    one; raises :class:`PluginAPIError` (one line) for an incompatible one."""
    value = declared(plugin)
    where = getattr(plugin, "__name__", None) or "the plugin module"
    who = _who(name, distribution, version)
    if value is None:
        api, how = 1, " (it declares no version)"
    elif isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        api, how = value, ""
    else:
        raise PluginAPIError(
            f"{who} declares {ATTRIBUTE} = {value!r}, which is no plugin API version: "
            f"set {ATTRIBUTE} = {PLUGIN_API} in {where}"
        )
    if api == PLUGIN_API:
        return None
    if api > PLUGIN_API:
        from diptych._version import __version__

        raise PluginAPIError(
            f"{who} was written for plugin API {api}, newer than this diptych's "
            f"({__version__}, plugin API {PLUGIN_API}): upgrade diptych, or install a release "
            f"of the plugin written for plugin API {PLUGIN_API}"
        )
    since = [c for c in CHANGES if c.version > api]
    todo = "; ".join(c.todo for c in since if c.todo)
    breaking = [c for c in since if c.breaking]
    if breaking:
        raise PluginAPIError(
            f"{who} was written for plugin API {api}{how}, which this diptych no longer loads: "
            + "; ".join(f"API {c.version}: {c.changed}" for c in breaking)
            + f" — {todo}, then set {ATTRIBUTE} = {PLUGIN_API} in {where}"
        )
    changes = "; ".join(f"API {c.version}: {c.changed}" for c in since)
    return (
        f"{who} was written for plugin API {api}{how}; it loads, but since then {changes} — "
        f"{todo + ', then ' if todo else ''}set {ATTRIBUTE} = {PLUGIN_API} in {where}"
    )
