"""End to end in a real terminal: ``diptych tui`` in tmux, from the Runs screen to a label.

tmux gives the app a real pseudo-terminal (so textual-image asks it what it can draw, as it
would for a user), takes keys with ``send-keys`` and shows the screen with ``capture-pane``.
Each test gets a tmux server of its own (``-S``), killed at teardown.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from diptych.core.annotation import annotate_run
from diptych.core.engine import run_probe
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.testing import ScriptedAnnotator, ScriptedParams
from diptych.tui.formatting import interval, number

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

SUBSET = {"aspects": ["occupation"], "masculine": ["carpenter"], "feminine": ["nurse"]}
DIPTYCH = Path(sys.executable).with_name("diptych")


class Tmux:
    """One detached tmux session on a server of its own."""

    def __init__(self, socket: Path, session: str) -> None:
        self.socket = socket
        self.session = session

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-S", str(self.socket), *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    def start(self, command: str, env: dict[str, str]) -> None:
        exports = " ".join(f"{k}={v}" for k, v in env.items())
        # COLUMNS and LINES, where the test process has them (in its C environment, which a
        # child inherits, even when os.environ does not show them), would pin the app's size
        # (shutil.get_terminal_size reads them first): the pane's own size is the one to use.
        self.tmux(
            "new-session", "-d", "-s", self.session, "-x", "100", "-y", "30",
            f"env -u COLUMNS -u LINES {exports} {command}",
        )  # fmt: skip

    def resize(self, width: int, height: int) -> None:
        self.tmux("resize-window", "-t", self.session, "-x", str(width), "-y", str(height))

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.session, *keys)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.session)

    def running(self) -> bool:
        has = ["tmux", "-S", str(self.socket), "has-session", "-t", self.session]
        return subprocess.run(has, capture_output=True).returncode == 0

    def wait_for(self, ready: Callable[[str], bool], timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen()
            if ready(shown):
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"the screen never got there; it shows:\n{shown}")
            time.sleep(0.1)


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    # The server's socket in a short directory of its own (a socket path has a length limit),
    # removed with it, so no test leaves a server or a socket behind.
    home = Path(tempfile.mkdtemp(prefix="diptych-tmux-"))
    session = Tmux(home / "socket", "review")
    try:
        yield session
    finally:
        socket = str(session.socket)
        subprocess.run(["tmux", "-S", socket, "kill-session", "-t", "review"], capture_output=True)
        subprocess.run(["tmux", "-S", socket, "kill-server"], capture_output=True)
        shutil.rmtree(home, ignore_errors=True)


def test_label_a_flagged_person_from_the_runs_screen(
    scripted: None, tmp_path: Path, tmux: Tmux
) -> None:
    ws = tmp_path / "ws"
    with open_store(ws) as store:
        run = run_probe(store, "pst", ["scripted-images"], probe_params=SUBSET)
        annotate_run(store, run.id, ScriptedAnnotator(ScriptedParams.model_validate({})))
        assert len(store.flags(run.id)) == 10

    tmux.start(f"{DIPTYCH} tui --store {ws}", {"TERM": "xterm-256color"})
    tmux.wait_for(lambda s: run.id.removeprefix("pst-") in s and "Review" in s)
    tmux.send("r")  # the Runs screen's key for the selected (only) run
    tmux.wait_for(lambda s: "Who is reviewing?" in s)
    tmux.send("tess", "Enter")
    # The card comes first; the image once a worker has decoded it (in half blocks: ▀).
    first = tmux.wait_for(lambda s: "identity: carpenter" in s and "▀" in s)
    assert "LEFT person" in first and f"Review {run.id} · 1/10" in first
    assert "your label: —" in first

    tmux.send("m")
    after = tmux.wait_for(lambda s: "1 labelled" in s and "STS paired 100.0" in s)
    assert "RIGHT person" in after and "identity: nurse" in after and "reviewer tess" in after

    tmux.send("Escape")
    tmux.wait_for(lambda s: "r Review" in s and "LEFT person" not in s)  # the Runs screen
    tmux.send("q")
    deadline = time.monotonic() + 15
    while tmux.running():  # the app ends, and with it the session
        assert time.monotonic() < deadline, tmux.screen()
        time.sleep(0.1)
    with open_store(ws) as store:
        labels = store.labels(run.id, "human:tess")
    assert [(lab.trial_idx, lab.position, lab.label) for lab in labels] == [
        (0, "left", "masculine")
    ]


@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=["80x24", "60x20"])
def test_small_terminals_keep_the_counts_the_intervals_help_and_quit(
    scripted: None, tmp_path: Path, tmux: Tmux, size: tuple[int, int]
) -> None:
    ws = tmp_path / "ws"
    params = {"masculine": ["carpenter", "mechanician"], "feminine": ["nurse", "editor"]}
    with open_store(ws) as store:
        run = run_probe(store, "pst-text", ["scripted-likelihood"], probe_params=params)
    with Workspace.open(ws) as workspace:
        numbers = workspace.analysis.analyze(run.id).numbers

    tmux.start(f"{DIPTYCH} tui --store {ws}", {"TERM": "xterm-256color"})
    tmux.wait_for(lambda s: run.id.removeprefix("pst-text-") in s)
    # Made smaller once running, as a user shrinks a window: every screen is laid out again.
    tmux.resize(*size)
    # Drawn: the run's row, the table's header and the footer's right end.
    runs = tmux.wait_for(
        lambda s: run.id.removeprefix("pst-text-") in s and " run " in s and "Help" in s
    )
    lines = runs.splitlines()
    header = next(line for line in lines if line.split()[:1] == ["run"])
    assert {"ref", "fail", "flag"} <= set(header.split())
    assert "? Help" in lines[-1] and "q Quit" in lines[-1]

    tmux.send("Enter")
    detail = tmux.wait_for(lambda s: "95% interval" in s and "Help" in s)
    assert "? Help" in detail.splitlines()[-1] and "q Quit" in detail.splitlines()[-1]
    shown = [
        (number(n["value"]), interval(n.get("ci_low"), n.get("ci_high"))) for n in numbers.values()
    ]
    # Every figure in view has its interval whole on its line: never "[4.8".
    in_view = [(v, i) for v, i in shown if any(i in line for line in detail.splitlines())]
    assert len(in_view) >= 3, detail
    for line in detail.splitlines():
        assert line.count("[") == line.count("]"), line
    tmux.send("q")
