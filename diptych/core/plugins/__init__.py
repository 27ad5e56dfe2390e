"""The plugin host: loads entry points once, collects what each plugin registers.

Built-in plugins come through the same ``diptych`` entry-point group as third-party ones.
``DIPTYCH_PLUGINS=a,b`` restricts loading to the entry points named ``a`` and ``b``. A plugin
that fails to import or to register is reported in one warning line (logger ``diptych``) and
skipped; the host carries on with the rest. Each third-party plugin's declared plugin API
version is checked first (:mod:`diptych.core.plugins.api`): an older compatible one loads with one
warning line naming what changed, an incompatible one is refused with one line.

The package is the plugin host's: the manager and its registries here, every hook a plugin may
implement (:mod:`~diptych.core.plugins.hookspecs`), the plugin API's versions
(:mod:`~diptych.core.plugins.api`) and which plugin an unexpected exception came from
(:mod:`~diptych.core.plugins.faults`). Plugin authors import ``hookimpl`` and the base classes
from ``diptych`` itself; the modules here are the reference pages' subject.
"""

from __future__ import annotations

import logging
import os
import threading
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from typing import Any, TypeVar

import pluggy
from pydantic import BaseModel, ValidationError

from diptych.core.capabilities import Capability, Model
from diptych.core.errors import ParameterError, UnknownPluginError
from diptych.core.number_words import not_the_number
from diptych.core.plugins import api, hookspecs
from diptych.core.probe import Probe

ENTRY_POINT_GROUP = "diptych"
log = logging.getLogger("diptych")


@dataclass
class PluginInfo:
    """One loaded plugin and what it registered."""

    name: str
    distribution: str
    version: str
    probes: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    annotators: list[str] = field(default_factory=list)
    error: str | None = None
    #: The plugin API version it was written for (None: it declares none).
    api: int | None = None
    #: The one-line warning of a plugin written for an older plugin API.
    warning: str | None = None


@dataclass
class Registry:
    probes: dict[str, type[Probe]] = field(default_factory=dict)
    models: dict[str, type[Model]] = field(default_factory=dict)
    annotators: dict[str, type[Model]] = field(default_factory=dict)
    plugins: list[PluginInfo] = field(default_factory=list)
    owner: dict[tuple[str, str], str] = field(default_factory=dict)


class PluginRegistrationError(Exception):
    pass


_pm: pluggy.PluginManager | None = None
_registry: Registry | None = None
#: Held while the plugins load: a front end loads them in a thread of its own while another
#: may ask for them (a worker, a screen), and the second must wait for the one load, not
#: start a second. Re-entrant: a plugin may look another up while it registers.
_LOADING = threading.RLock()


def _distribution(ep: EntryPoint) -> tuple[str, str]:
    dist = getattr(ep, "dist", None)
    if dist is None:
        return "", ""
    return dist.metadata["Name"], dist.version


def _collect(registry: Registry, info: PluginInfo, pm: pluggy.PluginManager) -> None:
    """Call one plugin's register hooks with callbacks that validate what they receive."""
    staged: list[tuple[str, str, type]] = []

    def make(kind: str, base: type) -> Callable[[type], None]:
        def register(cls: type) -> None:
            if not (isinstance(cls, type) and issubclass(cls, base)):
                raise PluginRegistrationError(
                    f"register_{kind}s() was given {cls!r}, not a subclass of {base.__name__}"
                )
            name = getattr(cls, "name", None)
            if not isinstance(name, str) or not name:
                raise PluginRegistrationError(f"{cls.__name__} has no 'name'")
            taken = registry.owner.get((kind, name))
            if taken is not None or any(k == kind and n == name for k, n, _ in staged):
                raise PluginRegistrationError(
                    f"{kind} '{name}' is already registered by plugin '{taken or info.name}'"
                )
            if kind != "probe" and not getattr(cls, "capabilities", None):
                raise PluginRegistrationError(f"{cls.__name__} lists no capabilities")
            staged.append((kind, name, cls))

        return register

    for kind, base in (("probe", Probe), ("model", Model), ("annotator", Model)):
        # Each plugin's implementation is called on its own so that what it registers can be
        # attributed to it (for `diptych plugins`) and its failure isolated.
        caller = getattr(pm.hook, f"register_{kind}s")
        for impl in caller.get_hookimpls():
            if impl.plugin_name == info.name:
                impl.function(register=make(kind, base))
    # Only a plugin that registered without error adds anything: no half-registered plugins.
    for kind, name, cls in staged:
        getattr(registry, f"{kind}s")[name] = cls
        getattr(info, f"{kind}s").append(name)
        registry.owner[(kind, name)] = info.name


def plugin_manager() -> pluggy.PluginManager:
    load_plugins()
    assert _pm is not None
    return _pm


def load_plugins(*, reload: bool = False) -> Registry:
    """Load every plugin once (entry points, then those registered by hand); return the registry."""
    with _LOADING:
        return _load_plugins(reload=reload)


def _load_plugins(*, reload: bool) -> Registry:
    global _pm, _registry
    if _registry is not None and not reload:
        return _registry
    pm = pluggy.PluginManager(ENTRY_POINT_GROUP)
    pm.add_hookspecs(hookspecs)
    registry = Registry()
    only = {n.strip() for n in os.environ.get("DIPTYCH_PLUGINS", "").split(",") if n.strip()}

    # diptych's own plugins load first, so a third-party plugin that claims a built-in name is
    # the one refused, whatever its entry point is called.
    def order(ep: EntryPoint) -> tuple[bool, str]:
        return (_distribution(ep)[0] != "diptych", ep.name)

    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=order):
        if only and ep.name not in only:
            continue
        dist, version = _distribution(ep)
        info = PluginInfo(name=ep.name, distribution=dist, version=version)
        try:
            plugin = ep.load()
            _check_api(info, plugin, builtin=dist == "diptych")
            pm.register(plugin, name=ep.name)
            _collect(registry, info, pm)
            _warn(info)
        except api.PluginAPIError as error:
            # The refusal is its own whole line: the plugin, its version and what to change.
            info.error = str(error)
            log.warning("%s", info.error)
        # A third-party plugin may fail in any way while importing or registering; the host
        # names it and goes on, which is the whole point of isolating plugins.
        except Exception as error:  # noqa: BLE001
            info.error, info.warning = f"{type(error).__name__}: {error}", None
            log.warning(
                "plugin '%s' (%s) was not loaded: %s", ep.name, dist or ep.value, info.error
            )
            if pm.has_plugin(ep.name):
                pm.unregister(name=ep.name)
        registry.plugins.append(info)
    pm.check_pending()
    _pm, _registry = pm, registry
    for name, plugin in list(_extra.items()):
        _add(name, plugin)
    return registry


def _check_api(info: PluginInfo, plugin: object, *, builtin: bool) -> None:
    """Record the plugin's API version; warn about an older one, raise for an incompatible one.
    diptych's own plugins ship with the host: they are current whatever they declare."""
    declared = api.declared(plugin)
    info.api = declared if isinstance(declared, int) else None
    if builtin:
        info.api = api.PLUGIN_API
        return
    info.warning = api.check(
        plugin, name=info.name, distribution=info.distribution, version=info.version
    )


def _warn(info: PluginInfo) -> None:
    """The one line about a plugin written for an older plugin API, once it has loaded (a
    plugin that fails to load gets the line of its failure instead)."""
    if info.warning:
        log.warning("%s", info.warning)


_extra: dict[str, object] = {}


def _add(name: str, plugin: object) -> None:
    assert _pm is not None and _registry is not None
    info = PluginInfo(name=name, distribution="", version="")
    # A plugin registered by hand (a test, a notebook) is checked only when it declares a
    # version: ad-hoc hook objects have no module to declare one in.
    if api.declared(plugin) is not None:
        _check_api(info, plugin, builtin=False)
    _pm.register(plugin, name=name)
    try:
        _pm.check_pending()
        _collect(_registry, info, _pm)
        _warn(info)
    except BaseException:
        # Leave the host as it was: a plugin that cannot register is not half-registered.
        _pm.unregister(name=name)
        _extra.pop(name, None)
        raise
    _registry.plugins.append(info)


def register_plugin(plugin: object, name: str | None = None) -> str:
    """Register a plugin object by hand (tests, notebooks): it is loaded like an entry point."""
    name = name or getattr(plugin, "__name__", None) or repr(plugin)
    _extra[name] = plugin
    if _registry is not None:
        _add(name, plugin)
    return name


def unregister_plugin(name: str) -> None:
    """Undo :func:`register_plugin`; what the plugin registered is forgotten."""
    _extra.pop(name, None)
    if _registry is None or _pm is None:
        return
    if _pm.has_plugin(name):
        _pm.unregister(name=name)
    for info in list(_registry.plugins):
        if info.name == name:
            _registry.plugins.remove(info)
            for kind in ("probe", "model", "annotator"):
                for item in getattr(info, f"{kind}s"):
                    getattr(_registry, f"{kind}s").pop(item, None)
                    _registry.owner.pop((kind, item), None)


def plugin_module(**hooks: Callable[..., None]) -> types.SimpleNamespace:
    """A plugin object made of the given hook functions (for tests and quick scripts)."""
    marked = {name: hookspecs.hookimpl(fn) for name, fn in hooks.items()}
    return types.SimpleNamespace(**marked)


# --- lookup and parameters ------------------------------------------------------------------

P = TypeVar("P", bound=BaseModel)


def _unknown(kind: str, name: str, known: Sequence[str]) -> UnknownPluginError:
    listing = ", ".join(sorted(known)) or "none"
    return UnknownPluginError(
        f"no {kind} named '{name}' (installed: {listing}); 'diptych plugins' lists them"
    )


def parse_params(schema: type[P], given: dict[str, Any] | Sequence[str] | None, *, owner: str) -> P:
    """Validate parameters for a plugin; ``given`` is a dict or ``key=value`` strings.

    A ``key=value`` string for a list field is split on commas. Errors become one line naming
    the parameter and the fields the plugin knows.
    """
    values: dict[str, Any] = {}
    if isinstance(given, dict):
        values = dict(given)
    elif given:
        for item in given:
            key, sep, value = item.partition("=")
            key = key.strip().replace("-", "_")
            if not sep or not key:
                raise ParameterError(f"parameter '{item}' for {owner} is not of the form key=value")
            field_info = schema.model_fields.get(key)
            origin = getattr(field_info.annotation, "__origin__", None) if field_info else None
            if origin in (list, tuple) or "list[" in str(field_info and field_info.annotation):
                values[key] = [v.strip() for v in value.split(",") if v.strip()]
                if not values[key]:
                    # ``-p masculine=`` would otherwise run with that side silently dropped.
                    raise ParameterError(
                        f"parameter '{key}' for {owner} is empty; name at least one value "
                        "(comma-separated) or leave it out for the default"
                    )
            else:
                values[key] = value
    try:
        return schema.model_validate(values)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        known = ", ".join(schema.model_fields) or "none"
        if first["type"] == "extra_forbidden":
            raise ParameterError(
                f"{owner} has no parameter '{where}' (its parameters: {known})"
            ) from error
        # pydantic prefixes a validator's own message with "Value error, ": not the user's words.
        message = _number_words(schema, first) or str(first["msg"]).removeprefix("Value error, ")
        if not where:  # a check across parameters (a model validator) names its own fields
            raise ParameterError(f"{owner}: {message}") from error
        raise ParameterError(f"{owner} parameter '{where}': {message}") from error


def _number_words(schema: type[BaseModel], problem: Any) -> str | None:
    """The line for a number parameter given something else (pydantic's own names neither the
    value nor the number wanted)."""
    declared = schema.model_fields.get(str(problem["loc"][0])) if problem["loc"] else None
    if declared is None:
        return None
    kinds = set(typing.get_args(declared.annotation)) - {type(None)} or {declared.annotation}
    if kinds not in ({int}, {float}):
        return None
    default = declared.default if isinstance(declared.default, int | float) else None
    return not_the_number(problem, whole=kinds == {int}, example=default)


def probe_class(name: str) -> type[Probe]:
    registry = load_plugins()
    if name not in registry.probes:
        raise _unknown("probe", name, list(registry.probes))
    return registry.probes[name]


def observation_of(probe: str) -> str:
    """What one observation of ``probe`` is ("prompt"), or "observation" where it is not
    installed: what its figures' ``n`` counts, said with the count ("1,600 prompts")."""
    try:
        return probe_class(probe).observation
    except UnknownPluginError:
        return "observation"


def model_class(name: str) -> type[Model]:
    registry = load_plugins()
    if name in registry.models:
        return registry.models[name]
    if name in registry.annotators:
        return registry.annotators[name]
    raise _unknown("model", name, list(registry.models))


def get_probe(name: str, params: dict[str, Any] | Sequence[str] | None = None) -> Probe:
    cls = probe_class(name)
    return cls(parse_params(cls.Params, params, owner=f"probe '{name}'"))


#: ``NAME:CHECKPOINT`` names a model plugin and the checkpoint it loads in one word
#: (``clip:/models/siglip``, ``vqa:llava``): the part after the colon is its ``model`` parameter.
SHORTHAND_PARAM = "model"


def split_model_name(name: str) -> tuple[str, str | None]:
    """``("clip", "/models/siglip")`` for ``clip:/models/siglip``; ``(name, None)`` for a plain
    name or one that is registered as it is."""
    plugin, sep, checkpoint = name.partition(":")
    registry = load_plugins()
    if not sep or name in registry.models or name in registry.annotators:
        return name, None
    return plugin, checkpoint


def get_model(name: str, params: dict[str, Any] | Sequence[str] | None = None) -> Model:
    plugin, checkpoint = split_model_name(name)
    cls = model_class(plugin)
    if checkpoint is not None:
        if SHORTHAND_PARAM not in cls.Params.model_fields:
            raise ParameterError(
                f"model '{plugin}' loads no checkpoint, so '{name}' means nothing; "
                f"name it as '{plugin}'"
            )
        given = dict(params) if isinstance(params, dict) else list(params or [])
        if isinstance(given, dict):
            given.setdefault(SHORTHAND_PARAM, checkpoint)
        elif not any(p.partition("=")[0].strip() == SHORTHAND_PARAM for p in given):
            given.append(f"{SHORTHAND_PARAM}={checkpoint}")
        params = given
    return cls(parse_params(cls.Params, params, owner=f"model '{plugin}'"))


def models_with(capability: Capability) -> list[str]:
    return sorted(n for n, c in load_plugins().models.items() if capability in c.capabilities)
