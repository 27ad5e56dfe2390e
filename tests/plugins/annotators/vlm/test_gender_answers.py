"""Reading a vision-language model's free-text answer as a perceived gender: the words, negations,
hedges and pronouns, and the reason given for each reading."""

from __future__ import annotations

import pytest

from diptych.core.labels import CANNOT_IDENTIFY
from diptych.plugins.annotators.vlm.answers import FEMININE, MASCULINE, parse_answer


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # plain answers, in the words a VQA model or a chat model uses
        ("woman", FEMININE),
        ("A woman.", FEMININE),
        ("Feminine", FEMININE),
        ("The person on the left is a woman.", FEMININE),
        ("a young girl", FEMININE),
        ("She is a lady in a lab coat.", FEMININE),
        ("women", FEMININE),
        ("a businesswoman", FEMININE),
        ("The person demonstrates feminine traits.", FEMININE),
        ("man", MASCULINE),
        ("MALE", MASCULINE),
        ("masculine.", MASCULINE),
        ("The person in the picture is a man.", MASCULINE),
        ("a boy", MASCULINE),
        ("A gentleman wearing a suit.", MASCULINE),
        ("a businessman", MASCULINE),
        ("Masculine traits", MASCULINE),
        # word boundaries: no gender hides inside another word
        ("human", CANNOT_IDENTIFY),
        ("a German doctor", CANNOT_IDENTIFY),
        ("the manager", CANNOT_IDENTIFY),
        ("female", FEMININE),  # "male" inside "female" is not a man
        # negations: a denied word does not count, and is not read as its opposite
        ("not a woman", CANNOT_IDENTIFY),
        ("The person isn't female.", CANNOT_IDENTIFY),
        ("There is no man in the picture", CANNOT_IDENTIFY),
        ("This is a man, not a woman.", MASCULINE),
        ("It is not a man but a woman", FEMININE),
        ("Not a man; a woman.", FEMININE),
        ("No, it's a woman.", FEMININE),
        ("more masculine than feminine", MASCULINE),
        ("The person is not a man or a woman", CANNOT_IDENTIFY),
        # hedges and abstentions
        ("both", CANNOT_IDENTIFY),
        ("neither", CANNOT_IDENTIFY),
        ("Neither male nor female", CANNOT_IDENTIFY),
        ("I can't tell.", CANNOT_IDENTIFY),
        ("I can\u2019t tell from this image", CANNOT_IDENTIFY),
        ("I'm not sure, but it looks like a man.", CANNOT_IDENTIFY),
        ("unclear", CANNOT_IDENTIFY),
        ("Cannot Identify", CANNOT_IDENTIFY),
        ("It is hard to say.", CANNOT_IDENTIFY),
        ("I don't think it is a woman", CANNOT_IDENTIFY),
        ("The person appears androgynous.", CANNOT_IDENTIFY),
        ("a man and a woman", CANNOT_IDENTIFY),
        ("man or woman", CANNOT_IDENTIFY),
        ("It could be either.", CANNOT_IDENTIFY),
        ("There is nobody in the picture.", CANNOT_IDENTIFY),
        # pronouns only when no gender word is said
        ("She is a doctor.", FEMININE),
        ("He is holding a hammer.", MASCULINE),
        ("He is talking to her.", CANNOT_IDENTIFY),
        ("", CANNOT_IDENTIFY),
        ("   ", CANNOT_IDENTIFY),
        ("ok", CANNOT_IDENTIFY),
        ("a doctor", CANNOT_IDENTIFY),
    ],
)
def test_the_parser_reads_free_text_answers(answer: str, expected: str) -> None:
    parsed = parse_answer(answer)
    assert parsed.label == expected, parsed.reason
    assert parsed.reason


def test_the_parser_says_why() -> None:
    assert parse_answer("A woman.").reason == 'named "woman"'
    assert parse_answer("not a woman").reason.startswith('only negated gender words ("woman")')
    assert parse_answer("I'm not sure").reason == 'hedged ("not sure")'
    assert parse_answer("a man and a woman").reason == 'named both genders ("man", "woman")'
    assert parse_answer("She is a doctor.").reason == 'no gender word; pronoun "she"'
    assert parse_answer("a doctor").reason == "no gender word"
