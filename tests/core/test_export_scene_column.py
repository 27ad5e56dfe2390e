"""A text run's trials have no image: its CSV export names the key its probe plans them by
(``paired:carpenter|editor#0``, a scene and its sample) ``meta.scene``; a run of images keeps
``meta.image``, the image it names."""

from __future__ import annotations

from diptych.core.workspace.export import flatten


def _row(capability: str) -> dict[str, object]:
    return {"capability": capability, "meta": {"setting": "paired", "image": "paired:a|b#0"}}


def test_a_text_runs_scene_is_named_scene_and_an_image_runs_image_image() -> None:
    for capability in ("text_likelihood", "chat"):
        flat = flatten(_row(capability))
        assert flat["meta.scene"] == "paired:a|b#0" and "meta.image" not in flat, flat
        assert flat["meta.setting"] == "paired"
    for capability in ("image_generator", "vision_chat"):
        flat = flatten(_row(capability))
        assert flat["meta.image"] == "paired:a|b#0" and "meta.scene" not in flat, flat
