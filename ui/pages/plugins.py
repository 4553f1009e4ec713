"""The Plugins page: every plugin and MCP server, what it offers, why one failed; enable,
disable, reload.

Plugins come from Hearth itself, installed packages, the user's plugins folder (reloaded as
its files change) and MCP servers. A failed one shows its traceback here and Hearth goes on.
Everything they return is untrusted and every call passes the consent gate, which the page says.
While the page is shown it follows its connectors: an MCP server that starts, stops answering
or comes back shows so at once, with the tools it brought.
"""

from __future__ import annotations

from PySide6.QtCore import QItemSelection, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QFontDatabase, QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from hearth import PluginInfo, plugins_dir, safe_mode, shown
from hearth.ui.context import UiContext
from hearth.ui.pages.chrome import (
    Banner,
    configure_table,
    explanation,
    fit_columns,
    page_layout,
    section_heading,
    set_tone,
)
from hearth.ui.pages.connector_watch import ConnectorWatch
from hearth.ui.pages.plugin_model import NAME, SOURCE_WORDS, PluginTableModel

BLURB = (
    "Tools from installed plugin packages, your own plugin files and MCP servers. Whatever they "
    "return is treated as untrusted, and every call they propose asks you first, like Hearth's "
    "own tools; an MCP server's claim that a tool only reads is shown, never trusted."
)
# An MCP server waiting to retry counts down in its status line ("retrying in 4 s"): read
# again each second while one does.
COUNTDOWN = "retrying in"
COUNTDOWN_MS = 1000
SAFE_MODE = (
    "Safe mode: Hearth started with --no-plugins, so no third-party code runs. Only what ships "
    "with Hearth is loaded."
)


class PluginsPage(QWidget):
    """A table of plugins; the selected one's tools, servers, error and traceback below it."""

    title = "Plugins"
    plugins_did_load = Signal(int)  # how many plugins are listed

    def __init__(self, context: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.model = PluginTableModel(self.palette(), self)
        self.table = QTableView()
        self.table.setModel(self.model)
        configure_table(self.table, stretch_column=NAME)
        self.heading = section_heading("")
        self.location = explanation("")
        self.tools = explanation("")
        self.servers = explanation("")
        self.error = QLabel()
        self.error.setWordWrap(True)
        set_tone(self.error, "bad")
        self.traceback = QPlainTextEdit()
        self.traceback.setReadOnly(True)
        self.traceback.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.toggle = QPushButton("Turn off")
        self.reload = QPushButton("Reload plugin files")
        self.open_folder = QPushButton("Open plugins folder")
        self._lay_out()
        self.table.selectionModel().selectionChanged.connect(self._selected)
        self.toggle.clicked.connect(self._toggle)
        self.reload.clicked.connect(self.reload_plugins)
        self.open_folder.clicked.connect(self._open_folder)
        context.plugins_did_change.connect(self.refresh)
        self.watch = ConnectorWatch(self)
        self.watch.connectors_did_change.connect(self.refresh)
        self.countdown = QTimer(self)
        self.countdown.setInterval(COUNTDOWN_MS)
        self.countdown.timeout.connect(self._read_servers)
        self._show_details(None)

    def _lay_out(self) -> None:
        layout = page_layout(self, self.title, BLURB)
        if safe_mode():
            layout.addWidget(Banner(SAFE_MODE, "warn"))
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_folder)
        buttons.addStretch(1)
        buttons.addWidget(self.reload)
        layout.addLayout(buttons)
        layout.addWidget(self.table, 2)
        details = QVBoxLayout()
        for widget in (self.heading, self.location, self.tools, self.servers, self.error):
            details.addWidget(widget)
        details.addWidget(self.traceback, 1)
        # Takes the traceback's room while there is none, so the lines above stay together.
        self.filler = QWidget()
        details.addWidget(self.filler, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.toggle)
        details.addLayout(row)
        layout.addLayout(details, 1)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()

    def hideEvent(self, event: QHideEvent) -> None:
        # Hidden, the page follows nothing: no work for what nobody sees.
        self.watch.stop()
        self.countdown.stop()
        super().hideEvent(event)

    def refresh(self) -> None:
        """Read the plugins again on the pool (their files may have changed)."""
        self.context.run(
            self.context.assistant.plugin_infos,
            receiver=self,
            success=self._show,
            doing="list the plugins",
        )

    def reload_plugins(self) -> None:
        self.reload.setEnabled(False)
        run = self.context.assistant.reload_plugins
        self.context.run(run, receiver=self, success=self._reloaded, doing="reload the plugins")

    def selected(self) -> PluginInfo | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.plugin_at(rows[0].row()) if rows else None

    def select(self, name: str) -> None:
        row = self.model.row_of(name)
        if row is not None:
            self.table.selectRow(row)

    def _reloaded(self, plugins: list[PluginInfo]) -> None:
        self.reload.setEnabled(True)
        self._show(plugins)

    def _show(self, plugins: list[PluginInfo]) -> None:
        if self.isVisible():
            self.watch.follow(self.context.assistant.connectors())
        chosen = self.selected()
        self.model.set_plugins(plugins)
        fit_columns(self.table, NAME)
        if chosen is not None:
            self.select(chosen.name)
        self._show_details(self.selected())
        self.plugins_did_load.emit(len(plugins))

    def _selected(self, _new: QItemSelection, _old: QItemSelection) -> None:
        self._show_details(self.selected())

    def _show_details(self, info: PluginInfo | None) -> None:
        for widget in (self.heading, self.location, self.tools, self.servers, self.toggle):
            widget.setVisible(info is not None)
        self.error.setVisible(bool(info and info.error))
        self.traceback.setVisible(bool(info and info.details))
        self.filler.setVisible(not self.traceback.isVisibleTo(self))
        if info is None:
            return
        self.heading.setText(f"{info.name} · {SOURCE_WORDS.get(info.source, info.source)}")
        self.location.setText(info.location)
        self.location.setVisible(bool(info.location))
        self.tools.setText(f"Tools: {', '.join(info.tools)}" if info.tools else "No tools.")
        self.error.setText(info.error)
        self.traceback.setPlainText(info.details)
        self.toggle.setText("Turn on" if info.state == "disabled" else "Turn off")
        self.servers.setVisible(False)
        self.countdown.stop()
        self._read_servers()

    def _read_servers(self) -> None:
        info = self.selected()
        if info is None or not info.connectors or info.state != "loaded":
            return
        self.context.run(
            lambda: _server_lines(self.context, info),
            receiver=self,
            success=self._show_servers,
            doing="read the servers' status",
        )

    def _show_servers(self, lines: list[str]) -> None:
        text = "\n".join(lines)
        self.servers.setText(text)
        self.servers.setVisible(bool(lines))
        if COUNTDOWN in text and self.isVisible():
            self.countdown.start()
        else:
            self.countdown.stop()

    def _toggle(self) -> None:
        info = self.selected()
        if info is None:
            return
        enable = info.state == "disabled"
        assistant = self.context.assistant

        def change() -> list[PluginInfo]:
            assistant.set_plugin_enabled(info.name, enable)
            return assistant.plugin_infos()

        verb = "turn on" if enable else "turn off"
        self.context.run(change, receiver=self, success=self._show, doing=f"{verb} {info.name}")

    def _open_folder(self) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(plugins_dir())))


def _server_lines(context: UiContext, info: PluginInfo) -> list[str]:
    """Each of the plugin's connectors (an MCP server each) and how it stands."""
    lines = []
    for connector in context.assistant.connectors():
        if connector.name in info.connectors:
            status = connector.status_line() or "no status"
            # An MCP server's title is its name from mcp.json, perhaps imported: outside text.
            lines.append(f"{shown(connector.title or connector.name)}: {status}")
    return lines
