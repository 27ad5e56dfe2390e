"""JSON and JSON Lines read with stated limits: a nesting depth, and a longest line.

Python's ``json`` follows nesting by recursion (100,000 ``[`` raise RecursionError) and reads a
line of any length into memory (a 2 GB file without a newline is one line). Every JSON that
comes from a user's file or option goes through :func:`parse_json`, every JSON Lines file
through :func:`json_lines`, so both limits are one line naming the file. A model's reply held
to a JSON schema is read by :func:`parse_reply_json`, and :func:`reply_json_problem` says in
one sentence why one is not JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO, Any

from diptych.core.errors import InputFileError

#: Deepest nesting of objects and arrays read. The reports and corpora diptych reads nest at
#: most 8 levels; 64 is far below the recursion limit of Python's parser.
MAX_JSON_DEPTH = 64

#: Longest line of a JSON Lines file (characters): one corpus text of 16 million characters
#: is already a book-length document.
MAX_JSON_LINE = 16 * 1024**2


def _too_deep(value: Any) -> bool:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, dict | list))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, dict | list))
    return False


def parse_json(text: str, where: str) -> Any:
    """The JSON value of ``text``; nesting deeper than :data:`MAX_JSON_DEPTH` is an
    :class:`InputFileError` that starts with ``where`` (the file, and the line if any).
    Malformed JSON raises ``json.JSONDecodeError`` for the caller to phrase."""
    deep = f"{where}JSON nested deeper than {MAX_JSON_DEPTH} levels; flatten it"
    try:
        value = json.loads(text)
    except RecursionError:
        raise InputFileError(deep) from None
    # Counting brackets first keeps the walk off the common flat line.
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH and _too_deep(value):
        raise InputFileError(deep)
    return value


def parse_reply_json(text: str) -> Any:
    """The JSON value of a model's reply held to a JSON schema. A control character (a raw
    newline or tab) inside a string is read as written: llama.cpp's JSON-schema grammar lets a
    model write one there (its string ``char`` is ``[^"\\\\]``), strict JSON forbids it, and
    the reply means the same either way. Malformed JSON raises ``json.JSONDecodeError``."""
    return json.loads(text, strict=False)


def reply_json_problem(text: str, finish_reason: str | None) -> str | None:
    """Why a model's reply held to a JSON schema is not JSON, in one sentence a user can act
    on, or None when it is JSON: a reply cut short by ``max_tokens`` asks for more of them;
    any other says what the parser found where, and why the model stopped."""
    try:
        parse_reply_json(text)
    except RecursionError:
        return f"The reply is JSON nested too deep to read (finish_reason={finish_reason})."
    except json.JSONDecodeError as error:
        if finish_reason == "length":
            return (
                "The reply is not complete JSON: max_tokens cut it short "
                "(finish_reason=length); raise max_tokens for this probe."
            )
        return f"The reply is not valid JSON ({error}; finish_reason={finish_reason})."
    return None


def json_lines(handle: IO[str], source: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a JSON Lines file, each at most :data:`MAX_JSON_LINE`
    characters: a longer one is an :class:`InputFileError` instead of a read into memory of
    whatever follows."""
    number = 0
    while True:
        line = handle.readline(MAX_JSON_LINE + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_JSON_LINE:
            raise InputFileError(
                f"{source}: line {number}: longer than {MAX_JSON_LINE:,} characters; "
                "write one JSON object per line"
            )
        yield number, line
