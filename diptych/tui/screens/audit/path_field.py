"""The Audit screen's field for the audit file's path."""

from __future__ import annotations

from textual import events
from textual.containers import VerticalScroll
from textual.widgets import Input


class PathField(Input):
    """The audit file's path. End, besides ending the path, scrolls the gates and the parts to
    the last part: from the field an audit opens in, End reaches the parts on its first press.
    ``?`` opens Help, as everywhere, rather than stand in the path."""

    async def _on_key(self, event: events.Key) -> None:
        # A printable key is the field's before any binding: Help's ? is taken here first.
        if event.character == "?":
            event.stop()
            event.prevent_default()
            await self.app.run_action("app.help")
            return
        await super()._on_key(event)

    def action_end(self, select: bool = False) -> None:
        super().action_end(select)
        if not select:
            self.screen.query_one("#body", VerticalScroll).scroll_end(animate=False)
