"""The Models page's Voice input section: the Whisper models, their downloads, voice settings."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from hearth import (
    DownloadProgress,
    InstalledSpeechModel,
    SpeechEntry,
    Voice,
    VoiceError,
    VoiceSettings,
)
from hearth.ui.context import UiContext
from hearth.ui.pages.chrome import Tone, explanation, section_heading, set_tone
from hearth.ui.pages.download_job import DownloadJob
from hearth.ui.pages.download_panel import DownloadPanel
from hearth.ui.pages.units import file_size, percent
from hearth.ui.wheel_guard import leave_wheel_to_page

BLURB = (
    "Speak instead of typing: Whisper turns what you say into text on this computer. Download"
    " the model once; your voice never leaves the machine."
)
SYSTEM_DEFAULT = "System default"
LANGUAGES = (("English only (faster, best for English)", "english"), ("Any language", "any"))
SIZES = (("Tiny", "tiny"), ("Base", "base"))


def where(model: InstalledSpeechModel) -> str:
    """Where an installed model comes from, in words."""
    package = f"From the {(model.entry.package or '').replace('_', '-')} package"
    return {"user": "Installed", "bundled": "Comes with Hearth"}.get(model.source, package)


@dataclass(frozen=True)
class _Row:
    """One model's line: where it is, or a Download button."""

    status: QLabel
    button: QPushButton

    def say(self, text: str, tone: Tone | None = None) -> None:
        self.status.setText(text)
        set_tone(self.status, tone)


class SpeechSection(QWidget):
    """Lists the speech models with Download/Cancel, and the voice settings; saves each change."""

    settings_did_change = Signal(object)  # the new VoiceSettings, once saved
    models_did_load = Signal()
    devices_did_load = Signal()
    download_did_end = Signal(str)  # "done", "cancelled" or "failed"

    def __init__(self, context: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.catalog = context.voice.catalog()
        self.settings: VoiceSettings | None = None  # None until the controls show them
        self.installed: dict[str, InstalledSpeechModel] = {}
        self.job: DownloadJob | None = None
        self.rows: dict[str, _Row] = {}
        self.devices: list[str] = []
        self.language = _combo("Speech language", LANGUAGES)
        self.model_size = _combo("Speech model size", SIZES)
        self.send_at_once = QCheckBox("Send what I say at once, without review")
        self.microphone = _combo("Microphone", ((SYSTEM_DEFAULT, None),))
        self.microphone_note = explanation("")
        self.microphone_note.hide()
        self.using = explanation("")
        self.panel = DownloadPanel()
        self.panel.cancel_requested.connect(self.cancel_download)
        self._lay_out()
        self.microphone.setEnabled(False)  # until the devices are listed, on the pool
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.cancel_download)
        self._show_settings(context.voice.settings)
        self.refresh()
        self.list_microphones()

    def _lay_out(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(section_heading("Voice input"))
        layout.addWidget(explanation(BLURB))
        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        grid.setColumnStretch(2, 1)
        for index, entry in enumerate(self.catalog):
            grid.addWidget(QLabel(entry.label), index, 0)
            size = explanation(file_size(entry.bytes))
            size.setWordWrap(False)
            grid.addWidget(size, index, 1)
            row = _Row(QLabel(), QPushButton())
            row.status.setWordWrap(True)
            grid.addWidget(row.status, index, 2)
            grid.addWidget(row.button, index, 3)
            row.button.hide()
            row.button.clicked.connect(lambda _=False, chosen=entry: self.download(chosen))
            self.rows[entry.id] = row
        layout.addLayout(grid)
        layout.addWidget(self.panel)
        layout.addSpacing(6)
        settings = QGridLayout()
        settings.setHorizontalSpacing(10)
        # One setting a line: side by side they held the page at 740 px, past the window's
        # 640 px minimum.
        places = (
            ("&Language:", self.language),
            ("&Size:", self.model_size),
            ("&Microphone:", self.microphone),
        )
        for line, (text, control) in enumerate(places):
            label = QLabel(text)
            label.setBuddy(control)
            settings.addWidget(label, line, 0)
            settings.addWidget(control, line, 1)
        settings.addWidget(self.microphone_note, 3, 1, 1, 2)
        settings.addWidget(self.send_at_once, 4, 1, 1, 2)
        settings.setColumnStretch(2, 1)
        layout.addLayout(settings)
        layout.addWidget(self.using)

    def refresh(self) -> None:
        """Find the installed speech models again, on the pool."""
        found = self.context.voice.installed_models
        self.context.run(found, receiver=self, success=self._show_models, doing="list models")

    def _show_models(self, installed: list[InstalledSpeechModel]) -> None:
        # The first of each entry's folders is the one voice input uses.
        self.installed = {m.entry.id: m for m in reversed(installed)}
        for entry in self.catalog:
            self._show_row(entry)
        self._explain_choice()
        self.models_did_load.emit()

    def _show_row(self, entry: SpeechEntry, paused: str = "") -> None:
        row = self.rows[entry.id]
        model = self.installed.get(entry.id)
        if model is not None:
            row.say(where(model), "good")
            row.button.hide()
            return
        row.say(paused or "Not downloaded", "warn" if paused else None)
        verb = "Resume download" if paused else "Download"
        row.button.setText(f"{verb} · {file_size(entry.bytes)}")
        row.button.setEnabled(self.job is None)
        row.button.show()

    def download(self, entry: SpeechEntry) -> None:
        """Start downloading `entry` on the pool; one download at a time."""
        if self.job is not None or self.installed.get(entry.id) is not None:
            return
        voice = self.context.voice
        self.job = job = DownloadJob(
            lambda progress, cancel: voice.download(entry, progress=progress, cancel=cancel), self
        )
        job.progressed.connect(lambda progress: self._progressed(entry, progress))
        job.finished.connect(lambda _path: self._stopped(entry, "done"))
        job.cancelled.connect(lambda _kept: self._stopped(entry, "cancelled"))
        job.failed.connect(lambda error: self._stopped(entry, "failed", error))
        for other in self.rows.values():
            other.button.setEnabled(False)
        self.rows[entry.id].say("Downloading…")
        self.panel.begin(entry.label)
        job.start(self.context.pool)

    def cancel_download(self) -> None:
        """Stop the running download; what arrived is kept for resuming."""
        if self.job is not None and not self.job.is_cancelled:
            self.job.cancel()
            self.panel.cancelling()

    def _progressed(self, entry: SpeechEntry, progress: DownloadProgress) -> None:
        self.panel.show_progress(progress)
        self.rows[entry.id].say(f"Downloading {percent(progress.fraction)}")

    def _stopped(self, entry: SpeechEntry, how: str, error: Exception | None = None) -> None:
        if error is not None:
            self.context.errors.show(self, f"download {entry.label}", error)
        if self.job is not None:
            self.job.deleteLater()
        self.job = None
        self.panel.hide()
        paused = "Paused; the part downloaded is kept." if how == "cancelled" else ""
        for other in self.catalog:
            self._show_row(other, paused if other == entry else "")
        if how != "cancelled":
            self.refresh()
        if how == "done":
            self.context.voice_did_change.emit()
        self.download_did_end.emit(how)

    def _show_settings(self, settings: VoiceSettings) -> None:
        self.settings = settings
        self.language.setCurrentIndex(self.language.findData(settings.language))
        self.model_size.setCurrentIndex(self.model_size.findData(settings.size))
        self.send_at_once.setChecked(settings.send_at_once)
        self._fill_microphones()
        for combo in (self.language, self.model_size, self.microphone):
            combo.currentIndexChanged.connect(self._changed)
        self.send_at_once.toggled.connect(self._changed)
        for control in (self.language, self.model_size, self.send_at_once):
            control.setEnabled(True)
        self._explain_choice()

    def _changed(self, *_: object) -> None:
        if self.settings is None:
            return
        self.settings = settings = VoiceSettings(
            language=self.language.currentData(),
            size=self.model_size.currentData(),
            send_at_once=self.send_at_once.isChecked(),
            microphone=self.microphone.currentData(),
        )
        self._explain_choice()
        self.context.run(
            lambda: self.context.voice.save_settings(settings),
            receiver=self,
            success=lambda _: self._saved(settings),
            doing="save the voice settings",
        )

    def _saved(self, settings: VoiceSettings) -> None:
        self.settings_did_change.emit(settings)
        self.context.voice_did_change.emit()  # every mic button checks again

    def _explain_choice(self) -> None:
        if self.settings is None:
            return
        wanted = self.context.voice.entry_for(self.settings)
        model = self.installed.get(wanted.id)
        if model is not None:
            text = f"Voice input will use {wanted.label} ({where(model).lower()})."
        else:
            text = f"Voice input needs {wanted.label}, which is not installed. Download it above."
        self.using.setText(text)
        set_tone(self.using, None if model else "warn")

    def list_microphones(self) -> None:
        """Read the input devices again, on the pool."""
        voice = self.context.voice
        self.context.run(lambda: _microphones(voice), receiver=self, success=self._show_microphones)

    def _show_microphones(self, found: tuple[list[str], str | None]) -> None:
        self.devices, problem = found
        self.microphone.setToolTip(problem or "")
        self.microphone_note.setText(problem or "")
        self.microphone_note.setVisible(problem is not None)
        self._fill_microphones()
        self.devices_did_load.emit()

    def _fill_microphones(self) -> None:
        """The devices found, and the saved one even while it is unplugged; saves nothing."""
        saved = self.settings.microphone if self.settings else None
        blocked = self.microphone.blockSignals(True)
        self.microphone.clear()
        self.microphone.addItem(SYSTEM_DEFAULT, None)
        for name in self.devices:
            self.microphone.addItem(name, name)
        if saved is not None and saved not in self.devices:
            self.microphone.addItem(f"{saved} (not connected)", saved)
        self.microphone.setCurrentIndex(max(0, self.microphone.findData(saved)))
        self.microphone.blockSignals(blocked)
        self.microphone.setEnabled(self.settings is not None and not self.microphone.toolTip())


def _microphones(voice: Voice) -> tuple[list[str], str | None]:
    """Input device names, or the reason there are none to choose from."""
    try:
        names = voice.microphones()
    except VoiceError as problem:
        return [], str(problem)
    return names, None if names else "No microphone was found; plug one in to choose it."


def _combo(name: str, items: tuple[tuple[str, str | None], ...]) -> QComboBox:
    # The Models page scrolls as a whole: the wheel passing over a drop-down scrolls it on.
    combo = leave_wheel_to_page(QComboBox())
    combo.setAccessibleName(name)
    for text, value in items:
        combo.addItem(text, value)
    return combo
