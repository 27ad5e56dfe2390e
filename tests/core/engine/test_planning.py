"""Planning: dry-run estimates count and price what a run would do, storing nothing."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from PIL import Image

from diptych.core.capabilities import Capability
from diptych.core.engine import estimate, run_probe
from diptych.core.lookup import RunLookup
from diptych.core.plugins import get_model, get_probe
from diptych.core.report.formatting import dollars
from diptych.core.store import Store
from diptych.core.trials import TrialSpec, sha256_hex
from diptych.testing import ScriptedProbe


def test_dry_run_estimate_counts_and_prices(scripted: None, store: Store) -> None:
    probe = get_probe("scripted", {"n": 10, "samples": 2, "capability": "image_generator"})
    model = get_model("scripted-images", {"price_per_call": 0.04})
    before = estimate(store, probe, [model])
    assert (before.planned, before.cached, before.to_run) == (20, 0, 20)
    assert before.cost == pytest.approx(0.80) and before.unpriced == 0
    assert store.list_runs() == []  # a dry run stores nothing

    run_probe(
        store,
        get_probe("scripted", {"n": 4, "capability": "image_generator"}),
        [get_model("scripted-images", {"price_per_call": 0.04})],
    )
    after = estimate(store, probe, [model])
    # The four stored images (sample 0 of requests 0-3) are neither run nor paid for again.
    assert (after.cached, after.to_run) == (4, 16) and after.cost == pytest.approx(0.64)
    unpriced = estimate(store, probe, [get_model("scripted-images")])
    assert unpriced.unpriced == 16 and unpriced.cost == 0
    # A model computed in this process (weights loaded here) buys nothing: it is free, not
    # a service of unknown price.
    on_machine = get_model("scripted-images")
    on_machine.hints.blocking = True
    free = estimate(store, probe, [on_machine])
    assert free.unpriced == 0 and free.cost == 0 and free.to_run == 16
    # Said as every surface says it: a dollar figure only for what is priced.
    assert dollars(before.cost) == "$0.80" and dollars(after.cost) == "$0.64"
    assert dollars(unpriced.cost) == "not priced"
    assert dollars(free.cost) == "not priced (computed on this machine)"
    assert dollars(free.per_model[on_machine_id(free)]["cost"]) == dollars(free.cost)
    # Beside a priced model (its 16 requests left at $0.04), another with none of its 20
    # stored: computed here, or a service with no price.
    other = get_model("scripted-images", {"refuse_containing": "never asked"})
    mixed = estimate(store, probe, [model, other])
    assert dollars(mixed.cost) == "$0.64 + 20 requests not priced"
    other.hints.blocking = True
    both = estimate(store, probe, [model, other])
    assert dollars(both.cost) == "$0.64 + 20 requests computed on this machine"


def on_machine_id(est: object) -> str:
    (model_id,) = est.per_model  # type: ignore[attr-defined]
    return str(model_id)


def test_parameters_left_at_their_defaults_do_not_change_a_run(scripted: None) -> None:
    from diptych.core.engine.planning import run_fingerprint
    from diptych.core.plugins import get_probe

    given = get_probe("scripted", {"n": 3})
    spelled_out = get_probe("scripted", given.params.model_dump(mode="json"))
    # Writing a default out, or a release adding one, is the same run; changing a value is not.
    assert run_fingerprint(given, []) == run_fingerprint(spelled_out, [])
    assert run_fingerprint(given, []) != run_fingerprint(get_probe("scripted", {"n": 4}), [])


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 4), (200, 0, 0)).save(out, format="PNG")
    return out.getvalue()


class _Bringing(ScriptedProbe):
    """A scripted probe that names one image of its own by content and records what it was
    bound with."""

    name = "scripted-bringing"
    image = _png()
    bound_with: list[object] = []

    def bind(self, runs: RunLookup) -> _Bringing:
        self.bound_with.append(runs)
        return self

    def input_blobs(self) -> list[bytes]:
        return [self.image]

    def plan(self) -> Iterator[TrialSpec]:
        payload = {"images": [{"blob": sha256_hex(self.image)}], "text": "Who is this?"}
        yield TrialSpec(Capability.VISION_CHAT, payload)


def test_a_probe_is_bound_through_the_port_and_its_inputs_stored_when_it_runs(
    scripted: None, store: Store
) -> None:
    probe = _Bringing(_Bringing.Params(capability=Capability.VISION_CHAT))
    sha = sha256_hex(_Bringing.image)
    estimate(store, probe, [get_model("scripted-vision")])
    # A dry run binds the probe too, and stores neither a run nor the probe's inputs.
    assert store.list_runs() == [] and not store.has_blob(sha)
    run = run_probe(store, probe, [get_model("scripted-vision")])
    assert store.get_blob(sha) == _Bringing.image
    assert store.status_counts(run.id)["done"] == 1
    # The probe never held the store: only the read-only port, which sees the run just made.
    assert _Bringing.bound_with and all(
        isinstance(port, RunLookup) and not isinstance(port, Store) for port in _Bringing.bound_with
    )
    assert [r.id for r in _Bringing.bound_with[-1].runs("scripted-bringing")] == [run.id]
