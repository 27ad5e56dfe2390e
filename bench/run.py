"""diptych benchmarks: one JSON object per line on stdout.

    .venv/bin/python bench/run.py                 # every benchmark
    .venv/bin/python bench/run.py engine pmi      # the areas named (engine, pmi, retrieval ...)
    .venv/bin/python bench/run.py engine.resume   # only figures whose name starts with a prefix
    .venv/bin/python bench/run.py --list          # the figures and their targets
    .venv/bin/python bench/run.py --check         # exit 1 if a figure misses its target

Each line is ``{"name", "value", "unit"}`` plus, for a figure with a target, ``"want"`` (e.g.
``">= 2000"``) and ``"ok"``. Each area is a module of this folder, or a package of it, whose
benchmarks register with :func:`bench.harness.bench`. See bench/README.md.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

#: The areas, in the order they run: each area's figures are named ``<area>.…`` and
#: registered by one module, a module of this folder or one of a package's (its ``figures``, or
#: the module of its subject).
AREAS = {
    "engine": "bench.engine",
    "pst": "bench.pst.images",
    "pst_text": "bench.pst.text",
    "faces": "bench.faces",
    "pmi": "bench.pmi",
    "metrics": "bench.metrics",
    "retrieval": "bench.retrieval",
    "tui": "bench.tui",
    "agent": "bench.agent.figures",
    "report": "bench.report",
    "scale": "bench.scale",
    "drill": "bench.drill",
    "validity": "bench.validity.figures",
    "gates": "bench.gates",
    "ppi": "bench.ppi.figures",
    "sequential": "bench.sequential.figures",
    "measure": "bench.measure",
    "tone": "bench.tone.annotator",
    "evidence": "bench.evidence.figures",
    "standings": "bench.standings",
}


def _selected(name: str, prefixes: list[str]) -> bool:
    return not prefixes or any(name.startswith(p) for p in prefixes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "prefixes", nargs="*", help="areas, or prefixes of figure names, to run (default: all)"
    )
    parser.add_argument("--list", action="store_true", help="list figures and targets")
    parser.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    args = parser.parse_args(argv)

    # An area's module only declares its benchmarks when imported; what they need is imported
    # when they run, so loading every area costs nothing.
    for module in AREAS.values():
        importlib.import_module(module)
    from bench.harness import BENCHES, setup_plugins

    if args.list:
        for b in BENCHES:
            for name, want in b.figures.items():
                if _selected(name, args.prefixes):
                    print(f"{name}\t{want or '-'}")
        return 0

    chosen = [b for b in BENCHES if any(_selected(n, args.prefixes) for n in b.figures)]
    if not chosen:
        print(f"no benchmark matches {args.prefixes}", file=sys.stderr)
        return 2
    setup_plugins()
    missed: list[str] = []
    for b in chosen:
        for r in b.fn():
            if not _selected(r.name, args.prefixes):
                continue
            print(r.line(), flush=True)
            if r.ok is False:
                missed.append(r.name)
    if missed:
        print(f"missed targets: {', '.join(missed)}", file=sys.stderr)
    return 1 if (args.check and missed) else 0


if __name__ == "__main__":
    # Run from anywhere: the checkout (its diptych package and this bench package) wins over
    # any other installed copy. It replaces this folder on the path, where the area modules
    # (engine.py, tui.py ...) would otherwise shadow top-level packages of the same names.
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
    sys.exit(main())
