"""The one YAML reader: every YAML file diptych reads (audit files, prompts, identity lists, the
agent's data) goes through :func:`load_yaml`.

PyYAML's ``safe_load`` accepts a mapping that names a key twice and keeps the last value, so a
pasted line silently overrides the one above it (``masculine:`` given twice runs only the
second list). Its composer also follows nesting by recursion, so a few thousand ``[`` end in a
RecursionError. Both become one error naming the file and the line here.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import IO, Any

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node, ScalarNode

from diptych.core.errors import InputFileError

#: Deepest nesting of mappings and lists a YAML file may have. The shipped files and audit
#: files nest at most 6 levels; 64 leaves room for any hand-written file and stays far below
#: Python's recursion limit.
MAX_YAML_DEPTH = 64

#: Largest YAML file read (bytes). The largest shipped file is under 100 KB.
MAX_YAML_BYTES = 16 * 1024**2

_MERGE_TAG = "tag:yaml.org,2002:merge"


class StrictLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses duplicate keys and nesting deeper than
    :data:`MAX_YAML_DEPTH`."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise ComposerError(
                    None,
                    None,
                    f"nested deeper than {MAX_YAML_DEPTH} levels; flatten it",
                    self.peek_event().start_mark,
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            # A merge key (``<<: *defaults``) may be overridden on purpose; only keys
            # written twice in one mapping are refused.
            if key_node.tag == _MERGE_TAG or not isinstance(key_node, ScalarNode):
                continue
            key = self.construct_object(key_node)
            try:
                first = seen.get(key)
            except TypeError:
                continue
            if first is not None:
                raise ConstructorError(
                    None,
                    None,
                    f"key {key!r} appears twice in one mapping (first on line {first + 1}); "
                    "keep one",
                    key_node.start_mark,
                )
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


def parse_yaml(stream: str | IO[str]) -> Any:
    """The document in ``stream``; raises ``yaml.YAMLError`` (with its mark) on malformed YAML,
    a duplicate key or nesting deeper than :data:`MAX_YAML_DEPTH`."""
    return yaml.load(stream, Loader=StrictLoader)  # noqa: S506 (a SafeLoader subclass)


def compose_yaml(text: str) -> Node | None:
    """The node tree of ``text`` (for line numbers), composed by the same strict loader."""
    return yaml.compose(text, Loader=StrictLoader)


def yaml_error_line(source: str | Path, error: yaml.YAMLError) -> str:
    """One line for ``error`` in ``source``: the file, the line where YAML shows it, the problem."""
    mark = getattr(error, "problem_mark", None)
    where = f"{source}:{mark.line + 1}" if mark is not None else str(source)
    problem = getattr(error, "problem", None) or " ".join(str(error).split())
    return f"{where}: not valid YAML: {problem}"


def load_yaml(path: Path, limit: int = MAX_YAML_BYTES) -> Any:
    """The YAML document in the file ``path``; every failure is one :class:`InputFileError`
    naming the file (and the line where there is one)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such file") from None
    except OSError as error:
        raise InputFileError(f"{path}: cannot read it ({error.strerror})") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputFileError(f"{path}: not a regular file; give a YAML file")
    if info.st_size > limit:
        raise InputFileError(
            f"{path}: {info.st_size:,} bytes, more than the {limit:,} a YAML file may have"
        )
    if not os.access(path, os.R_OK):
        raise InputFileError(f"{path}: the file is not readable; check its permissions")
    try:
        with path.open(encoding="utf-8") as handle:
            return parse_yaml(handle)
    except yaml.YAMLError as error:
        raise InputFileError(yaml_error_line(path, error)) from None
    except UnicodeDecodeError as error:
        raise InputFileError(f"{path}: not UTF-8 text ({error.reason}); save it as UTF-8") from None
