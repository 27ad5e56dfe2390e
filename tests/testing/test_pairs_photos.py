"""PairsPhotoService paints an image once a process and still knows who is on each side of it,
whichever service of the process is asked."""

from __future__ import annotations

import io

from PIL import Image

from diptych.testing.pairs_photos import PairsPhotoService


def test_a_picture_asked_again_is_the_same_bytes_and_its_sides_are_known() -> None:
    one, two = PairsPhotoService(), PairsPhotoService()
    first = one("a nurse and a carpenter", 7, 0, (512, 256))
    assert two("a nurse and a carpenter", 7, 0, (512, 256)) is first
    with Image.open(io.BytesIO(first)) as image:
        assert image.size == (512, 256)
        sides = {two.perceived(image, "left"), two.perceived(image, "right")}
        assert one.perceived(image, "left") == two.perceived(image, "left")
    # A man and a woman, in an order chosen from the prompt, seed and index.
    assert sides == {"masculine", "feminine"}
