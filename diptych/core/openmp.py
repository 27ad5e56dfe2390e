"""OpenMP threads that sleep, not spin, while they wait for each other.

llama.cpp and PyTorch's CPU build both run on the system's libgomp, which reads
``OMP_WAIT_POLICY`` once, when the first of them loads it. Left unset, waiting threads spin;
on cores that other work also wants (two test workers, a busy server, an audit that loads a
face detector beside SmolLM2) each batch then waits for descheduled spinners and slows by
orders of magnitude: a 22-token batch of SmolLM2 on 2 threads took 28.8 s at load 12 with
spinning threads and 0.18 s with passive waiting, for the same values. So the setting is made
as soon as diptych is imported, before either library can load libgomp; a value the user set
is kept.
"""

from __future__ import annotations

import os


def passive_openmp() -> None:
    """Make OpenMP's waiting threads sleep unless the user chose otherwise."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
