"""The audit file (``audit.yaml``): what an audit runs, validated before anything is asked.

An audit keeps a whole battery as one file an auditor can rerun on the next model release and
hand to a colleague, as promptfoo's config, Inspect's eval sets and HELM's run specs do. Every
model names its plugin, parameters and the *name* of the environment variable holding its key,
never a key: the file is meant to be shared.
"""

from __future__ import annotations

import hashlib
import re
import stat
from pathlib import Path
from typing import Any, Literal, get_args

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from diptych.core.audit.gates import rule_text
from diptych.core.errors import InputFileError
from diptych.core.labels import LabelPolicy
from diptych.core.yaml_input import compose_yaml, parse_yaml

#: The audit file format this version of diptych reads.
AUDIT_FORMAT: Literal[1] = 1

#: Parameter names that would hold a secret; the file names the variable that holds it instead.
_SECRET = re.compile(r"(^|_)(api_?key|secret|token|password)$", re.IGNORECASE)
_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelEntry(_Strict):
    """One model under test (or the agent's or a drafting model)."""

    plugin: str = Field(description="registered model name, e.g. openai-images, smollm2")
    params: dict[str, Any] = Field(default_factory=dict, description="the plugin's parameters")
    key_env: str | None = Field(
        default=None,
        description="name of the environment variable holding the API key (never the key)",
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
    )

    @field_validator("params")
    @classmethod
    def _no_secrets(cls, params: dict[str, Any]) -> dict[str, Any]:
        for key in params:
            if _SECRET.search(key) and key not in ("api_key_env", "api_key_file"):
                raise ValueError(
                    f"'{key}' would put a secret in the file; name its variable in key_env"
                )
        return params

    def plugin_params(self) -> dict[str, Any]:
        """The parameters the plugin is built with (``key_env`` as ``api_key_env``)."""
        if self.key_env is None:
            return dict(self.params)
        return {**self.params, "api_key_env": self.key_env}


class AnnotatorEntry(_Strict):
    """An annotator that labels the people of every image the audit's probes make."""

    name: str = Field(description="registered annotator name, e.g. faces, vqa")
    params: dict[str, Any] = Field(default_factory=dict)
    model: str | None = Field(
        default=None, description="vision-language model a VLM annotator asks"
    )


class Labels(_Strict):
    annotators: list[AnnotatorEntry | str] = Field(
        default_factory=list, description="annotators run on the image probes' runs"
    )
    policy: LabelPolicy = Field(
        default="mixed", description="whose labels score people in the report"
    )

    def entries(self) -> list[AnnotatorEntry]:
        return [
            a if isinstance(a, AnnotatorEntry) else AnnotatorEntry(name=a) for a in self.annotators
        ]


class ProbePart(_Strict):
    """One probe run on one or more of the audit's models."""

    probe: str = Field(description="registered probe name, e.g. pst, pst-text, pairs")
    name: str | None = Field(
        default=None, pattern=_NAME, description="the part's name (default: probe)"
    )
    models: list[str] = Field(min_length=1, description="names of entries under models")
    params: dict[str, Any] = Field(default_factory=dict)

    @property
    def part_name(self) -> str:
        return self.name or self.probe


class Mitigation(_Strict):
    """A probe part run again with other parameters (e.g. ``intervention: pst-table5``) and
    compared with it: the report sets B − A with its interval beside each figure."""

    name: str = Field(pattern=_NAME)
    baseline: str = Field(description="the probe part it changes")
    params: dict[str, Any] = Field(description="parameters changed from the baseline's")


#: The most rounds an agent search runs: far past the shipped lexicon's pairs (a session stops
#: once it has none left to propose), and a bound on the steps its checkpointed graph takes.
MAX_ROUNDS = 1000


class Search(_Strict):
    """An agent search: new stereotyped identity pairs, or prompt interventions."""

    name: str = Field(pattern=_NAME)
    kind: Literal["identities", "mitigations"]
    agent_model: str = Field(description="the agent's Chat model: a name under models")
    target: str | None = Field(
        default=None, description="identities: the model searched (under models)"
    )
    probe: str = Field(default="pst-text", description="identities: the probe that scores a pair")
    annotator: str | None = Field(
        default=None, description="identities on pst: who labels the images"
    )
    baseline: str | None = Field(
        default=None, description="mitigations: the pst-text part searched"
    )
    rounds: int = Field(default=1, ge=1, le=MAX_ROUNDS)
    per_round: int = Field(default=3, ge=1)
    patience: int = Field(
        default=2,
        ge=0,
        description="stop after this many rounds in a row without a new finding (for "
        "mitigations: without an intervention that lowers the STS; 0: never stop early)",
    )
    # Editors are offered the former key too (max_trials), read as the same.
    model_config = ConfigDict(json_schema_extra=lambda schema: _former_key(schema))

    max_requests: int | None = Field(
        default=None,
        ge=1,
        description="most requests the search may buy (its placebo words' included; trials "
        "already stored, or asking the same thing, share one); budget.max_requests bounds it too",
    )

    _former_name = model_validator(mode="before")(lambda data: _former(data))

    @model_validator(mode="after")
    def _needs(self) -> Search:
        if self.kind == "identities" and self.target is None:
            raise ValueError("an identities search needs target (a model under models)")
        if self.kind == "mitigations" and self.baseline is None:
            raise ValueError("a mitigations search needs baseline (a pst-text probe part)")
        return self


def _former_key(schema: dict[str, Any]) -> None:
    properties = schema["properties"]
    properties["max_trials"] = {
        "anyOf": [{"minimum": 1, "type": "integer"}, {"type": "null"}],
        "deprecated": True,
        "description": "the former name of max_requests (give one of the two)",
    }


class Budget(_Strict):
    # Editors offered the former key too, so that a file written before the rename still
    # validates there as it does here.
    model_config = ConfigDict(json_schema_extra=lambda schema: _former_key(schema))

    max_cost: float | None = Field(
        default=None, ge=0, description="USD across every part of the audit"
    )
    max_requests: int | None = Field(
        default=None,
        ge=1,
        description="most requests the audit may still have to buy (trials that ask the same "
        "thing share one): checked before its probe parts run, and what they leave bounds "
        "each search",
    )

    _former_name = model_validator(mode="before")(lambda data: _former(data))


def _former(data: Any) -> Any:
    # A budget counts what is bought, requests; files written when the key was named for
    # trials keep their meaning.
    if isinstance(data, dict) and "max_trials" in data:
        if "max_requests" in data:
            raise ValueError("max_trials is the former name of max_requests; give one")
        data = {**data}
        data["max_requests"] = data.pop("max_trials")
    return data


ReportFormat = Literal["html", "md", "json", "pdf"]


def _default_formats() -> list[ReportFormat]:
    return ["html", "md", "json"]


class ReportSpec(_Strict):
    formats: list[ReportFormat] = Field(default_factory=_default_formats, min_length=1)
    draft_with: str | None = Field(
        default=None, description="a Chat model under models drafts the text"
    )
    out: str | None = Field(default=None, description="report directory (default: audit-<name>)")
    frameworks: list[str] = Field(
        default_factory=list,
        description="an organisation's framework files (relative to the audit file), mapped "
        "in the report's appendix after the shipped ones",
    )


class NoRegression(_Strict):
    against: str = Field(
        default="previous",
        description="a recorded audit id, 'previous' (the record of this audit before the "
        "one gated) or a report JSON path",
    )
    margin: float = Field(default=0.0, description="the largest increase B − A allowed")


GateRuleName = Literal["below", "not_above", "above", "not_below", "within", "no_regression"]
#: The rules a gate may state, in the order its error message lists them.
_GATE_RULES: tuple[GateRuleName, ...] = get_args(GateRuleName)


class Gate(_Strict):
    """One release gate: a figure of a part and one rule (see docs/gates.md)."""

    part: str = Field(description="the audit part (as audit diff names it)")
    figure: str = Field(description="the figure's name in the part's results")
    name: str | None = Field(default=None, description="what the gate is called in the output")
    below: float | None = Field(default=None, description="passes when shown to be below")
    not_above: float | None = Field(default=None, description="fails when shown to exceed")
    above: float | None = Field(default=None, description="passes when shown to be above")
    not_below: float | None = Field(default=None, description="fails when shown to fall short")
    within: tuple[float, float] | None = Field(
        default=None,
        description="[low, high]: passes when shown to lie inside, fails when shown outside",
    )
    no_regression: NoRegression | None = None
    on_inconclusive: Literal["fail", "pass", "warn"] = Field(
        default="fail", description="the exit code when the interval straddles the limit"
    )

    @field_validator("within", mode="before")
    @classmethod
    def _two_limits(cls, value: Any) -> Any:
        if value is not None and (not isinstance(value, list | tuple) or len(value) != 2):
            raise ValueError(f"within takes two numbers, [low, high], got {value!r}")
        return value

    @model_validator(mode="after")
    def _one_rule(self) -> Gate:
        rules = [r for r in _GATE_RULES if getattr(self, r) is not None]
        if len(rules) != 1:
            raise ValueError(
                "a gate takes exactly one of below, not_above, above, not_below, within, "
                "no_regression"
            )
        if self.within is not None and not self.within[0] < self.within[1]:
            low, high = self.within
            raise ValueError(f"within takes [low, high] with low < high, got [{low:g}, {high:g}]")
        return self

    @property
    def rule(self) -> GateRuleName:
        return next(r for r in _GATE_RULES if getattr(self, r) is not None)

    @property
    def limit(self) -> float:
        """The rule's limit (``within``: its lower one; :attr:`limit_high` is the upper)."""
        if self.within is not None:
            return self.within[0]
        if self.no_regression is not None:
            return self.no_regression.margin
        value: float = getattr(self, self.rule)
        return value

    @property
    def limit_high(self) -> float | None:
        return self.within[1] if self.within is not None else None

    @property
    def limit_text(self) -> str:
        if self.within is not None:
            return f"[{self.within[0]:g}, {self.within[1]:g}]"
        return f"{self.limit:g}"

    @property
    def rule_text(self) -> str:
        """The rule as written: ``below 25`` (:func:`diptych.core.audit.gates.rule_text`)."""
        return rule_text(self.rule, self.limit, self.limit_high)

    @property
    def label(self) -> str:
        return self.name or f"{self.part}: {self.figure} {self.rule_text}"


class Gates(_Strict):
    """The audit's gates, decided together as one family."""

    family: Literal["holm", "none"] = Field(
        default="holm",
        description="holm: the chance of any false verdict across the gates stays at the level",
    )
    confidence: float = Field(default=0.95, gt=0.5, lt=1)
    checks: list[Gate] = Field(default_factory=list)


class AuditFile(_Strict):
    """An audit as a file: models, probes, labels, mitigations, agent searches, budget, report."""

    audit: Literal[1] = Field(default=AUDIT_FORMAT, description="the audit file format")
    name: str = Field(pattern=_NAME, description="the audit's name, kept across releases")
    description: str = ""
    seed: int | None = Field(
        default=None,
        ge=0,
        description="seed of every probe and search that takes one, unless its params set it",
    )
    models: dict[str, ModelEntry] = Field(min_length=1)
    probes: list[ProbePart] = Field(min_length=1)
    labels: Labels = Labels()
    mitigations: list[Mitigation] = Field(default_factory=list)
    searches: list[Search] = Field(default_factory=list)
    budget: Budget = Budget()
    report: ReportSpec = ReportSpec()
    gates: Gates | None = Field(
        default=None, description="release gates: figures and the rules they must meet"
    )

    @field_validator("gates", mode="before")
    @classmethod
    def _gates_list(cls, value: Any) -> Any:
        # A bare list of gates is the common case: the family's defaults around it.
        return {"checks": value} if isinstance(value, list) else value

    @property
    def part_names(self) -> list[str]:
        """Its parts' names in the order it runs them: probes, mitigations, searches."""
        names = [p.part_name for p in self.probes] + [m.name for m in self.mitigations]
        return names + [s.name for s in self.searches]

    @model_validator(mode="after")
    def _references(self) -> AuditFile:
        names = self.part_names
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"part names must differ; {', '.join(dupes)} repeats (set name)")
        parts = {p.part_name: p for p in self.probes}
        for i, part in enumerate(self.probes):
            for model in part.models:
                if model not in self.models:
                    raise _Where(("probes", i, "models"), f"no model '{model}' under models")
        for i, m in enumerate(self.mitigations):
            if m.baseline not in parts:
                raise _Where(("mitigations", i, "baseline"), f"no probe part '{m.baseline}'")
        for i, s in enumerate(self.searches):
            for field in ("agent_model", "target"):
                value = getattr(s, field)
                if value is not None and value not in self.models:
                    raise _Where(("searches", i, field), f"no model '{value}' under models")
            if s.baseline is not None and s.baseline not in parts:
                raise _Where(("searches", i, "baseline"), f"no probe part '{s.baseline}'")
        known = {p.part_name for p in self.probes} | {m.name for m in self.mitigations}
        for i, gate in enumerate(self.gates.checks if self.gates else []):
            if gate.part not in known:
                raise _Where(("gates", "checks", i, "part"), f"no probe or mitigation part "
                             f"'{gate.part}' (parts: {', '.join(sorted(known))})")  # fmt: skip
        if self.report.draft_with is not None and self.report.draft_with not in self.models:
            raise _Where(("report", "draft_with"), f"no model '{self.report.draft_with}'")
        return self


class _Where(ValueError):
    """A reference error that knows the field it is about (pydantic reports the root)."""

    def __init__(self, loc: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.loc = loc


def audit_json_schema() -> dict[str, Any]:
    """The JSON Schema of the audit file, for editors (``diptych audit schema``)."""
    schema = AuditFile.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://diptych.dev/schemas/audit-v1.json"
    return schema


def file_hash(text: str | bytes) -> str:
    """The sha256 of the audit file's bytes: what the recorded audit and its report name."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def parse_audit(text: str, source: str = "audit.yaml") -> AuditFile:
    """The audit in ``text``; a malformed file raises :class:`InputFileError` whose lines each
    name the field and, where the YAML shows it, the line."""
    try:
        # The strict loader refuses a key written twice and nesting past its depth limit.
        data = parse_yaml(text)
        root = compose_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputFileError(f"{where}: not YAML: {problem}") from exc
    if not isinstance(data, dict):
        raise InputFileError(f"{source}: an audit file is a mapping (name:, models:, probes: ...)")
    try:
        return AuditFile.model_validate(data)
    except ValidationError as exc:
        lines = []
        for error in exc.errors():
            loc: tuple[str | int, ...] = tuple(error["loc"])
            message = error["msg"].removeprefix("Value error, ")
            cause = (error.get("ctx") or {}).get("error")
            if isinstance(cause, _Where):
                loc, message = cause.loc, str(cause)
            lines.append(_one_line(source, root, loc, message))
        raise InputFileError("\n".join(lines)) from None


#: The largest audit file read: a page of YAML, with room for long lists of identities.
MAX_AUDIT_BYTES = 4 * 1024**2


def load_audit(path: str | Path) -> tuple[AuditFile, str]:
    """The audit of the file at ``path`` and the sha256 of its bytes. A pipe or device is
    refused before it is opened (opening a pipe waits for a writer that may never come), and a
    file past :data:`MAX_AUDIT_BYTES` before it is read."""
    where = Path(path)
    try:
        info = where.stat()
        if not stat.S_ISREG(info.st_mode):
            raise InputFileError(
                f"audit file {where}: not a regular file (a directory, device, pipe or socket); "
                "give the audit's YAML file"
            )
        if info.st_size > MAX_AUDIT_BYTES:
            raise InputFileError(
                f"audit file {where}: {info.st_size:,} bytes, more than the "
                f"{MAX_AUDIT_BYTES:,} an audit file may hold; give the audit's YAML file"
            )
        raw = where.read_bytes()
    except OSError as exc:
        raise InputFileError(f"cannot read the audit file {where}: {exc.strerror}") from exc
    return parse_audit(raw.decode("utf-8"), str(where)), file_hash(raw)


def _one_line(source: str, root: yaml.Node | None, loc: tuple[str | int, ...], msg: str) -> str:
    shown = ".".join(str(p) for p in loc if not _is_union_tag(p)) or "(file)"
    line = _line_of(root, loc)
    return f"{source}:{line}: {shown}: {msg}" if line else f"{source}: {shown}: {msg}"


def _is_union_tag(part: str | int) -> bool:
    # pydantic names the branch of a union it tried (``AnnotatorEntry``, ``str``) in a location.
    return isinstance(part, str) and (part[:1].isupper() or part in ("str", "int"))


def _line_of(node: yaml.Node | None, loc: tuple[str | int, ...]) -> int | None:
    """The line of the deepest node of ``loc`` the YAML holds (1-based)."""
    line = node.start_mark.line + 1 if node is not None else None
    for part in loc:
        if node is None or _is_union_tag(part):
            continue
        child: yaml.Node | None = None
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == str(part):
                    line, child = key.start_mark.line + 1, value
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if part < len(node.value):
                child = node.value[part]
                line = child.start_mark.line + 1
        if child is None:
            break
        node = child
    return line
