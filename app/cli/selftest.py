"""`hearth --selftest`: prove an install works, offline, in one run, and say so as JSON.

Meant above all for the frozen bundle: it shows which llama.cpp CPU build loaded, re-checks the
bundled model against the size and sha256 recorded when it was packed (once: a stamp in the data
folder lets later runs skip the hash), loads the entry points the app finds its connectors and
window through, loads the model and runs one headless turn through `hearth.Session`. That turn
must call a built-in demo tool, and the consent gate must let it run because of an explicit allow
rule, not because someone answered. Any failure raises `SelftestFailed` with the reason.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Annotated, Any

import click
from pydantic import Field

from hearth import (
    Assistant,
    CancelToken,
    ChatModel,
    EngineEvent,
    GenerationDone,
    GenerationSettings,
    HearthError,
    Message,
    ModelInfo,
    Models,
    PromptProgress,
    Proposal,
    Session,
    Tool,
    ToolSpec,
    bundle_dir,
    choose_variant,
    hookimpl,
    llama_system_info,
    loaded_library_folder,
    make_tool,
)

TOOL_NAME = "selftest.echo"
PROMPT = f"Call the {TOOL_NAME} tool with the text 'hearth'."
CONTEXT_TOKENS = 2048
MAX_TOKENS = 256
# A bound the call grammar enforces: a small model can otherwise ramble inside the string
# until the token limit, leaving the call unfinished.
ECHO_LIMIT = 32
PLUGIN_GROUP = "hearth.plugins"
FRONTEND_GROUP = "hearth.frontends"


class SelftestFailed(HearthError):
    """The self-test found something broken; the message says what and what to do."""


def echo(text: Annotated[str, Field(max_length=ECHO_LIMIT)]) -> str:
    """Repeat a short text back unchanged; Hearth's self-test calls it to check tool calling.

    Args:
        text: The text to repeat.
    """
    return text


class _DemoPlugin:
    """Registers the self-test's one tool, which only the self-test's session ever sees."""

    @hookimpl
    def register_tools(self, register: Any) -> None:
        register(demo_tool())


def demo_tool() -> Tool:
    """`selftest.echo(text) -> text`, a read-only tool."""
    return make_tool(echo, effect="read", name=TOOL_NAME)


@dataclass
class _Timed:
    """The loaded model, noting when its first reply's first event and final stats arrive."""

    model: ChatModel
    started: float = 0.0
    first_event: float | None = None
    done: list[GenerationDone] = field(default_factory=list)

    @property
    def info(self) -> ModelInfo:
        return self.model.info

    def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        settings: GenerationSettings | None = None,
        cancel: CancelToken | None = None,
    ) -> Iterator[EngineEvent]:
        if not self.started:
            self.started = time.perf_counter()
        for event in self.model.generate(messages, tools, settings, cancel):
            if self.first_event is None and not isinstance(event, PromptProgress):
                self.first_event = time.perf_counter()
            if isinstance(event, GenerationDone):
                self.done.append(event)
            yield event

    def close(self) -> None:
        self.model.close()


def run_selftest(choice: str | None) -> dict[str, Any]:
    """Run every check; the report as a dict, or `SelftestFailed` with the reason."""
    begun = time.perf_counter()
    frozen = bundle_dir() is not None
    variant = choose_variant()
    path, source = find_model(choice, frozen)
    model_report = check_model(path, strict=source == "bundled")
    checked = time.perf_counter()
    found = check_entry_points(strict=frozen)
    entries = time.perf_counter()
    try:
        timed = _Timed(Models().load(path, CONTEXT_TOKENS))
    except HearthError as error:
        raise SelftestFailed(f"The model could not be loaded: {error}") from None
    loaded = time.perf_counter()
    turn = run_turn(timed)
    finished = time.perf_counter()
    library = loaded_library_folder()
    return {
        "ok": True,
        "frozen": frozen,
        "model": {"path": str(path), "source": source, **model_report},
        "cpu": {
            "variant_wanted": variant.wanted,
            "missing_flags": list(variant.missing_flags),
            "fallback_applied": variant.applied,
            "loaded_from": str(library) if library else None,
            "variant_loaded": library.name if library else None,
        },
        "system_info": llama_system_info(),
        "entry_points": found,
        **turn,
        "seconds": {
            "check_model": round(checked - begun, 3),
            "entry_points": round(entries - checked, 3),
            "load_model": round(loaded - entries, 3),
            **_first_reply_seconds(timed),
            "turn": round(finished - loaded, 3),
            "total": round(finished - begun, 3),
        },
    }


def _first_reply_seconds(timed: _Timed) -> dict[str, float | None]:
    """Prompt reading, and the first token: the prompt plus one token's decode. A forced call
    streams nothing until it is whole, so the first event arrives only after the whole call."""
    if not timed.done:
        return {"prefill": None, "first_token": None, "first_event": None}
    stats = timed.done[0].stats
    per_token = stats.decode_seconds / stats.completion_tokens if stats.completion_tokens else 0.0
    first_event = timed.first_event - timed.started if timed.first_event else None
    return {
        "prefill": round(stats.prefill_seconds, 3),
        "first_token": round(stats.prefill_seconds + per_token, 3),
        "first_event": round(first_event, 3) if first_event is not None else None,
    }


def find_model(choice: str | None, frozen: bool) -> tuple[Path, str]:
    """The model to test: the one asked for, else the bundled one (frozen), else the best."""
    models = Models()
    if choice is not None:
        return models.resolve(choice), "chosen"
    if frozen:
        bundled = [model for model in models.installed() if model.source == "bundled"]
        if not bundled:
            raise SelftestFailed(
                "This Hearth bundle has no model in it; rebuild it with"
                " packaging/build.py --model ID."
            )
        return bundled[0].path, "bundled"
    return models.resolve(), "installed"


def check_model(path: Path, *, strict: bool) -> dict[str, Any]:
    """Size and sha256 against the model's record (once: then a stamp vouches for it)."""
    models = Models()
    if strict and models.install_record(path) is None:
        raise SelftestFailed(
            f"The bundled model {path.name} has no record of its size and sha256, so the"
            " bundle is incomplete; rebuild it with packaging/build.py."
        )
    try:
        checked = models.check_once(path)
        summary = models.inspect(path) if checked.hashed != "before" else None
    except HearthError as error:
        raise SelftestFailed(str(error)) from None
    size = summary.size if summary is not None else checked.size
    ok = None if checked.sha256 is None else True
    return {"size": size, "sha256": checked.sha256, "sha256_ok": ok, "hashed": checked.hashed}


def check_entry_points(*, strict: bool) -> dict[str, Any]:
    """Load every connector plugin and the desktop front end the way the app finds them."""
    plugins: dict[str, str] = {}
    for point in sorted(entry_points(group=PLUGIN_GROUP), key=lambda p: p.name):
        plugins[point.name] = _load(point.name, point.load, strict)
    if not plugins:
        raise SelftestFailed(
            "No connector plugins were found through entry points, so Hearth's package metadata"
            " is missing; reinstall Hearth."
        )
    frontends = {p.name: p for p in entry_points(group=FRONTEND_GROUP)}
    if "desktop" not in frontends:
        raise SelftestFailed("The desktop app's entry point is missing; reinstall Hearth.")
    desktop = _load("desktop", frontends["desktop"].load, strict)
    return {"plugins": plugins, "desktop": desktop}


def _load(name: str, load: Any, strict: bool) -> str:
    try:
        load()
    except ImportError as error:
        if strict:
            raise SelftestFailed(
                f"The bundle cannot load {name} ({error}); the build left something out."
            ) from None
        return f"not installed: {error}"
    return "loaded"


def run_turn(model: _Timed) -> dict[str, Any]:
    """One turn that must call the demo tool, let through by an allow rule for it alone."""
    asked: list[Proposal] = []

    def nobody_answers(proposal: Proposal) -> bool:
        asked.append(proposal)  # the allow rule should have settled it: refusing fails the test
        return False

    assistant = Assistant.open(
        plugins=[_DemoPlugin()], entry_points=False, user_plugins=False, start_connectors=False
    )
    with Session(
        model,
        approve=nobody_answers,
        think=False,
        max_tokens=MAX_TOKENS,
        n_ctx=CONTEXT_TOKENS,
        assistant=assistant,
    ) as session:
        session.allow(TOOL_NAME)
        turn = session.ask(PROMPT, tool="required")
    calls = [call for call in turn.calls if call.get("type") == "tool_call"]
    if turn.error or not calls:
        raise SelftestFailed(
            f"The model did not call {TOOL_NAME} ({turn.error or turn.stop_reason or 'no call'})."
        )
    call = calls[0]
    decision = call["decision"]
    if asked or not decision["allowed"] or decision["by"] != "rule":
        raise SelftestFailed(
            f"The consent gate did not apply the allow rule for {TOOL_NAME}: {decision['reason']}."
        )
    if call["tool"] != TOOL_NAME or call["outcome"] != "executed":
        raise SelftestFailed(f"The call to {call['tool']} ended as {call['outcome']}.")
    return {
        "call": {key: call[key] for key in ("tool", "arguments", "outcome", "result")},
        "gate": decision,
        "answer": turn.answer,
    }


def selftest_command(choice: str | None) -> None:
    """Print the report as JSON and exit 0; a failure exits 1 with the reason (via `main`)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never the network, whatever is installed
    report = run_selftest(choice)
    click.echo(json.dumps(report, indent=2, ensure_ascii=False))
