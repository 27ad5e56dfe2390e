"""Which installed plugin an unexpected exception came from, so that its authors get the report.

A probe's ``plan`` or ``analyze`` and a model's calls run a third party's code inside diptych's
commands; a bug there must not read as diptych's. The exception's traceback (and the ones it
was raised from) is walked for the innermost frame in a package that registered a plugin
other than diptych's own; the plugin registry names that plugin and the distribution it was
installed from.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, metadata, packages_distributions

from diptych.core.plugins import load_plugins, plugin_manager

#: Packages whose code is diptych's own: a fault there is reported to diptych.
_OWN = "diptych"


@dataclass(frozen=True)
class PluginFault:
    """The plugin an exception was raised in and where to report it."""

    plugin: str
    distribution: str
    #: The distribution's issue tracker or home page, when its metadata names one.
    url: str = ""

    def message(self, error: BaseException) -> str:
        """One line for the user: what failed, whose it is and where to report it."""
        text = " ".join(str(error).split())[:300]
        package = f" (package {self.distribution})" if self.distribution else ""
        where = self.distribution or f"the '{self.plugin}' plugin"
        report = f"report it to the authors of {where}" + (f": {self.url}" if self.url else "")
        return (
            f"plugin '{self.plugin}'{package} failed: {type(error).__name__}: {text} "
            f"(this is not diptych's code; run with --debug for the traceback, and {report})"
        )


def _packages() -> dict[str, tuple[str, str]]:
    """Top-level package -> (plugin name, distribution) for every third-party plugin loaded."""
    registry = load_plugins()
    dist_of = {info.name: info.distribution for info in registry.plugins if not info.error}
    out: dict[str, tuple[str, str]] = {}

    def note(module: str | None, plugin: str) -> None:
        top = (module or "").split(".")[0]
        if top and top != _OWN and dist_of.get(plugin) != _OWN:
            out.setdefault(top, (plugin, dist_of.get(plugin, "")))

    for (kind, item), plugin in registry.owner.items():
        cls = getattr(registry, f"{kind}s").get(item)
        note(getattr(cls, "__module__", None), plugin)
    pm = plugin_manager()
    for plugin, obj in pm.list_name_plugin():
        note(getattr(obj, "__name__", None) or type(obj).__module__, plugin)
    return out


def _frames(error: BaseException) -> list[str]:
    """The module of every frame the exception passed through, outermost first, the exceptions
    it was raised from (``from`` or during handling) before it."""
    chain: list[BaseException] = []
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        chain.insert(0, current)
        current = current.__cause__ or current.__context__
    return [
        str(frame.f_globals.get("__name__", ""))
        for exc in chain
        for frame, _ in traceback.walk_tb(exc.__traceback__)
    ]


def _url(distribution: str) -> str:
    """Where the distribution takes reports: a Project-URL labelled issues, bugs or tracker,
    else its home page, else its first Project-URL."""
    try:
        meta = metadata(distribution)
    except PackageNotFoundError:
        return ""
    labelled = [u.partition(",") for u in meta.get_all("Project-URL") or []]
    for label, _, url in labelled:
        if any(word in label.lower() for word in ("issue", "bug", "tracker")):
            return url.strip()
    home = meta["Home-page"] if "Home-page" in meta else None
    return str(home) if home else (labelled[0][2].strip() if labelled else "")


def plugin_fault(error: BaseException) -> PluginFault | None:
    """The third-party plugin whose code raised ``error`` (its innermost frame in a plugin's
    package), or None when no plugin's code is in its traceback."""
    packages = _packages()
    if not packages:
        return None
    for module in reversed(_frames(error)):
        found = packages.get(module.split(".")[0])
        if found is not None:
            plugin, distribution = found
            if not distribution:
                top = module.split(".")[0]
                distribution = next(iter(packages_distributions().get(top, [])), "")
            return PluginFault(plugin, distribution, _url(distribution) if distribution else "")
    return None
