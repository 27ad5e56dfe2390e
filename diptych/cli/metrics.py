"""``diptych metrics ...``: score data gathered elsewhere (DESIGN.md, "Metric contracts").

Each command reads a file, prints JSON (``--json``) or a table, and leaves errors to the main CLI,
which turns a DiptychError into one line and a non-zero exit. The metric modules (and numpy with
them) are imported inside the commands so that ``diptych --help`` stays fast.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Protocol, TypeVar

import typer

from diptych.cli.metric_tables import print_association, print_pmi, print_retrieval, print_sts
from diptych.cli.paths import check_input_file


class _Result(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


T = TypeVar("T")
R = TypeVar("R", bound=_Result)

app = typer.Typer(
    help="Score labels, responses, corpora or rankings gathered elsewhere, as the papers do.",
    no_args_is_help=True,
)


@app.callback()
def _metrics() -> None:
    """Score labels, responses, corpora or rankings gathered elsewhere, as the papers do."""
    # A callback keeps `metrics` a command group even while `sts` is its only command; typer would
    # otherwise run `sts` for `diptych metrics` itself.


SeedOption = Annotated[
    int, typer.Option("--seed", min=0, help="Seed of the bootstrap, for reproducible intervals.")
]
NBootOption = Annotated[int, typer.Option("--n-boot", min=1, help="Number of bootstrap resamples.")]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print the result as JSON instead of a table.")
]


@app.command("sts")
def sts_command(
    labels: Annotated[
        Path,
        typer.Option(
            "--labels",
            metavar="FILE.csv",
            help="CSV with columns image, setting, position, identity, stereotype, label "
            "(optional: annotator, run); one row per label.",
        ),
    ],
    as_json: JsonOption = False,
    seed: SeedOption = 0,
    n_boot: NBootOption = 2000,
) -> None:
    """Stereotype Test Score (Paired Stereotype Test): overall, by stereotype and per identity."""
    from diptych.core.metrics.sts import read_label_table, stereotype_test_score

    rows = _read(labels, "--labels", read_label_table)
    with _stage(f"scoring {len(rows):,} labels ({n_boot:,} bootstrap resamples)"):
        result = stereotype_test_score(rows, n_boot=n_boot, seed=seed)
    _emit(result, as_json, print_sts)


def _read(path: Path, option: str, read: Callable[[Path], T]) -> T:
    """The rows of the input file given as ``option``, after checking it can be read."""
    check_input_file(path, option)
    with _stage(f"reading {path}"):
        return read(path)


#: The keys whose values are the user's own text, never a number spelled "inf" or "nan".
_TEXT_KEYS = frozenset({"word", "query", "clamped", "stratum"})


def _emit(result: R, as_json: bool, print_table: Callable[[R], None]) -> None:
    """The result as JSON (``--json``) or as its tables."""
    if as_json:
        from diptych.core.strict_json import strict_json

        # Strict JSON, as report.json: an unbounded figure (a bound of no interval, a word no
        # other group uses) is null; a corpus's words and queries are text, kept as written.
        typer.echo(strict_json(result.to_dict(), text_keys=_TEXT_KEYS))
    else:
        print_table(result)


def _stage(text: str) -> AbstractContextManager[object]:
    """What a long command is doing, on stderr and only on a terminal (never in a pipe)."""
    import sys

    if not sys.stderr.isatty():
        return nullcontext()
    from diptych.cli.console import SafeConsole as Console

    return Console(stderr=True).status(text)


class Compared(StrEnum):
    gender = "gender"
    race = "race"


class PairingUnit(StrEnum):
    image = "image"
    answer = "answer"


@app.command("association")
def association_command(
    responses: Annotated[
        Path,
        typer.Option(
            "--responses",
            metavar="FILE.csv",
            help="CSV with columns scenario, gender, race, run, value (+1, 0, -1) and optional "
            "question and outcome (answer, refusal, neither); one row per answer.",
        ),
    ],
    compare: Annotated[
        Compared,
        typer.Option(
            "--compare",
            help="The attribute whose two levels are compared (PAIRS: gender for occupations, "
            "race for status and crime).",
        ),
    ],
    unit: Annotated[
        PairingUnit,
        typer.Option(
            "--unit",
            help="What one observation of the paired t-test is: an image (the mean of its "
            "answers; pairs: same scenario and other attribute) or, for comparison, every "
            "answer (pairs: same scenario, question, other attribute and run).",
        ),
    ] = PairingUnit.image,
    as_json: JsonOption = False,
    seed: SeedOption = 0,
    n_boot: NBootOption = 2000,
) -> None:
    """PAIRS association score: mean answer per level, their difference, paired t-test, refusals."""
    from diptych.core.errors import InputFileError
    from diptych.core.metrics.pairs.association import association_score, read_responses_csv

    rows = _read(responses, "--responses", read_responses_csv)
    try:
        with _stage(f"scoring {len(rows):,} responses ({n_boot:,} bootstrap resamples)"):
            result = association_score(
                rows, compare.value, unit=unit.value, n_boot=n_boot, seed=seed
            )
    except ValueError as error:
        # What the file as a whole gets wrong (one level only, ...): one line, like a bad row.
        raise InputFileError(f"{responses}: {error}") from None
    _emit(result, as_json, print_association)


class DesiredMode(StrEnum):
    pool = "pool"
    uniform = "uniform"


@app.command("retrieval")
def retrieval_command(
    ranking: Annotated[
        Path,
        typer.Option(
            "--ranking",
            metavar="FILE.csv",
            help="CSV with columns query, rank (1-based), group and optional gender "
            "(male, female, neutral), item, score, occupation (or unit: the wordings of one "
            "occupation are resampled together); one row per retrieved item.",
        ),
    ],
    k: Annotated[int, typer.Option("--k", min=1, help="Score the top K of each query.")],
    desired: Annotated[
        DesiredMode,
        typer.Option(
            "--desired",
            help="pool: the groups' shares in each query's whole list (give the whole ranking, "
            "not only its top K); uniform: equal shares over the groups present.",
        ),
    ] = DesiredMode.pool,
    as_json: JsonOption = False,
    seed: SeedOption = 0,
    n_boot: NBootOption = 2000,
    n_perm: Annotated[
        int,
        typer.Option("--n-perm", min=1, help="Label permutations of the permutation p-values."),
    ] = 1000,
) -> None:
    """Retrieval skew: MaxSkew@K, MinSkew@K, NDKL@K and Bias@K per query and on average, each
    beside its null: the attribute permuted within each counterfactual set (a set column), or
    a random ranking of the same lists."""
    from diptych.core.errors import InputFileError
    from diptych.core.metrics.retrieval.csv_reader import read_ranking_csv
    from diptych.core.metrics.retrieval.metrics import retrieval_metrics

    check_input_file(ranking, "--ranking")
    rankings = read_ranking_csv(ranking)
    try:
        result = retrieval_metrics(
            rankings, k, desired.value, n_boot=n_boot, seed=seed, n_perm=n_perm
        )
    except ValueError as error:
        raise InputFileError(f"{ranking}: {error}") from None
    _emit(result, as_json, print_retrieval)


# --- pmi --------------------------------------------------------------------------------------


@app.command("pmi")
def pmi_command(
    corpus: Annotated[
        Path,
        typer.Option(
            "--corpus",
            metavar="FILE.jsonl",
            help="One JSON object per line with 'group' and 'text' (and any stratum keys).",
        ),
    ],
    threshold: Annotated[
        float, typer.Option("--threshold", help="Keep words whose association score exceeds it.")
    ] = 0.6,
    min_count: Annotated[
        int,
        typer.Option("--min-count", min=1, help="Keep words the group uses at least this often."),
    ] = 3,
    raw: Annotated[
        bool,
        typer.Option(
            "--raw", help="Lower case and split on runs of letters only (no spaCy, no stop list)."
        ),
    ] = False,
    by: Annotated[
        str | None,
        typer.Option(
            "--by",
            metavar="COLUMNS",
            help="Compare the groups within each value of these keys (comma-separated), "
            "e.g. --by scenario or --by scenario,model.",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Words that set each group's texts apart from the others' (PAIRS, Appendix D: PMI)."""
    from diptych.core.metrics.pairs.lexical import pmi_corpus, read_corpus_jsonl

    columns = [c.strip() for c in (by or "").split(",") if c.strip()]
    rows = _read(corpus, "--corpus", lambda path: read_corpus_jsonl(path, columns))
    with _stage(f"scoring the words of {len(rows):,} texts"):
        result = pmi_corpus(
            rows,
            threshold=threshold,
            min_count=min_count,
            processing="raw" if raw else "default",
            by=columns,
            source=str(corpus),
        )
    _emit(result, as_json, lambda r: print_pmi(r, raw=raw))
