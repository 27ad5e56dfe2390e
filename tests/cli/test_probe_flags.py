"""``diptych run PROBE --name VALUE``: a probe's parameters as options of their own."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.cli.main import main
from diptych.cli.run_words import probe_flags
from diptych.core.errors import UsageError


def test_flags_become_probe_parameters() -> None:
    assert probe_flags("p", ["--sets", "pairs", "--k=5", "--new-identities"]) == [
        "sets=pairs",
        "k=5",
        "new_identities=true",
    ]


@pytest.mark.parametrize(
    ("probe", "extra", "says"),
    [
        ("--bogus", [], "no such option --bogus"),
        ("p", ["stray"], "unexpected argument 'stray'"),
    ],
)
def test_leftovers_are_usage_errors(probe: str, extra: list[str], says: str) -> None:
    with pytest.raises(UsageError, match=says):
        probe_flags(probe, extra)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_a_flag_plans_the_same_run_as_dash_p(
    scripted: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "ws")
    base = ["--store", store, "run", "scripted", "-m", "scripted-likelihood", "--dry-run"]
    code, by_flag, err = run(capsys, *base, "--n", "7")
    assert code == 0, err
    assert "7 trials planned" in by_flag
    code, by_p, err = run(capsys, *base, "-p", "n=7")
    assert code == 0 and by_p == by_flag


def test_an_unknown_parameter_is_one_line(
    scripted: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "ws")
    code, _, err = run(
        capsys, "--store", store, "run", "scripted", "-m", "scripted-likelihood", "--bogus", "3"
    )
    assert code == 2 and "Traceback" not in err
    assert err.strip().count("\n") == 0 and "bogus" in err
    assert not (tmp_path / "ws").exists()  # nothing was created for a misspelt parameter


def test_a_run_without_a_model_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "run", "pst-text")
    assert code == 2 and "Missing option '--model'" in err


def test_a_near_miss_of_an_option_is_named_as_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "ws")
    code, out, err = run(capsys, "--store", store, "run", "pst-text", "-m", "smollm2", "--dry-rn")
    assert code == 2
    assert err.strip().splitlines() == [
        "error: no such option --dry-rn; did you mean --dry-run? (probe parameters are given "
        "as -p NAME=VALUE)"
    ]
    # A real parameter spelt as a flag is still the probe's; nothing was created.
    assert not (tmp_path / "ws").exists()


def test_a_check_across_parameters_speaks_of_the_identities_not_of_a_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "ws")
    code, out, err = run(
        capsys,
        "--store",
        store,
        "run",
        "pst-text",
        "-m",
        "smollm2",
        "-p",
        "masculine=notajob",
        "--dry-run",
    )
    assert code == 2
    assert err.startswith("error: probe 'pst-text': unknown masculine identities ['notajob']")
    assert "'parameters'" not in err and "Value error" not in err


def test_an_unknown_option_reads_as_every_other_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """click's own "No such option: --x Did you mean --y?" in the CLI's words: lower case, no
    colon, the near miss as a question after a semicolon."""
    code, _, err = run(capsys, "--store", str(tmp_path / "ws"), "report", "r1", "--outt", "x")
    assert code == 2
    assert err.strip().splitlines() == [
        "error: no such option --outt; did you mean one of --audit, --out?"
        " (see 'diptych report --help')"
    ]
    code, _, err = run(capsys, "--store", str(tmp_path / "ws"), "report")
    assert err.startswith("error: missing argument"), err


def test_a_flag_of_neither_kind_names_both_kinds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not a -p the user gave: the line says the flag is neither an option of the command nor
    a parameter of the probe, and lists both, on one line."""
    store = str(tmp_path / "ws")
    code, _, err = run(capsys, "--store", store, "run", "pst-text", "-m", "smollm2", "--bogus")
    assert code == 2
    [line] = err.strip().splitlines()
    assert line.startswith(
        "error: no such option --bogus: neither an option of 'diptych run' (--assume, "
    )
    assert "--max-cost, " in line and "--model, " in line
    assert line.endswith("nor a parameter of pst-text (--mode, --setting, --masculine, "
                         "--feminine, --samples-paired, --samples-single, --seed, "
                         "--paired-template, --single-template, --new-identities)")  # fmt: skip
    assert "has no parameter" not in line and "-p" not in line.split("(")[0]
    assert not (tmp_path / "ws").exists()
