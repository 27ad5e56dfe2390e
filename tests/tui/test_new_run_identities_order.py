"""New run's identity fields keep the names in the order the user gives them: typed, picked
from the list under the field, or both; a name of the list and a new one ("zzzx") alike."""

from __future__ import annotations

from pathlib import Path

from steps import open_new_run, settle, shown, wait_for
from textual.widgets import Input

from diptych.tui.app import DiptychApp
from diptych.tui.widgets.params_form import ParamsForm


async def test_typed_identities_keep_their_order(snapshot_workspace: Path) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await open_new_run(pilot, "pst-text")
        form = screen.query_one("#form-probe", ParamsForm)
        field = form.query_one("#form-probe-masculine", Input)
        picks = form.pick_list("masculine")
        assert picks is not None
        field.focus()
        await pilot.press(*"carpenter,zzzx")
        # What was typed, and the pick it makes in the list, once both have been handled.
        await wait_for(
            pilot,
            lambda: "zzzx" in field.value and picks.picked == ["carpenter"],
            "carpenter picked",
            lambda: f"{field.value!r} picked {picks.picked}",
            timeout=20,
        )
        await settle(pilot)
        assert field.value == "carpenter,zzzx", shown(app)
        assert "masculine=carpenter,zzzx" in form.values()
        # Picked from the list: last; unpicked: gone, the new name where it was.
        picks.options.select("driver")
        await wait_for(pilot, lambda: field.value == "carpenter,zzzx,driver", "driver added")
        picks.options.deselect("carpenter")
        await wait_for(pilot, lambda: field.value == "zzzx,driver", "carpenter gone")
        await settle(pilot)
        assert field.value == "zzzx,driver" and picks.picked == ["driver"], shown(app)
