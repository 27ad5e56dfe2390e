"""Write or check ``diptych/prompts/tone_validation.yaml``: the tone benchmark's figures as the
report's section on perceived skin tone quotes them
(:mod:`diptych.plugins.probes.pst.tone.validation`).

    python bench/run.py tone | python -m bench.tone.validation --write
    python -m bench.tone.validation --check        # the shipped file against the declarations
    python bench/run.py tone | python -m bench.tone.validation --check   # and against a run

``--check`` fails (exit 1, one line per fault) when the file names a figure no benchmark
declares, misses one the report quotes, records another target than the declared one, misses
its target, or — given a run on stdin — differs from the run's value by more than three
combined Monte Carlo errors.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import sys
from pathlib import Path
from typing import Any

import yaml

FILE = Path(__file__).resolve().parents[2] / "diptych" / "prompts" / "tone_validation.yaml"
#: The figures the report quotes (all the tone area's and the tone intervals').
QUOTED_PREFIXES = ("tone.",)


def _declared() -> dict[str, str | None]:
    import importlib

    from bench.run import AREAS

    for module in AREAS.values():
        importlib.import_module(module)
    from bench.harness import BENCHES

    return {
        name: want
        for b in BENCHES
        for name, want in b.figures.items()
        if name.startswith(QUOTED_PREFIXES)
    }


def _read_run(lines: list[str]) -> dict[str, dict[str, Any]]:
    out = {}
    for line in lines:
        line = line.strip()
        if line.startswith("{"):
            row = json.loads(line)
            if str(row.get("name", "")).startswith(QUOTED_PREFIXES):
                out[row["name"]] = row
    return out


def _se(row: dict[str, Any]) -> float | None:
    """A figure's Monte Carlo error (``mc_se``) or binomial/delta-method one (``se``)."""
    value = row.get("mc_se", row.get("se"))
    return None if value is None else float(value)


def write(run: dict[str, dict[str, Any]], path: Path = FILE) -> None:
    """Merge ``run``'s figures into the file (a figure not run keeps its recorded value)."""
    import diptych

    old = yaml.safe_load(path.read_text()) if path.is_file() else {"figures": []}
    figures = {f["name"]: f for f in old.get("figures", [])}
    for name, row in run.items():
        figures[name] = {
            "name": name,
            "value": row["value"],
            "unit": row["unit"],
            **({"mc_se": _se(row)} if _se(row) is not None else {}),
            **({"want": row["want"], "ok": row["ok"]} if "want" in row else {}),
        }
    data = {
        "version": 1,
        "measured": dt.date.today().isoformat(),
        "diptych": diptych.__version__,
        "command": "python bench/run.py tone | python -m bench.tone.validation --write",
        "figures": [figures[k] for k in sorted(figures)],
    }
    header = (
        "# Written by bench/tone/validation.py from the tone benchmark's output; the report's\n"
        "# section on perceived skin tone quotes it. Do not edit by hand: run the benchmark.\n"
    )
    path.write_text(header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


def check(run: dict[str, dict[str, Any]], path: Path = FILE) -> list[str]:
    """Every fault of the file (module docstring); empty when it holds."""
    from bench.harness import Result

    data = yaml.safe_load(path.read_text())
    declared = _declared()
    recorded = {f["name"]: f for f in data["figures"]}
    faults = [f"{n}: recorded, but no benchmark declares it" for n in recorded if n not in declared]
    faults += [f"{n}: declared, not recorded" for n in declared if n not in recorded]
    for name, fig in recorded.items():
        if name not in declared:
            continue
        want = declared[name]
        if fig.get("want") != want:
            faults.append(f"{name}: recorded target {fig.get('want')!r}, declared {want!r}")
        if want is not None and not Result(name, fig["value"], fig["unit"], want).ok:
            faults.append(f"{name}: {fig['value']} misses its target {want}")
        new = run.get(name)
        if new is not None:
            se = math.hypot(fig.get("mc_se") or 0.0, _se(new) or 0.0)
            if abs(new["value"] - fig["value"]) > 3 * se:
                faults.append(f"{name}: recorded {fig['value']}, measured {new['value']}")
    return faults


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    run = {} if sys.stdin.isatty() else _read_run(sys.stdin.readlines())
    if args.write:
        write(run)
    if args.check:
        faults = check(run)
        for fault in faults:
            print(fault, file=sys.stderr)
        return 1 if faults else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
