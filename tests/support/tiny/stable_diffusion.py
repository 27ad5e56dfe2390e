"""A tiny Stable Diffusion pipeline built from configs with seeded weights (2-block UNet and VAE,
a 2-layer CLIP text encoder, a letter-level tokenizer), saved with ``save_pretrained`` so that
the ``diffusers`` model plugin loads it from a directory, offline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def build_tiny_pipeline(directory: Path) -> None:
    """A complete StableDiffusionPipeline with random (seeded) weights, saved to ``directory``."""
    import torch
    from diffusers import (
        AutoencoderKL,
        DDIMScheduler,
        StableDiffusionPipeline,
        UNet2DConditionModel,
    )
    from transformers import CLIPTextConfig, CLIPTextModel, CLIPTokenizer

    # A letter-level BPE vocabulary (no merges): every prompt tokenises, and different
    # prompts give different tokens, so the text actually steers the tiny model.
    vocab = ["<|startoftext|>", "<|endoftext|>", *LETTERS, *(c + "</w>" for c in LETTERS)]
    vocab_file, merges_file = directory / "vocab.json", directory / "merges.txt"
    directory.mkdir(parents=True)
    vocab_file.write_text(json.dumps({t: i for i, t in enumerate(vocab)}))
    merges_file.write_text("#version: 0.2\n")
    tokenizer = CLIPTokenizer(
        str(vocab_file),
        str(merges_file),
        model_max_length=32,
        unk_token="<|endoftext|>",
        pad_token="<|endoftext|>",
    )
    torch.manual_seed(0)
    unet = UNet2DConditionModel(
        block_out_channels=(32, 64),
        layers_per_block=1,
        sample_size=16,
        in_channels=4,
        out_channels=4,
        down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
        up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
        cross_attention_dim=32,
    )
    vae = AutoencoderKL(
        block_out_channels=(32, 64),
        in_channels=3,
        out_channels=3,
        down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"),
        latent_channels=4,
    )
    text_encoder = CLIPTextModel(
        CLIPTextConfig(
            bos_token_id=0,
            eos_token_id=1,
            pad_token_id=1,
            hidden_size=32,
            intermediate_size=37,
            num_attention_heads=4,
            num_hidden_layers=2,
            vocab_size=len(vocab),
            max_position_embeddings=32,
        )
    )
    scheduler = DDIMScheduler(
        beta_start=0.00085,
        beta_end=0.012,
        beta_schedule="scaled_linear",
        clip_sample=False,
        set_alpha_to_one=False,
        steps_offset=1,
    )
    pipeline: Any = StableDiffusionPipeline(
        unet=unet,
        vae=vae,
        text_encoder=text_encoder,
        tokenizer=tokenizer,
        scheduler=scheduler,
        safety_checker=None,
        feature_extractor=None,
        requires_safety_checker=False,
    )
    pipeline.save_pretrained(directory / "tiny-sd")
    vocab_file.unlink()
    merges_file.unlink()
