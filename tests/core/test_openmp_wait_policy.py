"""OpenMP's waiting threads sleep in any process that imports diptych, whatever it loads next.

PyTorch and llama.cpp share the system's libgomp, which reads ``OMP_WAIT_POLICY`` once, when
it is first loaded: the setting only counts if diptych makes it before either library loads.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = """
import os
import diptych
maps = open("/proc/self/maps").read()
print(os.environ.get("OMP_WAIT_POLICY"), "libgomp" in maps)
import torch
torch.ones(4).sum()
print(os.environ.get("OMP_WAIT_POLICY"), "libgomp" in open("/proc/self/maps").read())
"""


def _probe(**env: str) -> list[str]:
    environ = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"} | env
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=environ, capture_output=True, text=True, check=True
    )
    return done.stdout.split("\n")[:2]


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="reads /proc (Linux)")
def test_importing_diptych_sets_passive_waiting_before_any_openmp_runtime_loads() -> None:
    pytest.importorskip("torch")
    # Set on import, while no libgomp is loaded yet; PyTorch then loads libgomp with it set.
    assert _probe() == ["PASSIVE False", "PASSIVE True"]


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="reads /proc (Linux)")
def test_a_wait_policy_the_user_set_is_kept() -> None:
    pytest.importorskip("torch")
    assert _probe(OMP_WAIT_POLICY="ACTIVE") == ["ACTIVE False", "ACTIVE True"]
