"""``POST /v1/images/generations``: validated per model as OpenAI does, answered with real PNGs."""

from __future__ import annotations

import base64
import io
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from diptych.testing._unit import unit
from diptych.testing.fake_openai.wire import Reply, invalid_value, missing_parameter


@dataclass(frozen=True)
class ImageModel:
    """What OpenAI's image endpoint accepts from one model."""

    sizes: tuple[str, ...]
    qualities: tuple[str, ...]
    default_size: str
    default_quality: str
    max_n: int
    styles: tuple[str, ...] = ()


#: What OpenAI's image endpoint accepts per model. Any other model name is served like a
#: lenient compatible service: any WxH size, any quality, no revised prompt.
IMAGE_MODELS: dict[str, ImageModel] = {
    "dall-e-3": ImageModel(
        sizes=("1024x1024", "1792x1024", "1024x1792"),
        qualities=("standard", "hd"),
        default_size="1024x1024",
        default_quality="standard",
        max_n=1,
        styles=("vivid", "natural"),
    ),
    "gpt-image-1": ImageModel(
        sizes=("1024x1024", "1536x1024", "1024x1536", "auto"),
        qualities=("low", "medium", "high", "auto"),
        default_size="auto",
        default_quality="auto",
        max_n=10,
    ),
    "dall-e-2": ImageModel(
        sizes=("256x256", "512x512", "1024x1024"),
        qualities=("standard",),
        default_size="1024x1024",
        default_quality="standard",
        max_n=10,
    ),
}

#: gpt-image-1's output tokens per image by quality and size, as OpenAI documents them; the
#: fake reports them in ``usage`` so that token-based cost code sees realistic numbers.
GPT_IMAGE_OUTPUT_TOKENS: dict[str, dict[str, int]] = {
    "low": {"1024x1024": 272, "1024x1536": 408, "1536x1024": 400},
    "medium": {"1024x1024": 1056, "1024x1536": 1584, "1536x1024": 1568},
    "high": {"1024x1024": 4160, "1024x1536": 6240, "1536x1024": 6208},
}


def dalle3_revise(prompt: str) -> str:
    """DALL-E-3-like prompt rewriting: deterministic per prompt, sometimes adding words.

    About a quarter of prompts come back unchanged; the rest gain a style phrase, and some
    gain descriptors of the people shown, as DALL-E 3's rewriter was documented to add (the
    reason an auditor must see ``revised_prompt``).
    """
    text = prompt.strip()
    if not text:
        return prompt
    u = unit("revise", text)
    body = text.rstrip(".")
    if u < 0.25:
        return prompt
    if u < 0.5:
        return f"{body}, photographed in soft natural light, highly detailed and realistic."
    if u < 0.75:
        return f"{body}. The scene is rendered in a realistic style with fine detail."
    return f"{body}, showing people of diverse genders and descents, in a realistic style."


#: What paints an answer's images: (prompt, seed, index in the answer, (width, height)) → PNG.
Painter = Callable[[str, Any, int, tuple[int, int]], bytes]


#: The images painted in this process, by what chose them: the same runs on the same prompts
#: come back in many tests, and encoding a PNG is most of what painting one costs.
_PAINTED: dict[tuple[str, str, int, tuple[int, int]], bytes] = {}
#: Enough for every image of the largest run the tests make, small beside a test process.
_PAINTED_KEPT = 4096


def render_png(prompt: str, seed: Any, index: int, size: tuple[int, int]) -> bytes:
    """A real PNG of ``size``: a colour field with a few shapes, all chosen by the inputs."""
    # ``unit`` reads the seed as text: the key is what the picture is drawn from.
    key = (prompt, str(seed), index, (int(size[0]), int(size[1])))
    png = _PAINTED.get(key)
    if png is None:
        png = _paint(prompt, seed, index, size)
        if len(_PAINTED) >= _PAINTED_KEPT:
            _PAINTED.clear()
        _PAINTED[key] = png
    return png


def _paint(prompt: str, seed: Any, index: int, size: tuple[int, int]) -> bytes:
    from PIL import Image, ImageDraw

    width, height = size
    r = [unit(prompt, seed, index, i) for i in range(16)]
    image = Image.new("RGB", size, tuple(int(255 * v) for v in r[:3]))
    draw = ImageDraw.Draw(image)
    for k in range(3):
        x0, y0 = int(r[3 + k] * width * 0.6), int(r[6 + k] * height * 0.6)
        x1, y1 = x0 + max(1, width // 3), y0 + max(1, height // 3)
        colour = tuple(int(255 * unit(prompt, seed, index, k, c)) for c in range(3))
        (draw.ellipse if k % 2 else draw.rectangle)((x0, y0, x1, y1), fill=colour)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def parse_size(size: str) -> tuple[int, int] | None:
    width, sep, height = size.partition("x")
    if not sep or not width.isdigit() or not height.isdigit():
        return None
    w, h = int(width), int(height)
    return (w, h) if 0 < w <= 4096 and 0 < h <= 4096 else None


def generate_images(
    body: dict[str, Any],
    headers: dict[str, str],
    *,
    revise: Callable[[str], str] | None,
    image_size: tuple[int, int] | None,
    serve_file: Callable[[bytes], str],
    paint: Painter = render_png,
) -> dict[str, Any]:
    """The answer to an images request, or a Reply raised with OpenAI's error.

    ``serve_file`` keeps a PNG for ``response_format=url`` and gives the URL it is served at;
    ``paint`` makes each image (by default :func:`render_png`; a test may paint photographs).
    """
    model = str(body.get("model") or "dall-e-2")  # OpenAI's default when none is named
    prompt = body.get("prompt")
    if not isinstance(prompt, str) or not prompt:
        raise missing_parameter("prompt")
    spec = IMAGE_MODELS.get(model)
    n = body.get("n") if body.get("n") is not None else 1
    if not isinstance(n, int) or n < 1 or n > (spec.max_n if spec else 10):
        if model == "dall-e-3":
            raise Reply(400, "You must provide n=1 for this model.", param="n")
        raise Reply(400, f"Invalid 'n': {n}; it must be from 1 to 10.", param="n")
    size = body.get("size") or (spec.default_size if spec else "1024x1024")
    if spec is not None and size not in spec.sizes:
        raise invalid_value("size", size, spec.sizes)
    dims = parse_size("1024x1024" if size == "auto" else str(size))
    if dims is None:
        raise invalid_value("size", size, ("WIDTHxHEIGHT",))
    quality = body.get("quality") or (spec.default_quality if spec else None)
    if spec is not None and quality not in spec.qualities:
        raise invalid_value("quality", quality, spec.qualities)
    style = body.get("style")
    if spec is not None and style is not None and style not in spec.styles:
        if not spec.styles:
            raise Reply(
                400,
                "Unknown parameter: 'style'.",
                "invalid_request_error",
                "unknown_parameter",
                "style",
            )
        raise invalid_value("style", style, spec.styles)
    response_format = body.get("response_format")
    if model == "gpt-image-1":
        if response_format is not None:
            # gpt-image-1 always answers in base64 and rejects the parameter outright.
            raise Reply(
                400,
                "Unknown parameter: 'response_format'.",
                code="unknown_parameter",
                param="response_format",
            )
        response_format = "b64_json"
    response_format = response_format or "url"
    if response_format not in ("url", "b64_json"):
        raise invalid_value("response_format", response_format, ("url", "b64_json"))
    seed = body.get("seed", headers.get("x-fake-seed"))
    pixels = image_size or dims
    revised = revise(prompt) if model == "dall-e-3" and revise else None
    data: list[dict[str, Any]] = []
    for index in range(n):
        png = paint(prompt, seed, index, pixels)
        item: dict[str, Any] = {}
        if response_format == "b64_json":
            item["b64_json"] = base64.b64encode(png).decode("ascii")
        else:
            item["url"] = serve_file(png)
        if revised is not None:
            item["revised_prompt"] = revised
        data.append(item)
    answer: dict[str, Any] = {"created": int(time.time()), "data": data}
    if model == "gpt-image-1":
        answer.update(_gpt_image_usage(prompt, str(size), str(quality), n))
    return answer


def _gpt_image_usage(prompt: str, size: str, quality: str, n: int) -> dict[str, Any]:
    """What gpt-image-1 adds to its answer: the settings it resolved and its token ``usage``."""
    resolved_size = "1024x1024" if size == "auto" else size
    resolved_quality = "medium" if quality == "auto" else quality
    text_tokens = max(1, round(len(prompt.split()) * 1.3))
    output = GPT_IMAGE_OUTPUT_TOKENS[resolved_quality][resolved_size] * n
    return {
        "background": "opaque",
        "output_format": "png",
        "quality": resolved_quality,
        "size": resolved_size,
        "usage": {
            "input_tokens": text_tokens,
            "input_tokens_details": {"image_tokens": 0, "text_tokens": text_tokens},
            "output_tokens": output,
            "total_tokens": text_tokens + output,
        },
    }
