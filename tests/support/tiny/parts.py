"""What the tiny transformers models share: a PIL image processor and a word-level tokenizer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def pil_image_processor(name: str) -> Any:
    """The image processor class ``name`` (e.g. ``CLIPImageProcessor``) in its PIL form: from
    transformers 5 on the plain class needs torchvision, its ``…Pil`` twin does not."""
    import transformers

    pil: Any = getattr(transformers, f"{name}Pil", None)
    return pil if pil is not None else getattr(transformers, name)


def word_level_tokenizer(specials: Sequence[str], words: Sequence[str], **tokens: Any) -> Any:
    """A fast tokenizer whose vocabulary is ``specials`` then ``words``, split on white space;
    ``tokens`` names its special tokens (and any other tokenizer argument)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {token: i for i, token in enumerate([*specials, *words])}
    word_level = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    word_level.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=word_level, unk_token="<unk>", **tokens)


#: The size of every tiny transformer, text or vision: two layers of four heads, 32 wide.
TINY_LAYERS: dict[str, Any] = {
    "hidden_size": 32,
    "intermediate_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
}
#: A tiny vision tower: 16-pixel images in 8-pixel patches (4 patches and CLS).
TINY_VISION: dict[str, Any] = {**TINY_LAYERS, "image_size": 16, "patch_size": 8}
