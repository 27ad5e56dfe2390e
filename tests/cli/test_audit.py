"""``diptych audit``: init, check (both example audits), schema, and the full DALL-E 3 + GPT-4o
example run end to end against the fake OpenAI service (made small with --set), then diffed."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from diptych.testing import FakeOpenAIServer
from tests.support.cli import call
from tests.support.page_text import page_text
from tests.support.searched_audits import IDENTITY_SEARCH, searched_audit
from tests.support.surfaces.report_json import raw_word_problems

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "audits"


@pytest.mark.parametrize("name", ["smollm2-offline.yaml", "dalle3-gpt4o.yaml"])
def test_check_validates_the_examples_and_prints_the_plan(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = call(
        capsys, "--store", str(tmp_path / "ws"), "audit", "check", str(EXAMPLES / name), "--json"
    )
    assert code == 0, out
    plan = json.loads(out)
    assert plan["planned"] > 0 and plan["cached"] == 0
    if name.startswith("dalle3"):
        assert [p["name"] for p in plan["parts"]] == ["pst", "pairs", "stories", "pst-table5"]
        assert plan["parts"][0]["annotators"] == ["faces"]
        # DALL-E 3 standard 1024×1024 at $0.04 an image, for both pst parts, and GPT-4o's
        # questions (pairs, stories), priced from their tokens.
        asked = [p["cost"] for p in plan["parts"][1:3]]
        assert all(cost > 0 for cost in asked)
        images = 0.04 * plan["parts"][0]["to_run"] * 2
        assert plan["cost"] == pytest.approx(images + sum(asked))
    else:
        assert [p["kind"] for p in plan["parts"]] == ["probe", "search"]


def test_init_writes_a_file_check_accepts_and_bad_files_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    target = tmp_path / "audit.yaml"
    code, out = call(capsys, "--store", ws, "audit", "init", str(target))
    assert code == 0 and target.exists(), out
    code, out = call(capsys, "--store", ws, "audit", "check", str(target))
    assert code == 0 and "to run" in out, out
    bad = tmp_path / "bad.yaml"
    bad.write_text(target.read_text().replace("  policy: mixed", "  policy: majority"))
    code, out = call(capsys, "--store", ws, "audit", "check", str(bad))
    assert code == 2
    assert f"{bad}:" in out and "labels.policy" in out
    code, out = call(capsys, "audit", "schema")
    assert code == 0 and json.loads(out)["title"] == "AuditFile"


RULE = {"carpenter": "masculine", "nurse": "masculine"}
SMALL = {
    "probes.0.params.masculine": '["carpenter"]',
    "probes.0.params.feminine": '["nurse"]',
    "probes.0.params.samples_paired": "1",
    "probes.0.params.samples_single": "1",
    "probes.1.params.scenarios": '["scrubs"]',
    "probes.2.params.scenarios": '["jumpsuit"]',
    "probes.2.params.prompts": "[1]",
    "probes.2.params.processing": '"raw"',
}


def test_the_full_example_runs_end_to_end_on_the_fake_service(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-audit")
    ws = str(tmp_path / "ws")
    with FakeOpenAIServer(image_size=(16, 16)) as fake:
        sets = {
            **SMALL,
            "models.dalle3.params.base_url": fake.base_url,
            "models.gpt4o.params.base_url": fake.base_url,
        }
        args = [a for k, v in sets.items() for a in ("--set", f"{k}={v}")]
        out_dir = tmp_path / "report"
        code, out = call(
            capsys,
            "--store",
            ws,
            "audit",
            "run",
            str(EXAMPLES / "dalle3-gpt4o.yaml"),
            *args,
            "--out",
            str(out_dir),
            "--quiet",
        )
        assert code == 0, out
        asked = len(fake.requests)
        # A reviewer labels the people of both pst parts (the fake's images hold no face for
        # the faces annotator to find); the rerun's report then scores them.
        with Workspace.open(ws) as opened:
            (recorded,) = opened.audits.list()
            for part in ("pst", "pst-table5"):
                found = recorded.part(part)
                assert found is not None and found.run_id is not None
                for subject in opened.runs.subjects(found.run_id):
                    if subject.get("status") == "done":
                        label = RULE[subject["meta"]["identity"]]
                        opened.labels.save(
                            found.run_id,
                            subject["trial_idx"],
                            subject["position"],
                            label,
                            reviewer="ana",
                        )
        # The same file again: every part skipped, nothing asked.
        code, again = call(
            capsys,
            "--store",
            ws,
            "audit",
            "run",
            str(EXAMPLES / "dalle3-gpt4o.yaml"),
            *args,
            "--out",
            str(out_dir),
        )
        assert code == 0 and again.count(", reused") == 4, again
        assert len(fake.requests) == asked
    report = json.loads((out_dir / "report.json").read_text())
    assert [p["name"] for p in report["scope"]["parts"]] == [
        "pst",
        "pairs",
        "stories",
        "pst-table5",
    ]
    assert {r["probe"] for r in report["runs"]} == {"pst", "pairs", "stories"}
    code, listed = call(capsys, "--store", ws, "audit", "list", "--json")
    (audit,) = json.loads(listed)
    assert audit["status"] == "complete" and audit["file_hash"] == report["scope"]["file_hash"]
    # Numbers a reader computes with are numbers or null: no "inf" word (bound_df null).
    assert raw_word_problems(report) == raw_word_problems(json.loads(listed)) == []
    assert '"bound_df": null' in (out_dir / "report.json").read_text()
    # The audit against itself: every shared figure differs by 0; the pst STS by bootstrap.
    code, out = call(capsys, "--store", ws, "audit", "diff", audit["id"], audit["id"], "--json")
    assert code == 0, out
    diff = json.loads(out)
    assert diff["figures"] and all(f["difference"] in (0, None) for f in diff["figures"])
    assert "bootstrap" in {f["method"] for f in diff["figures"] if f["part"] == "pst"}


@pytest.mark.slow
def test_the_offline_example_runs_its_agent_search_end_to_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`examples/audits/smollm2-offline.yaml` from the CLI, made small with --set: SmolLM2
    answers the probe, proposes as the agent and answers the search's runs; the search runs in
    the audit (not only in its plan) and the rerun skips every part."""
    ws = str(tmp_path / "ws")
    sets = {
        # Two identities a side: the gate's figure needs an interval (one pair has none); on
        # so few identities it is inconclusive, let through as a warning here.
        "probes.0.params.masculine": '["carpenter", "farmer"]',
        "probes.0.params.feminine": '["nurse", "editor"]',
        "gates.checks.0.on_inconclusive": '"warn"',
        "searches.0.per_round": "1",
        "searches.0.max_requests": "200",
    }
    args = [a for k, v in sets.items() for a in ("--set", f"{k}={v}")]
    out_dir = tmp_path / "report"
    example = str(EXAMPLES / "smollm2-offline.yaml")
    command = ("--store", ws, "audit", "run", example, *args, "--out", str(out_dir), "--quiet")
    code, out = call(capsys, *command)
    assert code == 0, out
    assert "asyncio.run() cannot be called" not in out
    # Every file the report wrote is named.
    assert "report written:" in out
    for name in ("report.md", "report.html", "report.json"):
        assert str(out_dir / name) in out, out
    # The run ends with its gate, decided on the interval over the 2 × 2 identities.
    assert "gates of audit" in out, out
    assert "INCONCLUSIVE (warn)" in out or "PASS " in out, out
    with Workspace.open(ws) as opened:
        (recorded,) = opened.audits.list()
        assert recorded.status == "complete"
        search = recorded.part("identities")
        assert search is not None and search.status == "complete", search
        detail = search.detail
        assert detail["session"] == f"audit-{recorded.id}-identities"
        assert detail["stop_reason"]
        # SmolLM2 answered the round: every proposal has an outcome, kept or rejected.
        assert detail["ranked"] + detail["rejected"] >= 1
        (saved,) = opened.findings.list()
        assert saved["session"] == detail["session"] and saved["kind"] == "identities"
    report = json.loads((out_dir / "report.json").read_text())
    assert report["scope"]["searches"]["identities"]["session"] == detail["session"]
    # The search's findings are where the auditor reads: the JSON, the Markdown, the page,
    # and the run's own output.
    [listed] = report["agent_findings"]["sessions"]
    assert listed["session"] == detail["session"]
    for name in ("report.md", "report.html"):
        assert f"search <code>{detail['session']}</code>" in (out_dir / name).read_text() or (
            f"search `{detail['session']}`" in (out_dir / name).read_text()
        )
    assert f"agent search identities (session {detail['session']})" in out
    code, again = call(capsys, *command)
    assert code == 0 and again.count(", reused") == 2, again


SEARCHES = searched_audit(
    "scripted-searches",
    "  target: {plugin: scripted-likelihood}\n"
    "  agent: {plugin: scripted-chat, params: {price_per_call: 0.01}}\n",
    searches=IDENTITY_SEARCH.replace("rounds: 1", "rounds: 2")
    + "  - {name: mitigations, kind: mitigations, baseline: pst-text, agent_model: agent,"
    " rounds: 1,\n     per_round: 1}\n",
    more="budget:\n  max_cost: 5.0\n",
)


def test_an_audit_runs_its_identity_and_mitigation_searches(
    scripted: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both kinds of search run inside `audit run`'s event loop (each in a thread on a
    Workspace of its own), charge the agent's calls to the audit's budget, and are skipped when
    the audit runs again."""
    from diptych.agent import session
    from diptych.agent.memory import HashingEmbedder

    monkeypatch.setattr(session, "SentenceEmbedder", HashingEmbedder)
    audit = tmp_path / "audit.yaml"
    audit.write_text(SEARCHES)
    ws = str(tmp_path / "ws")
    command = ("--store", ws, "audit", "run", str(audit), "--out", str(tmp_path / "r"), "--quiet")
    code, out = call(capsys, *command)
    assert code == 0, out
    with Workspace.open(ws) as opened:
        (recorded,) = opened.audits.list()
        identities, mitigations = recorded.part("identities"), recorded.part("mitigations")
        assert identities is not None and mitigations is not None
        assert identities.status == mitigations.status == "complete"
        assert identities.detail["stop_reason"] == "2 rounds done"
        assert identities.detail["ranked"] + identities.detail["rejected"] >= 2
        assert mitigations.detail["tried"] >= 3  # the three shipped seeds, and the agent's
        # Two identity rounds and one mitigation round: three agent calls at $0.01, and the
        # scripted target is free.
        assert identities.cost == pytest.approx(0.02)
        assert mitigations.cost == pytest.approx(0.01)
        kinds = sorted(saved["kind"] for saved in opened.findings.list())
        assert kinds == ["identities", "mitigation"]
    code, again = call(capsys, *command)
    assert code == 0 and again.count(", reused") == 3, again


PLANTED = searched_audit(
    "planted-search",
    "  target:\n"
    "    plugin: scripted-likelihood\n"
    "    params: {p_feminine: {astronaut: 0.02, florist: 0.98}}\n"
    "  agent: {plugin: scripted-chat}\n",
    formats="[html, md, json]",
)


def test_an_audits_agent_findings_are_in_its_report_and_printed(
    scripted: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The search scores runs of its own, none of them the audit's parts: its session is
    still in report.md, report.html and report.json (``agent_findings``) with the numbers it
    saved, and `audit run` prints its findings."""
    from diptych.agent import chat_model, session
    from diptych.agent.memory import HashingEmbedder
    from diptych.core.report.findings import AgentSession, is_finding
    from diptych.core.report.formatting import figure_text as fmt

    monkeypatch.setattr(session, "SentenceEmbedder", HashingEmbedder)
    made = chat_model.agent_model

    def proposing(spec: str, params: object) -> object:
        agent = made(spec, params)  # type: ignore[arg-type]
        agent.enqueue(  # type: ignore[attr-defined]
            json.dumps(
                {
                    "proposals": [
                        {"masculine": "astronaut", "feminine": "florist",
                         "kind": "occupation", "rationale": "r"}
                    ]
                }
            )
        )  # fmt: skip
        return agent

    monkeypatch.setattr(chat_model, "agent_model", proposing)
    audit = tmp_path / "audit.yaml"
    audit.write_text(PLANTED)
    ws, out_dir = str(tmp_path / "ws"), tmp_path / "r"
    code, out = call(capsys, "--store", ws, "audit", "run", str(audit), "--out", str(out_dir),
                     "--quiet")  # fmt: skip
    assert code == 0, out
    with Workspace.open(ws) as opened:
        (recorded,) = opened.audits.list()
        name = f"audit-{recorded.id}-identities"
        saved = opened.findings.get(name)
        audit_runs = {p.run_id for p in recorded.parts if p.run_id}
    assert saved is not None and saved["findings"]
    assert not audit_runs & set(saved["runs"])  # the report finds it by its session alone
    md = (out_dir / "report.md").read_text(encoding="utf-8")
    html = (out_dir / "report.html").read_text(encoding="utf-8")
    data = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    [listed] = data["agent_findings"]["sessions"]
    assert listed["session"] == name
    assert [f["what"] for f in listed["findings"]] == [f["what"] for f in saved["findings"]]
    pair = saved["findings"][0]
    assert pair["what"] == "astronaut | florist"
    search = pair["search"]
    # Both files show the pair's figures as the session saved them (the page read as its
    # text: an interval sits in a span that keeps it on one line).
    for text in (md, page_text(html)):
        assert name in text and "astronaut | florist" in text
        assert f"{fmt(search['value'])} [{fmt(search['ci_low'])}, {fmt(search['ci_high'])}]" in text
    shown = AgentSession.from_dict(saved)
    q = shown.findings[0].q_text
    assert q in md and escape(q) in html
    assert f"agent search identities (session {name}): {shown.decision}" in out
    for f in shown.findings:
        line = f"  {f.what}  {f.status}  held-out {f.heldout_text}"
        assert (line in out) == is_finding(f.status), out


def test_a_dry_run_plans_what_set_makes_and_refuses_what_the_run_would(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    file = str(EXAMPLES / "smollm2-offline.yaml")
    code, whole = call(capsys, "--store", ws, "audit", "run", file, "--dry-run")
    assert code == 0, whole
    small = ["--set", "probes.0.params.masculine=[\"carpenter\"]",
             "--set", "probes.0.params.feminine=[\"nurse\"]"]  # fmt: skip
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--dry-run", *small)
    assert code == 0, out
    planned = [line for line in out.splitlines() if line.startswith("total:")]
    assert planned and planned[0] not in whole, out
    for bad in ("probes.0.params.bogus=1", "probes.0.params.samples_paired=abc"):
        code, out = call(capsys, "--store", ws, "audit", "run", file, "--dry-run", "--set", bad)
        assert code == 2, out
        assert out.count("\n") <= 2 and ("bogus" in out or "samples_paired" in out), out
