"""The words of ``diptych run`` beyond its options: a probe's parameters given as flags
(``--sets pairs``) and ``-M`` parameters scoped to one of its models (``-M name:key=value``)."""

from __future__ import annotations

from collections.abc import Collection

from diptych.cli.usage import misspelt
from diptych.core.errors import UsageError


def split_model_params(models: list[str], given: list[str]) -> dict[str, list[str]]:
    """``-M key=value`` applies to every model; ``-M name:key=value`` to the one named."""
    scoped: dict[str, list[str]] = {m: [] for m in models}
    for item in given:
        head, sep, rest = item.partition(":")
        if sep and head in scoped and "=" in rest:
            scoped[head].append(rest)
        elif sep and "=" not in head:
            raise UsageError(f"-M {item}: no model '{head}' in this run ({', '.join(models)})")
        else:
            for params in scoped.values():
                params.append(item)
    return scoped


def probe_flags(probe: str, extra: list[str], options: Collection[str] = ()) -> list[str]:
    """``--name value`` (or ``--name=value``) after the known options, as the probe parameter
    ``name=value``: ``diptych run counterfactual-retrieval --sets pairs``. A bare flag means
    true. Anything else left over is a usage error, and so is a flag that is no parameter of
    the probe but a near miss of one of the command's ``options`` (``--dry-rn``)."""
    if probe.startswith("-"):
        raise UsageError(f"no such option {probe} (see 'diptych run --help')")
    params: list[str] = []
    tokens = list(extra)
    while tokens:
        token = tokens.pop(0)
        if not token.startswith("--") or token == "--":
            raise UsageError(
                f"unexpected argument {token!r}: give probe parameters as --name VALUE or "
                "-p name=VALUE"
            )
        name, sep, value = token[2:].partition("=")
        misspelt(probe, name, options)
        if not sep:
            value = tokens.pop(0) if tokens and not tokens[0].startswith("--") else "true"
        params.append(f"{name.replace('-', '_')}={value}")
    return params
