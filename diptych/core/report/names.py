"""The names a report calls its models by, told apart where two would read the same.

A model is named by its plugin (``llamacpp``, ``scripted-likelihood``). Two runs of one plugin
on other weights (another version), another backend build (llama.cpp compiled for other CPU
features) or other parameters are other models: where a report holds such a pair, each is named
with what differs — ``llamacpp (build llama-cpp-python 0.3.9)`` against ``llamacpp (build
llama-cpp-python 0.3.16)`` — so that no two of its findings name two models alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def plain_name(model: dict[str, Any]) -> str:
    """The model's plugin name, as a run stores it."""
    return str(model.get("name") or str(model.get("model_id", "")).split("@")[0])


def _identity(model: dict[str, Any]) -> tuple[str, str, tuple[str, ...]]:
    return (
        str(model.get("model_id", "")),
        str(model.get("version", "")),
        tuple(model.get("build_names") or ()),
    )


def tell_apart(models: Iterable[dict[str, Any]]) -> None:
    """Set each model's ``shown`` name: its plain name, with the version, build or parameters
    that set it apart from another model of that name in the same report."""
    by_name: dict[str, list[dict[str, Any]]] = {}
    for model in models:
        model["shown"] = plain_name(model)
        by_name.setdefault(model["shown"], []).append(model)
    for alike in by_name.values():
        identities = {_identity(m) for m in alike}
        if len(identities) < 2:
            continue
        ids, versions, builds = (len({i[k] for i in identities}) > 1 for k in range(3))
        for model in alike:
            model_id, version, build = _identity(model)
            # Other parameters: the model id, which names them by their hash, leads.
            name = model_id if ids else model["shown"]
            said = [f"version {version}"] if versions else []
            if builds:
                said.append("build " + (" + ".join(build) or "not recorded"))
            model["shown"] = f"{name} ({', '.join(said)})" if said else name
