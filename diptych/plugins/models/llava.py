"""Model plugin ``llava``: LLaVA and other image-text-to-text chat models on transformers.

Any checkpoint that ``AutoModelForImageTextToText`` and ``AutoProcessor`` load and whose
processor carries a chat template: the llava-hf conversions of LLaVA 1.5 (the default,
``llava-hf/llava-1.5-7b-hf``, the model family the PAIRS paper audited) and LLaVA-NeXT, and
other instruction-tuned vision-language models. The weights come from a hub id, read from the
local cache only unless ``allow_download=true`` (an audit must never fetch gigabytes, or a
different revision, behind the user's back), or from a ``save_pretrained`` directory.

The question is put to the model through its own chat template (applied by the processor),
with one image placeholder per image before the text, so the prompt is the one the model was
trained on rather than a hand-written imitation of it.

Batching, sampling, device and dtype are the shared machinery of
:class:`~diptych.plugins.models._vision_chat.TransformersVisionChat`: batches are left-padded (a
decoder-only model continues each prompt from its last token, so padding must come first),
every sampled request draws from its own seeded generator, and the checkpoint is read
straight into the device and dtype chosen for this machine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from pydantic import Field

from diptych.core.capabilities import Model, Sampling
from diptych.core.data import pairs_sampling
from diptych.core.errors import ModelLoadError
from diptych.core.plugins.hookspecs import hookimpl
from diptych.plugins.models._vision_chat import Request, TransformersVisionChat

DEFAULT_MODEL = "llava-hf/llava-1.5-7b-hf"

#: Used when a checkpoint's config does not say how long its context is.
_UNKNOWN_CONTEXT = 1 << 20


class Llava(TransformersVisionChat):
    """LLaVA and other image-text-to-text chat models on transformers, run in-process."""

    name: ClassVar[str] = "llava"

    @classmethod
    def default_sampling(cls) -> Sampling:
        """The sampling a probe should pass when its user names none: the PAIRS paper's, which
        audited this model family (:func:`diptych.core.data.pairs_sampling`)."""
        return pairs_sampling()

    class Params(TransformersVisionChat.Params):
        model: str = Field(
            default=DEFAULT_MODEL,
            description="Hugging Face hub id (read from the local cache) or a model directory "
            "written by save_pretrained.",
        )

    def _load_parts(
        self, transformers: Any, source: str, options: dict[str, Any], weights: dict[str, Any]
    ) -> tuple[Any, Any]:
        processor = transformers.AutoProcessor.from_pretrained(source, **options)
        tokenizer = getattr(processor, "tokenizer", None)
        if tokenizer is None or not hasattr(processor, "image_processor"):
            raise ModelLoadError(
                f"{source!r} has no image processor and tokenizer, so it is not a vision-"
                "language model the llava plugin can prompt"
            )
        if not (getattr(processor, "chat_template", None) or tokenizer.chat_template):
            raise ModelLoadError(
                f"{source!r} has no chat template, so the llava plugin cannot tell how to put "
                "a question to it; use a chat (instruction-tuned) checkpoint"
            )
        # Left padding: see the module docstring. Set once here, so that every batch has it.
        tokenizer.padding_side = "left"
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        # AutoModelForImageTextToText arrived in transformers 4.46; LLaVA itself is older.
        model_class = getattr(transformers, "AutoModelForImageTextToText", None)
        if model_class is None:
            model_class = transformers.LlavaForConditionalGeneration
        model = model_class.from_pretrained(source, **weights, **options)
        return processor, model

    def _encode(self, processor: Any, requests: Sequence[Request]) -> Any:
        prompts: list[str] = []
        images: list[Any] = []
        for pictures, text in requests:
            content: list[dict[str, Any]] = [{"type": "image"} for _ in pictures]
            content.append({"type": "text", "text": text})
            conversation = [{"role": "user", "content": content}]
            prompts.append(processor.apply_chat_template(conversation, add_generation_prompt=True))
            # Vision towers take three channels; a greyscale or RGBA image would be refused.
            images.extend(p if p.mode == "RGB" else p.convert("RGB") for p in pictures)
        return processor(images=images or None, text=prompts, padding=True, return_tensors="pt")

    def _new_tokens(self, output: Any, inputs: dict[str, Any]) -> Any:
        if getattr(self._model.config, "is_encoder_decoder", False):
            return output[:, 1:]  # the decoder's output after its start token
        # A decoder-only model returns the prompt (left-padded to one length) and then the
        # new tokens.
        return output[:, inputs["input_ids"].shape[1] :]

    def _room(self, inputs: dict[str, Any]) -> int:
        config = self._model.config
        text_config = config.get_text_config() if hasattr(config, "get_text_config") else config
        context = getattr(text_config, "max_position_embeddings", None) or _UNKNOWN_CONTEXT
        return int(context) - int(inputs["input_ids"].shape[1])

    def _stop_ids(self) -> set[int]:
        stops: set[int] = set()
        eos = self._model.generation_config.eos_token_id
        stops.update(eos if isinstance(eos, list) else [] if eos is None else [eos])
        tokenizer_eos = self._processor.tokenizer.eos_token_id
        if tokenizer_eos is not None:
            stops.add(tokenizer_eos)
        return stops


@hookimpl
def register_models(register: Callable[[type[Model]], None]) -> None:
    register(Llava)
