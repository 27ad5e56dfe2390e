"""A tiny LLaVA built from configs, offline: the same model for the llava and annotator tests.

A 2-layer Llama text model and a 2-layer CLIP vision tower with a 16-pixel input, a 27-word
vocabulary with a chat template and the ``<image>`` token, and a PIL-based CLIP image processor,
with fixed random weights drawn wider than transformers' default (0.2, not 0.02) so that the
untrained model's answers depend clearly on the image and the question.
"""

from __future__ import annotations

from pathlib import Path

from support.tiny.parts import TINY_LAYERS, TINY_VISION, pil_image_processor, word_level_tokenizer

WORDS = (
    "a an the person in image is doctor nurse who what this man woman describe tell me about "
    "story write"
).split()
SPECIALS = ["<pad>", "<s>", "</s>", "<unk>", "<image>", "USER:", "ASSISTANT:"]
#: LLaVA 1.5's conversation format, reduced: image placeholders, then the text.
TEMPLATE = (
    "{% for message in messages %}"
    "{% if message['role'] == 'user' %}USER: {% else %}ASSISTANT: {% endif %}"
    "{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}<image> "
    "{% elif part['type'] == 'text' %}{{ part['text'] }} {% endif %}"
    "{% endfor %}{% endfor %}"
    "{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)


def build_tiny_llava(directory: Path) -> None:
    """A LlavaForConditionalGeneration with its processor, random (seeded) weights, saved."""
    import torch
    from transformers import (
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    image_processor_class = pil_image_processor("CLIPImageProcessor")
    tokenizer = word_level_tokenizer(
        SPECIALS,
        WORDS,
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
        extra_special_tokens={"image_token": "<image>"},
        chat_template=TEMPLATE,
    )
    # 16-pixel images in 8-pixel patches: 4 patches + CLS, less CLS ("default" strategy),
    # so each image becomes 4 <image> tokens in the prompt.
    processor = LlavaProcessor(
        image_processor=image_processor_class(
            size={"shortest_edge": 16}, crop_size={"height": 16, "width": 16}
        ),
        tokenizer=tokenizer,
        patch_size=8,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=TEMPLATE,
    )
    spread = 0.2
    config = LlavaConfig(
        text_config=LlamaConfig(
            vocab_size=len(SPECIALS) + len(WORDS),
            **TINY_LAYERS,
            num_key_value_heads=2,
            max_position_embeddings=128,
            pad_token_id=0,
            bos_token_id=1,
            eos_token_id=2,
            initializer_range=spread,
        ),
        vision_config=CLIPVisionConfig(
            **TINY_VISION,
            projection_dim=32,
            initializer_range=spread,
            initializer_factor=spread / 0.02,
        ),
        image_token_index=SPECIALS.index("<image>"),
        vision_feature_select_strategy="default",
        vision_feature_layer=-1,
    )
    torch.manual_seed(0)
    model = LlavaForConditionalGeneration(config)
    model.save_pretrained(directory)
    processor.save_pretrained(directory)
