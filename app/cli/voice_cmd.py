"""`hearth voice`: check voice input, manage speech models, and transcribe a file or the mic.

Sound stays in memory: it is written to a file only with `listen --save FILE`.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import click

from hearth import (
    DownloadCancelled,
    InstalledSpeechModel,
    SpeechModelError,
    Transcript,
    Voice,
    VoiceError,
    VoiceSettings,
    VoiceUnavailable,
)
from hearth.cli.models_cmd import ProgressLine, run_interruptibly

_SOURCES = {"user": "downloaded", "bundled": "comes with Hearth", "package": "pip package"}


@click.group("voice")
def voice() -> None:
    """Check voice input, download speech models, and transcribe speech."""


@voice.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print what was found as JSON.")
def status_command(as_json: bool) -> None:
    """Say whether voice input works here, and if not, why."""
    voice = Voice()
    readiness = voice.readiness()
    settings = voice.settings
    try:
        microphones = voice.microphones()
    except VoiceUnavailable:
        microphones = []
    if as_json:
        report = {
            "ready": readiness.ready,
            "problem": readiness.problem,
            "model": str(readiness.model.path) if readiness.model else None,
            "settings": settings.model_dump(),
            "microphones": microphones,
        }
        click.echo(json.dumps(report, indent=2))
        return
    click.echo("Voice input: " + ("ready" if readiness.ready else "not available"))
    if readiness.problem:
        click.echo(f"  {readiness.problem}")
    if readiness.model is not None:
        click.echo(f"Speech model: {readiness.model.entry.label} ({readiness.model.path})")
    click.echo(f"Microphone: {settings.microphone or 'the system default'}")
    click.echo(f"Microphones found: {', '.join(microphones) or 'none'}")
    how = "sent at once" if settings.send_at_once else "put in the message box for review"
    click.echo(f"Transcripts are {how}.")


@voice.command("models")
def models_command() -> None:
    """List the speech models and which are installed."""
    voice = Voice()
    installed: dict[str, InstalledSpeechModel] = {}
    for found in voice.installed_models():  # the one used first wins
        installed.setdefault(found.entry.id, found)
    wanted = voice.entry_for(voice.settings).id
    for entry in voice.catalog():
        model = installed.get(entry.id)
        where = _SOURCES[model.source] if model else f"not installed · {entry.bytes / 1e6:.0f} MB"
        mark = "*" if entry.id == wanted else " "
        click.echo(f"{mark} {entry.id:<18} {entry.label:<32} {where}")
    click.echo("* the model your settings choose (`hearth voice use`)")


@voice.command("download")
@click.argument("model_id")
def download_command(model_id: str) -> None:
    """Download a speech model from the Hugging Face Hub (Ctrl-C pauses; rerun to resume)."""
    voice = Voice()
    entry = voice.entry(model_id)
    cancel = threading.Event()
    line = ProgressLine()
    try:
        path = run_interruptibly(
            lambda: voice.download(entry, progress=line, cancel=cancel), cancel
        )
    except DownloadCancelled:
        line.finish()
        click.echo(f"Download cancelled. Run `hearth voice download {model_id}` to resume.")
        sys.exit(130)
    line.finish()
    click.echo(f"Installed {entry.id}: {path}")


@voice.command("verify")
@click.argument("model_id", required=False)
def verify_command(model_id: str | None) -> None:
    """Re-check installed speech models (MODEL_ID, or all) against their download records."""
    voice = Voice()
    models = [m for m in voice.installed_models() if model_id in (None, m.entry.id)]
    if not models:
        raise SpeechModelError(f"No installed speech model is called '{model_id}'.")
    for model in models:
        voice.verify(model)
        click.echo(f"{model.entry.id}: intact ({model.path})")


@voice.command("use")
@click.option("--language", type=click.Choice(["english", "any"]), help="English only, or any.")
@click.option("--size", type=click.Choice(["tiny", "base"]), help="The model's size.")
@click.option("--send-at-once/--review", default=None, help="Send transcripts without review.")
@click.option("--microphone", help="An input device name; 'default' for the system's.")
def use_command(
    language: str | None, size: str | None, send_at_once: bool | None, microphone: str | None
) -> None:
    """Change the voice settings (the desktop app's Models → Voice input)."""
    voice = Voice()
    changes: dict[str, object] = {}
    if language:
        changes["language"] = language
    if size:
        changes["size"] = size
    if send_at_once is not None:
        changes["send_at_once"] = send_at_once
    if microphone:
        changes["microphone"] = None if microphone == "default" else microphone
    settings = VoiceSettings.model_validate({**voice.settings.model_dump(), **changes})
    voice.save_settings(settings)
    click.echo(f"Speech model: {voice.entry_for(settings).label}")


@voice.command("transcribe")
@click.argument("file", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the transcript and timings as JSON.")
def transcribe_command(file: Path, as_json: bool) -> None:
    """Transcribe a 16-bit WAV file through the same path the microphone uses."""
    voice = Voice()
    _say(voice.transcribe(voice.record_file(file)), as_json)


@voice.command("listen")
@click.option("--seconds", type=click.FloatRange(0.5, 120), help="Stop after this long.")
@click.option("--save", type=click.Path(dir_okay=False, path_type=Path), help="Also keep a WAV.")
@click.option("--json", "as_json", is_flag=True, help="Print the transcript and timings as JSON.")
def listen_command(seconds: float | None, save: Path | None, as_json: bool) -> None:
    """Record from the microphone until Enter (or --seconds), then transcribe."""
    voice = Voice()
    readiness = voice.readiness()
    if not readiness.ready:
        raise VoiceUnavailable(readiness.problem or "Voice input is not available.")
    with voice.microphone() as microphone:
        recording = microphone.recording
        assert recording is not None
        click.echo("Listening… press Enter to stop." if seconds is None else "Listening…", err=True)
        if seconds is None:
            sys.stdin.readline()
        else:
            deadline = time.monotonic() + seconds
            while microphone.active and time.monotonic() < deadline:
                time.sleep(0.05)
        microphone.stop()
    if save is not None:
        voice.write_wav(save, recording)
        click.echo(f"Saved the recording to {save}", err=True)
    _say(voice.transcribe(recording), as_json)


def _say(transcript: Transcript, as_json: bool) -> None:
    if as_json:
        report = {
            "text": transcript.text,
            "language": transcript.language,
            "audio_seconds": round(transcript.audio_seconds, 3),
            "seconds": round(transcript.seconds, 3),
            "real_time_factor": round(transcript.real_time_factor, 3),
        }
        click.echo(json.dumps(report))
        return
    if not transcript.text:
        raise VoiceError("Heard nothing: the recording is silent.")
    click.echo(transcript.text)
