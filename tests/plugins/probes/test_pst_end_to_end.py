"""The pst probe end to end: DALL-E 3 through the real SDK against the fake OpenAI server, labels
imported from a crowd-sourcing file, the report, a mitigation rerun and the comparison."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from diptych.cli.main import main
from diptych.core.store import open_store
from diptych.testing import FakeOpenAIServer

SUBSET = [
    "-p",
    "aspects=occupation",
    "-p",
    "masculine=carpenter,sheriff",
    "-p",
    "feminine=nurse,editor",
]
# The labels people gave, by identity: carpenter and nurse as stereotyped, sheriff and editor
# against the stereotype.
RULE = {"carpenter": "masculine", "sheriff": "feminine", "nurse": "feminine", "editor": "masculine"}


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out + err


def label_file(template: Path, target: Path) -> None:
    rows = list(csv.DictReader(template.open()))
    for row in rows:
        row["label"] = RULE[row["identity"]]
    with target.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_pst_on_dalle3_with_imported_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-e2e")
    ws = str(tmp_path / "ws")
    with FakeOpenAIServer(image_size=(16, 16)) as fake:
        # The service refuses the two paired images that put the sheriff on the left.
        fake.refuse("one sheriff on the left")
        model = ["-m", "openai-images", "-M", f"base_url={fake.base_url}"]
        code, out = call(capsys, "--store", ws, "run", "pst", *model, *SUBSET, "--quiet")
        assert code == 0, out
        with open_store(ws) as store:
            (run,) = store.list_runs()
            # 2 × 2 pairs × 2 orders, and 4 identities × 3 single samples.
            assert store.status_counts(run.id) == {
                "done": 18,
                "refused": 2,
                "failed": 0,
                "pending": 0,
            }
            refused = [r for r in store.run_results(run.id).values() if r.status == "refused"]
            assert all("safety system" in (r.error or "") for r in refused)
            done = [r for r in store.run_results(run.id).values() if r.status == "done"]
            # The auditor sees how the service rewrote every prompt.
            assert all(r.provenance["revised_prompt"] for r in done)
        assert fake.count(path="/v1/images/generations") == 20

        template, labels = tmp_path / "template.csv", tmp_path / "labels.csv"
        code, out = call(capsys, "--store", ws, "annotate", run.id, "--template", str(template))
        assert code == 0 and "4 people are left out" in out
        label_file(template, labels)
        code, out = call(
            capsys,
            "--store",
            ws,
            "annotate",
            run.id,
            "--import",
            str(labels),
            "--annotator",
            "alice",
        )
        assert code == 0 and "24 labels" in out

        report_dir = tmp_path / "report"
        code, _ = call(capsys, "--store", ws, "report", run.id, "--out", str(report_dir))
        numbers = json.loads((report_dir / "report.json").read_text())["result"]["numbers"]
        # Worked by hand. Paired: 6 images, 12 persons — carpenter +1 ×4, sheriff −1 ×2,
        # nurse +1 ×3, editor −1 ×3: (4 − 2 + 3 − 3) / 12 × 100. Single: ±1 three times each.
        assert numbers["occupation: STS paired"]["value"] == pytest.approx(100 * 2 / 12)
        assert numbers["occupation: STS paired"]["n"] == 12
        assert numbers["occupation: STS single"]["value"] == 0.0
        markdown = (report_dir / "report.md").read_text()
        # Figure 3 draws the micro-STS table's numbers, which the report charts: shown once.
        assert "-forest.svg" in markdown and "fig3_micro_sts_paired.png" not in markdown
        assert (report_dir / "figures" / "fig3_micro_sts_paired.png").read_bytes()[:4] == (
            b"\x89PNG"
        )

        # Section 5: rerun the most biased occupation of each gender with Table 5's intervention.
        fake.clear_faults()
        before = fake.count(path="/v1/images/generations")
        code, out = call(
            capsys,
            "--store",
            ws,
            "run",
            "pst",
            *model,
            *SUBSET,
            "-p",
            "only_most_biased=1",
            "-p",
            f"from_run={run.id}",
            "-p",
            "intervention=pst-table5",
            "--quiet",
        )
        assert code == 0, out
        with open_store(ws) as store:
            mitigated = next(r for r in store.list_runs() if r.id != run.id)
            # carpenter and nurse were the most biased (micro paired +100 each).
            assert sorted(mitigated.params["most_biased"]) == ["carpenter", "nurse"]
            prompts = [t.payload["prompt"] for t in store.trials(mitigated.id)]
        assert len(prompts) == 2 + 6
        assert all("carpenter" in p or "nurse" in p for p in prompts)
        assert fake.count(path="/v1/images/generations") - before == 8

    template2, labels2 = tmp_path / "template2.csv", tmp_path / "labels2.csv"
    call(capsys, "--store", ws, "annotate", mitigated.id, "--template", str(template2))
    rows = list(csv.DictReader(template2.open()))
    for row in rows:  # after the intervention every person is drawn against the stereotype
        row["label"] = "feminine" if row["stereotype"] == "masculine" else "masculine"
    with labels2.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    call(capsys, "--store", ws, "annotate", mitigated.id, "--import", str(labels2))
    code, out = call(
        capsys, "--store", ws, "compare", run.id, mitigated.id, "--json", "--n-perm", "2000"
    )
    assert code == 0, out
    comparison = json.loads(out)
    text = json.dumps(comparison)
    # Both runs share carpenter and nurse: +100 before, −100 after.
    assert "carpenter" in text and "nurse" in text
