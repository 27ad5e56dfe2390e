"""Keeping secrets out of a bundle.

The workspace stores none by design: a model keeps only the credential-free form of its
``base_url``, reads its key from the variable or file it names, and an audit file refuses a
parameter that would hold one. A bundle leaves the machine, so it does not rest on that alone.
Every record on its way in is scrubbed by the same rules the report's reproduce command follows
(:mod:`diptych.core.report.reproduce`): a value under a name that says it is a secret
(``api_key``, ``token``, ``headers`` ...) becomes ``***``, a URL loses its user, password and
credential-bearing query parameters, and the value of any environment variable whose name says
it holds a secret is replaced wherever it appears. A blob or report file cannot be rewritten
without breaking its hash: one holding such a value stops the export, naming the variable.

A record that holds no secret keeps its exact text, so digests taken of it elsewhere (a signed
report's manifest) still match after the bundle is imported.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "***"

#: Names of parameters and options that hold a secret; ``*_env`` and ``*_file`` only name where
#: one is kept. ``headers`` and ``cookies`` are included whole: what they carry is credentials.
_SECRET_NAME = re.compile(
    r"(^|[_-])(api_?key|secret|token|password|passwd|authorization|auth|headers?|cookies?"
    r"|credentials?)$",
    re.IGNORECASE,
)
#: Environment variables whose value is a secret (OPENAI_API_KEY, HF_TOKEN, AWS_SECRET_ACCESS_KEY).
_SECRET_VARIABLE = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH", re.IGNORECASE)
#: Shorter values are too common to be told from ordinary text.
_MIN_SECRET_LENGTH = 8
#: OpenAI-style secret keys (sk-..., sk-proj-...), as the model plugins' own redaction knows them.
_KEY = re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}")
_USERINFO = re.compile(r"(?<=://)[^/@\s\"']+@")
_SECRET_QUERY = re.compile(
    r"(?P<name>[?&][^=&\s\"']*(?:key|token|secret|passw|pwd|auth|sig|credential|session)"
    r"[^=&\s\"']*=)[^&\s\"'#]+",
    re.IGNORECASE,
)


def secret_name(name: str) -> bool:
    """Whether a parameter called ``name`` holds a secret (rather than naming where one is)."""
    return bool(_SECRET_NAME.search(name)) and not name.endswith(("_env", "_file"))


def environment_secrets(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Secret value → the variable holding it, for every variable whose name says it holds one."""
    environ = os.environ if environ is None else environ
    return {
        value: name
        for name, value in environ.items()
        if _SECRET_VARIABLE.search(name) and len(value) >= _MIN_SECRET_LENGTH
    }


class Scrubber:
    """Scrubs record values; counts what it took out, by kind, for the export's summary."""

    def __init__(self, secrets: Mapping[str, str]) -> None:
        # Longest first: a key that contains another is replaced whole.
        self._secrets = sorted(secrets, key=len, reverse=True)
        self.redacted = 0

    def text(self, value: str) -> str:
        out = value
        for secret in self._secrets:
            out = out.replace(secret, REDACTED)
        out = _KEY.sub("sk-" + REDACTED, out)
        out = _USERINFO.sub("", out)
        out = _SECRET_QUERY.sub(lambda m: m.group("name") + REDACTED, out)
        if out != value:
            self.redacted += 1
        return out

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                if isinstance(key, str) and secret_name(key) and item not in (None, "", {}, []):
                    self.redacted += item != REDACTED
                    out[key] = REDACTED
                else:
                    out[key] = self.value(item)
            return out
        return value

    def json_text(self, text: str) -> str:
        """JSON text scrubbed; the very same text when there was nothing to take out."""
        try:
            parsed = json.loads(text)
        except ValueError:
            return self.text(text)
        before = self.redacted
        cleaned = self.value(parsed)
        if self.redacted == before:
            return text
        return json.dumps(cleaned, ensure_ascii=False, sort_keys=True)


def holds_secret(data: bytes, secrets: Iterable[tuple[str, str]]) -> str | None:
    """The name of the variable whose secret value ``data`` holds, or None."""
    for value, name in secrets:
        if value.encode() in data:
            return name
    return None
