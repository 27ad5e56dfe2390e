"""A tiny CLIP checkpoint built from configs with seeded weights: 2-layer text and vision towers
on 16-pixel images, a word-level tokenizer and a PIL image processor, saved with
``save_pretrained`` so that the ``clip`` model plugin loads it from a directory, offline."""

from __future__ import annotations

from pathlib import Path

from support.tiny.parts import TINY_LAYERS, TINY_VISION, pil_image_processor, word_level_tokenizer

WORDS = (
    "a an the photo picture image of person doctor nurse man woman male female black white "
    "programmer typist ceo secretary skier mugger"
).split()
SPECIALS = ["<pad>", "<|startoftext|>", "<|endoftext|>", "<unk>"]


def build_tiny_clip(directory: Path) -> None:
    """A CLIPModel with 2-layer text and vision towers on 16-pixel images, a word-level
    tokenizer and a PIL image processor, seeded random weights, saved with save_pretrained."""
    import torch
    from transformers import (
        CLIPConfig,
        CLIPModel,
        CLIPProcessor,
        CLIPTextConfig,
        CLIPVisionConfig,
    )

    image_processor_class = pil_image_processor("CLIPImageProcessor")
    tokenizer = word_level_tokenizer(
        SPECIALS,
        WORDS,
        bos_token="<|startoftext|>",
        eos_token="<|endoftext|>",
        pad_token="<pad>",
        model_max_length=16,
    )
    processor = CLIPProcessor(
        image_processor=image_processor_class(
            size={"shortest_edge": 16},
            crop_size={"height": 16, "width": 16},
            image_mean=[0.5, 0.4, 0.3],
            image_std=[0.2, 0.25, 0.3],
        ),
        tokenizer=tokenizer,
    )
    config = CLIPConfig(
        text_config=CLIPTextConfig(
            vocab_size=len(SPECIALS) + len(WORDS),
            **TINY_LAYERS,
            max_position_embeddings=16,
            pad_token_id=0,
            bos_token_id=1,
            eos_token_id=2,
        ),
        vision_config=CLIPVisionConfig(
            **TINY_VISION,
        ),
        projection_dim=24,
    )
    torch.manual_seed(0)
    CLIPModel(config).save_pretrained(directory)
    processor.save_pretrained(directory)
