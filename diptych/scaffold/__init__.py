"""``diptych plugins new``: a plugin package that installs, registers and passes its tests.

:func:`scaffold` writes a probe, model or annotator package from the templates beside this
module (``templates/common`` for every kind, ``templates/<kind>`` for its own files). A
template is the file's text with ``@@{name}`` where a name of :class:`Names` goes; its path
under the kind's folder is the written file's path, with ``.tmpl`` dropped, ``MODULE`` standing
for the module's name and ``dot-`` for a leading dot (package data keeps no dot-files).
"""

from __future__ import annotations

import re
import string
from dataclasses import asdict, dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from diptych._version import __version__
from diptych.core.errors import UsageError
from diptych.core.plugins.api import PLUGIN_API

KINDS = ("probe", "model", "annotator")

#: A plugin's name: lower-case words joined by hyphens, as probes and models are named.
NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


#: Names the templates' modules use: a plugin class may not be called one of them.
TEMPLATE_NAMES = frozenset(
    {
        "Any",
        "BaseModel",
        "Callable",
        "Capability",
        "Field",
        "Iterator",
        "Label",
        "Message",
        "Model",
        "Probe",
        "ProbeResult",
        "RunLookup",
        "RunView",
        "Sampling",
        "Sequence",
        "Subject",
        "Table",
        "TrialSpec",
        "VisionChat",
    }
)


class _Template(string.Template):
    # "$" and "{}" are common in Python, TOML and GitHub workflows; "@@" is in none of them.
    delimiter = "@@"


@dataclass(frozen=True)
class Names:
    """Every name a scaffolded package uses, derived from the one the author gives."""

    kind: str
    #: What the plugin registers: ``pronoun-gap`` (``diptych run pronoun-gap``).
    name: str
    #: The distribution: ``diptych-pronoun-gap`` (``pip install diptych-pronoun-gap``).
    dist: str
    #: The import name: ``diptych_pronoun_gap``.
    module: str
    #: The entry point's name, which ``diptych plugins`` lists: ``pronoun_gap``.
    plugin: str
    #: The class: ``PronounGap``.
    cls: str
    #: The environment variable a model plugin reads its API key from.
    env: str
    #: The plugin API version the package is written for.
    api: int
    #: The diptych release that scaffolded it (the package requires at least this one).
    diptych_version: str

    @classmethod
    def of(cls, kind: str, name: str) -> Names:
        if kind not in KINDS:
            raise UsageError(f"'{kind}' is no kind of plugin: give probe, model or annotator")
        bare = name.removeprefix("diptych-")
        if not NAME.fullmatch(bare):
            raise UsageError(
                f"'{name}' cannot name a plugin: use lower-case letters, digits and hyphens, "
                "starting with a letter (e.g. pronoun-gap)"
            )
        dist = f"diptych-{bare}"
        module = dist.replace("-", "_")
        cls_name = "".join(part.capitalize() for part in bare.split("-"))
        if cls_name in TEMPLATE_NAMES:
            cls_name += "Plugin"  # `class Probe(Probe)` would shadow the base class
        return cls(
            kind=kind,
            name=bare,
            dist=dist,
            module=module,
            plugin=bare.replace("-", "_"),
            cls=cls_name,
            env=f"{bare.replace('-', '_').upper()}_API_KEY",
            api=PLUGIN_API,
            diptych_version=__version__,
        )


def _files(folder: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    found: list[tuple[str, Traversable]] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            if entry.name != "__pycache__":
                found += _files(entry, f"{prefix}{entry.name}/")
        elif entry.name.endswith(".tmpl"):
            found.append((prefix + entry.name.removesuffix(".tmpl"), entry))
    return found


def _target(relative: str, names: Names) -> str:
    parts = [
        ("." + p.removeprefix("dot-") if p.startswith("dot-") else p).replace(
            "MODULE", names.module
        )
        for p in relative.split("/")
    ]
    return "/".join(parts)


def render(kind: str, name: str) -> dict[str, str]:
    """Every file of the package, by its path inside it, as :func:`scaffold` writes them."""
    names = Names.of(kind, name)
    values = {k: str(v) for k, v in asdict(names).items()}
    root = resources.files("diptych.scaffold") / "templates"
    files: dict[str, str] = {}
    for folder in ("common", kind):
        for relative, template in _files(root / folder):
            text = template.read_text(encoding="utf-8")
            files[_target(relative, names)] = _Template(text).substitute(values)
    return files


def scaffold(kind: str, name: str, directory: str | Path | None = None) -> tuple[Path, Names]:
    """Write a ``kind`` plugin package called ``name`` into ``directory`` (default
    ``./diptych-<name>``), which must not exist or be empty; return it and the names used."""
    names = Names.of(kind, name)
    target = Path(directory) if directory is not None else Path(names.dist)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise UsageError(f"{target} exists and is not empty: give another --dir")
    files = render(kind, name)
    for relative, text in files.items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return target, names
