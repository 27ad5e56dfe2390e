"""Model plugin ``blip-vqa``: BLIP visual question answering on transformers, in-process.

``Salesforce/blip-vqa-base`` by default (or another BLIP VQA checkpoint): one image, one
question, a short answer ("a doctor", "yes"). It is the automatic annotator's classic choice
for perceived attributes and a cheap vision model to audit. The weights come from a hub id,
read from the local cache only unless ``allow_download=true``, or from a ``save_pretrained``
directory.

BLIP's ``generate`` lets the answer decoder attend to every position of the encoded question,
padding included, so a padded question would not get the answer it gets alone. Requests are
therefore batched only with questions of the same length in tokens; an audit asks one
question of many images, so that costs nothing in practice and keeps batch == alone exact.
Device, dtype, sampling and loading are the shared machinery of
:class:`~diptych.plugins.models._vision_chat.TransformersVisionChat`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, ClassVar

from pydantic import Field

from diptych.core.capabilities import Model, Sampling
from diptych.core.errors import PermanentModelError
from diptych.core.plugins.hookspecs import hookimpl
from diptych.plugins.models._vision_chat import Request, TransformersVisionChat

DEFAULT_MODEL = "Salesforce/blip-vqa-base"


class BlipVqa(TransformersVisionChat):
    """BLIP visual question answering (one image, one question, a short answer) on transformers."""

    name: ClassVar[str] = "blip-vqa"

    @classmethod
    def default_sampling(cls) -> Sampling:
        """The sampling a probe should pass when its user names none. VQA models are trained
        to give answers of a few words, decoded greedily; 20 tokens is transformers' default
        length for them and more than any answer they give."""
        return Sampling(temperature=0.0, top_p=1.0, max_tokens=20)

    class Params(TransformersVisionChat.Params):
        model: str = Field(
            default=DEFAULT_MODEL,
            description="Hugging Face hub id (read from the local cache) or a BLIP VQA model "
            "directory written by save_pretrained.",
        )

    def _load_parts(
        self, transformers: Any, source: str, options: dict[str, Any], weights: dict[str, Any]
    ) -> tuple[Any, Any]:
        processor = transformers.BlipProcessor.from_pretrained(source, **options)
        model = transformers.BlipForQuestionAnswering.from_pretrained(source, **weights, **options)
        return processor, model

    def _generation_options(self, config: Any) -> dict[str, Any]:
        # BLIP's generate names the end and pad tokens itself; transformers deprecates passing
        # them beside a generation config, so the settings that matter go one by one.
        return {"do_sample": False, "num_beams": 1, "max_new_tokens": config.max_new_tokens}

    def _check(self, request: Request) -> None:
        images, _ = request
        if len(images) != 1:
            raise PermanentModelError(
                f"blip-vqa answers a question about exactly one image; it was given {len(images)}"
            )

    def _group_key(self, processor: Any, request: Request) -> Hashable:
        # See the module docstring: only questions of one length share a forward pass.
        return len(processor.tokenizer(request[1])["input_ids"])

    def _encode(self, processor: Any, requests: Sequence[Request]) -> Any:
        # _check saw to it that each request has exactly one image.
        images = [pictures[0].convert("RGB") for pictures, _ in requests]
        encoded = processor(
            images=images, text=[text for _, text in requests], padding=True, return_tensors="pt"
        )
        # BLIP's generate takes these three; a BERT tokenizer may add token_type_ids.
        return {k: encoded[k] for k in ("input_ids", "attention_mask", "pixel_values")}

    def _new_tokens(self, output: Any, inputs: dict[str, Any]) -> Any:
        return output[:, 1:]  # the answer decoder's output after its start token

    def _room(self, inputs: dict[str, Any]) -> int:
        # The answer decoder starts from one token and has its own position embeddings.
        return int(self._model.config.text_config.max_position_embeddings) - 1

    def _stop_ids(self) -> set[int]:
        # BLIP's generate ends answers at [SEP] (it passes it as the end-of-sequence token).
        sep = self._model.config.text_config.sep_token_id
        return {sep} if sep is not None else set()


@hookimpl
def register_models(register: Callable[[type[Model]], None]) -> None:
    register(BlipVqa)
