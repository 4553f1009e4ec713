"""A prompt prefix's state, kept and loaded on the real SmolLM2 GGUF, and every way it is refused.

Each refusal is planted: a real state file put where the changed key will look for it, or a
real file cut or damaged. The model must refuse it (one debug line), read the prefix again,
and answer exactly as a model that read the prefix itself. (That model also reads it as a
part of its own: llama.cpp's sums differ in the last bits when a prompt is split into other
batches, and a greedy 135M model can then pick another first token.)
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from hearth.engine.llama import LlamaCppModel
from hearth.engine.prefix import PrefixKey, PrefixStates
from hearth.generation import GenerationDone, GenerationSettings
from hearth.messages import Message, ToolSpec

pytestmark = pytest.mark.model

GREEDY = GenerationSettings(temperature=0.0, max_tokens=12)
SYSTEM = Message.system("You are Hearth, a terse assistant.")


def tool(name: str, description: str) -> ToolSpec:
    schema = {"type": "object", "properties": {"what": {"type": "string"}}, "required": ["what"]}
    return ToolSpec(name, description, schema)


TOOLS = [tool("notes.add", "Add a note."), tool("notes.find", "Find notes by their words.")]
OTHER_TOOLS = [*TOOLS, tool("notes.remove", "Remove a note.")]


def conversation(text: str) -> list[Message]:
    return [SYSTEM, Message.user(text, context="(It is Thursday 2026-12-03 09:00, UTC.)")]


def reply(
    model: LlamaCppModel, messages: list[Message], tools: list[ToolSpec] = TOOLS
) -> GenerationDone:
    events = list(model.generate(messages, tools, GREEDY))
    done = events[-1]
    assert isinstance(done, GenerationDone)
    return done


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "prefixes"


@pytest.fixture(scope="module")
def expected(test_gguf: Path) -> dict[str, str]:
    """What a fresh model that reads the prefix itself answers, for each tool set."""
    answers = {}
    for name, tools in (("tools", TOOLS), ("other", OTHER_TOOLS)):
        with LlamaCppModel(test_gguf, n_ctx=2048, prefixes=PrefixStates(None)) as fresh:
            answers[name] = reply(
                fresh, conversation("Add a note: buy milk."), tools
            ).message.content
    return answers


def kept(test_gguf: Path, folder: Path) -> PrefixKey:
    """Read the prefix once in a model of its own: its state is now on disk."""
    with LlamaCppModel(test_gguf, n_ctx=2048, prefixes=PrefixStates(folder)) as first:
        done = reply(first, conversation("What notes do I have?"))
        key = first.prefix_key(conversation("x"), TOOLS, GREEDY)
    assert done.stats.prefix_source == "computed" and key is not None
    assert (folder / key.file_name).is_file()
    return key


def test_a_new_conversation_after_a_restart_loads_the_prefix(
    test_gguf: Path, folder: Path, expected: dict[str, str]
) -> None:
    kept(test_gguf, folder)
    with LlamaCppModel(test_gguf, n_ctx=2048, prefixes=PrefixStates(folder)) as restarted:
        done = reply(restarted, conversation("Add a note: buy milk."))
    stats = done.stats
    assert stats.prefix_source == "disk" and stats.prefix_tokens > 40
    assert stats.evaluated_tokens == stats.prompt_tokens - stats.prefix_tokens
    assert done.message.content == expected["tools"]


def test_a_model_whose_memory_cannot_rewind_loads_it_too(
    test_gguf: Path, folder: Path, expected: dict[str, str]
) -> None:
    kept(test_gguf, folder)
    states = PrefixStates(folder)
    with LlamaCppModel(test_gguf, n_ctx=2048, prefixes=states) as hybrid:
        hybrid.cache.rewindable = False  # the path Qwen3.5's DeltaNet layers take
        first = reply(hybrid, conversation("Add a note: buy milk."))
        # Another conversation in the same process: the state is still in memory, and the
        # snapshot at the prefix's end serves the next prompt.
        second = reply(hybrid, conversation("Add a note: buy milk."))
    assert first.stats.prefix_source == "disk"
    assert second.stats.reused_tokens >= first.stats.prefix_tokens
    assert first.message.content == second.message.content == expected["tools"]


def test_another_tool_set_is_another_prefix(
    test_gguf: Path, folder: Path, expected: dict[str, str]
) -> None:
    states = PrefixStates(folder)
    with LlamaCppModel(test_gguf, n_ctx=2048, prefixes=states) as model:
        first = reply(model, conversation("Add a note: buy milk."))
        other = reply(model, conversation("Add a note: buy milk."), OTHER_TOOLS)
        again = reply(model, conversation("Add a note: buy milk."))
    assert first.stats.prefix_source == other.stats.prefix_source == "computed"
    assert again.stats.prefix_source == "memory"
    assert len(list(folder.glob("*.state"))) == 2
    assert first.message.content == again.message.content == expected["tools"]


def plant(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def refused_then_recomputed(
    model: LlamaCppModel, expected: str, caplog: pytest.LogCaptureFixture, why: str
) -> None:
    with caplog.at_level(logging.DEBUG, logger="hearth.engine.prefix"):
        done = reply(model, conversation("Add a note: buy milk."))
    lines = [r.getMessage() for r in caplog.records if r.name == "hearth.engine.prefix"]
    assert len(lines) == 1 and "refused" in lines[0] and why in lines[0], lines
    assert done.stats.prefix_source == "computed"
    assert done.message.content == expected


def test_a_state_made_for_another_model_file_is_refused(
    test_gguf: Path,
    folder: Path,
    tmp_path: Path,
    expected: dict[str, str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    key = kept(test_gguf, folder)
    other = tmp_path / "other.gguf"
    shutil.copyfile(test_gguf, other)
    with other.open("r+b") as handle:  # the last weights change: another model, same shape
        handle.seek(-1, 2)
        last = handle.read(1)
        handle.seek(-1, 2)
        handle.write(bytes([last[0] ^ 1]))
    with LlamaCppModel(other, n_ctx=2048, prefixes=PrefixStates(None)) as plain:
        its_own = reply(plain, conversation("Add a note: buy milk.")).message.content
    with LlamaCppModel(other, n_ctx=2048, prefixes=PrefixStates(folder)) as model:
        wanted = model.prefix_key(conversation("x"), TOOLS, GREEDY)
        assert wanted is not None and wanted.model != key.model
        plant(folder / key.file_name, folder / wanted.file_name)
        refused_then_recomputed(model, its_own, caplog, "model")


def test_a_state_made_under_another_template_is_refused(
    test_gguf: Path, folder: Path, expected: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    key = kept(test_gguf, folder)
    with LlamaCppModel(test_gguf, n_ctx=2048, prefixes=PrefixStates(folder)) as original:
        template = original.template.source
    # The same rendering, another template text: only the key tells them apart.
    with LlamaCppModel(
        test_gguf, n_ctx=2048, prefixes=PrefixStates(folder), chat_template=template + "{# #}"
    ) as model:
        wanted = model.prefix_key(conversation("x"), TOOLS, GREEDY)
        assert wanted is not None and (wanted.tokens, wanted.template) == (
            key.tokens,
            wanted.template,
        )
        assert wanted.template != key.template
        plant(folder / key.file_name, folder / wanted.file_name)
        refused_then_recomputed(model, expected["tools"], caplog, "template")


def test_a_state_of_another_tool_set_is_refused(
    test_gguf: Path, folder: Path, expected: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    key = kept(test_gguf, folder)
    with LlamaCppModel(test_gguf, n_ctx=2048, prefixes=PrefixStates(folder)) as model:
        wanted = model.prefix_key(conversation("x"), OTHER_TOOLS, GREEDY)
        assert wanted is not None
        plant(folder / key.file_name, folder / wanted.file_name)
        with caplog.at_level(logging.DEBUG, logger="hearth.engine.prefix"):
            done = reply(model, conversation("Add a note: buy milk."), OTHER_TOOLS)
    lines = [r.getMessage() for r in caplog.records if r.name == "hearth.engine.prefix"]
    assert len(lines) == 1 and "tokens" in lines[0], lines
    assert done.stats.prefix_source == "computed"
    assert done.message.content == expected["other"]


def test_a_state_from_another_llama_cpp_build_is_refused(
    test_gguf: Path,
    folder: Path,
    expected: dict[str, str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = kept(test_gguf, folder)
    monkeypatch.setattr("hearth.engine.llama.llama_build", lambda: "0.3.99 another build")
    with LlamaCppModel(test_gguf, n_ctx=2048, prefixes=PrefixStates(folder)) as model:
        wanted = model.prefix_key(conversation("x"), TOOLS, GREEDY)
        assert wanted is not None and wanted.build != key.build
        plant(folder / key.file_name, folder / wanted.file_name)
        refused_then_recomputed(model, expected["tools"], caplog, "build")


@pytest.mark.parametrize("damage", ["truncated", "flipped byte", "empty", "not a state"])
def test_a_damaged_state_file_is_refused_and_replaced(
    test_gguf: Path,
    folder: Path,
    expected: dict[str, str],
    caplog: pytest.LogCaptureFixture,
    damage: str,
) -> None:
    key = kept(test_gguf, folder)
    path = folder / key.file_name
    data = bytearray(path.read_bytes())
    if damage == "truncated":
        del data[len(data) // 2 :]
    elif damage == "flipped byte":
        data[len(data) - 1000] ^= 0x10  # inside the attention cache
    elif damage == "empty":
        data.clear()
    else:
        data[:6] = b"GGUF\x03\x00"
    path.write_bytes(bytes(data))
    why = {"truncated": "cut short", "flipped byte": "damaged", "empty": "", "not a state": ""}
    with LlamaCppModel(test_gguf, n_ctx=2048, prefixes=PrefixStates(folder)) as model:
        refused_then_recomputed(model, expected["tools"], caplog, why[damage])
    assert path.stat().st_size > 1000  # read again and kept again, whole
    with LlamaCppModel(test_gguf, n_ctx=2048, prefixes=PrefixStates(folder)) as model:
        assert reply(model, conversation("Add a note: buy milk.")).stats.prefix_source == "disk"


def test_the_size_cap_evicts_the_least_recently_used(tmp_path: Path) -> None:
    def key(name: str) -> PrefixKey:
        return PrefixKey.of(model="m", template="t", build="b", context="c", tokens=[len(name)] * 3)

    size = 10_000
    states = PrefixStates(tmp_path, disk_bytes=int(size * 2.5), memory_bytes=0)
    first, second, third = key("a"), key("bb"), key("ccc")
    states.put(first, bytes(size))
    states.put(second, bytes(size))
    assert states.get(first) is not None  # read from disk: now the most recently used
    states.put(third, bytes(size))
    files = {path.name for path in tmp_path.glob("*.state")}
    assert files == {first.file_name, third.file_name}
    assert states.get(second) is None


def test_a_state_bigger_than_the_cap_stays_in_memory_only(tmp_path: Path) -> None:
    key = PrefixKey.of(model="m", template="t", build="b", context="c", tokens=[1, 2])
    states = PrefixStates(tmp_path, disk_bytes=100)
    states.put(key, bytes(1000))
    assert not list(tmp_path.glob("*.state"))
    assert states.get(key) == (bytes(1000), "memory")
