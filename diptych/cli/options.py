"""The options ``diptych run``, ``diptych resume`` and ``diptych audit`` share: how a run is paced
and retried, where its trials run, its cost ceiling, its report and its progress, each checked as
it is read (a number of seconds, an amount of US dollars, an executor's name).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any

import typer

from diptych.cli.paths import output_path
from diptych.cli.usage import counts
from diptych.core.audit.sequential import DEFAULT_BATCHES, MAX_BATCHES
from diptych.core.errors import UsageError
from diptych.core.workspace import EXECUTORS


@counts("a number of seconds", 30)
def positive_seconds(value: float | None) -> float | None:
    """A number of seconds above 0, or none given."""
    if value is not None and not 0 < value < math.inf:
        raise typer.BadParameter(f"{value:g} is not a number of seconds more than 0, e.g. 30")
    return value


@counts("a number of seconds", 300)
def seconds(value: float) -> float:
    """A number of seconds, 0 or more."""
    if not 0 <= value < math.inf:
        raise typer.BadParameter(f"{value:g} is not a number of seconds, e.g. 300")
    return value


@counts("an amount of US dollars", 5)
def dollars(value: float | None) -> float | None:
    """An amount of US dollars, 0 or more, or none given."""
    if value is not None and not 0 <= value < math.inf:
        raise typer.BadParameter(f"{value:g} is not an amount of US dollars, e.g. 5")
    return value


@counts("a figure's value", 25)
def figure_value(value: float | None) -> float | None:
    """A value a figure can take (a finite number), or none given."""
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"{value:g} is not a figure's value, e.g. 25")
    return value


@counts(None, DEFAULT_BATCHES)
def batch_count(value: int | None) -> int | None:
    """A number of batches to buy a design in: 2 to :data:`MAX_BATCHES`, or none given."""
    if value is not None and value > MAX_BATCHES:
        raise typer.BadParameter(
            f"{value:,} is more batches than a design is bought in (at most {MAX_BATCHES}); "
            f"give fewer, e.g. {DEFAULT_BATCHES}"
        )
    return value


def ray_address_given(executor: str, ray_address: str | None) -> None:
    """``--ray-address`` names the cluster of ``--executor ray`` and means nothing without it."""
    if ray_address is not None and executor != "ray":
        raise UsageError("--ray-address needs --executor ray: give both, or neither")


def executor_name(value: str) -> str:
    """One of the executors trials can run on."""
    if value not in EXECUTORS:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(EXECUTORS)}")
    return value


ConcurrencyOption = Annotated[
    int, typer.Option("--concurrency", min=1, help="Most trials in flight at once.")
]
MaxAttemptsOption = Annotated[
    int, typer.Option("--max-attempts", min=1, help="Attempts per trial on transient faults.")
]
RetryMaybePaidOption = Annotated[
    bool,
    typer.Option(
        "--retry-maybe-paid",
        help="Send again, within the run, a paid request that timed out or was cut off after "
        "it was sent (the service may bill it twice); by default it is stored as failed, "
        "'may have been paid', and only a resume asks again.",
    ),
]
MaxRetryWaitOption = Annotated[
    float,
    typer.Option(
        "--max-retry-wait",
        callback=seconds,
        metavar="SECONDS",
        help="Obey a service's Retry-After up to this; a longer one fails the trial with the "
        "reason and leaves the model's other trials for a resume.",
    ),
]
PaidRetriesOption = Annotated[
    int,
    typer.Option(
        "--paid-retries",
        min=0,
        metavar="N",
        help="Answers paid for but unusable (an unreadable image, no data) to buy again, in "
        "this run or stored by an earlier one; --dry-run and --max-cost count them. Default "
        "0: each is stored as failed with its reason and cost.",
    ),
]
TimeoutOption = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        callback=positive_seconds,
        metavar="SECONDS",
        help="Seconds per call before retrying.",
    ),
]
ReportOption = Annotated[
    Path | None,
    typer.Option(
        "--report",
        metavar="DIR",
        parser=output_path("--report", "the directory to write the report in"),
        help="Write the report into this directory.",
    ),
]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")]
WaitOption = Annotated[
    bool,
    typer.Option(
        "--wait", help="If another process is running this run, wait for it, then continue."
    ),
]
WatchOption = Annotated[
    bool,
    typer.Option(
        "--watch", help="If another process is running this run, show its progress until it ends."
    ),
]
ExecutorOption = Annotated[
    str,
    typer.Option(
        "--executor",
        help="Where local-model trials run: local (this process) or ray (Ray actors).",
        callback=executor_name,
    ),
]
RayAddressOption = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        metavar="ADDR",
        help="Ray cluster to join with --executor ray (default: $RAY_ADDRESS, else a local one).",
    ),
]


def max_cost_option(help: str) -> Any:
    """``--max-cost USD``, an amount of US dollars, with what it caps said in ``help``."""
    return typer.Option("--max-cost", callback=dollars, metavar="USD", help=help)


MaxCostOption = Annotated[
    float | None, max_cost_option("Stop before the estimated spend exceeds this.")
]


#: ``--set``, the same for ``audit check`` as for ``audit run``: a check plans what runs.
SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        metavar="FIELD=VALUE",
        # "\[": the help is Rich markup, in which "[html,md]" is a style tag and vanishes.
        help="Replace a field for this run, e.g. models.dalle3.params.base_url=http://… "
        "(a JSON value or a string; a list as html,md or \\[html,md]).",
    ),
]
