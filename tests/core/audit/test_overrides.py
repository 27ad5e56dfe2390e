"""``audit run --set`` on a list-typed field: JSON, a comma list in brackets and a bare comma
list give the same list; any other value is one line that says the forms a list takes."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.audit.overrides import apply_overrides, parse_sets
from diptych.core.audit.schema import AuditFile, parse_audit
from diptych.core.errors import UsageError

EXAMPLE = Path(__file__).parents[3] / "examples" / "audits" / "smollm2-offline.yaml"


@pytest.fixture
def audit() -> AuditFile:
    return parse_audit(EXAMPLE.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "given",
    [
        'report.formats=["html","md"]',
        "report.formats=[html,md]",
        "report.formats=[ html, md ]",
        "report.formats=html,md",
    ],
)
def test_each_form_of_a_list_gives_the_list(audit: AuditFile, given: str) -> None:
    changed = apply_overrides(audit, parse_sets([given]))
    assert list(changed.report.formats) == ["html", "md"]


def test_one_item_and_a_plugins_list_param(audit: AuditFile) -> None:
    assert list(apply_overrides(audit, parse_sets(["report.formats=md"])).report.formats) == ["md"]
    # A plugin's parameters are open in the schema: a list already there is a list.
    changed = apply_overrides(audit, parse_sets(["probes.0.params.masculine=[carpenter,farmer]"]))
    assert changed.probes[0].params["masculine"] == ["carpenter", "farmer"]


@pytest.mark.parametrize(
    "given",
    [
        "report.formats=[html,md",
        "report.formats=html,,md",
        "report.formats=5",
        'report.formats={"a": 1}',
        "report.formats=[html,xls]",
    ],
)
def test_a_wrong_list_is_one_line_naming_the_forms(audit: AuditFile, given: str) -> None:
    with pytest.raises(UsageError) as raised:
        apply_overrides(audit, parse_sets([given]))
    said = str(raised.value)
    assert "\n" not in said and said.startswith("--set report.formats"), said
    assert 'html,md or [html,md] or as JSON \'["html","md"]\'' in said, said


def test_a_text_field_keeps_its_commas(audit: AuditFile) -> None:
    changed = apply_overrides(audit, parse_sets(["report.out=a,b"]))
    assert changed.report.out == "a,b"
