"""A documented, typed function becomes a tool whose schema a grammar and the model can use."""

from __future__ import annotations

import enum
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import jsonschema
import pydantic
import pytest

from hearth.engine.calls import check_call
from hearth.engine.grammar import hermes_json_grammar, qwen_xml_grammar
from hearth.tools import Tool, ToolDefinitionError, make_tool, tool


class Priority(enum.Enum):
    LOW = "low"
    HIGH = "high"


class Recipient(pydantic.BaseModel):
    """Someone to write to."""

    address: str
    title: str = ""


class Folder(pydantic.BaseModel):
    name: str
    children: list[Folder] = []


def send_note(
    to: list[Recipient],
    body: str,
    priority: Priority = Priority.LOW,
    kind: Literal["note", "memo"] = "note",
    attach: Path | None = None,
    copies: Annotated[int, pydantic.Field(ge=1, le=5)] = 1,
    urgent: bool = False,
    weight: float = 0.5,
) -> str:
    """Send a short note to people.

    Longer text that the model does not need.

    Args:
        to: Who gets the note.
        body (str): The text of the note,
            which may span several lines.
        priority: How urgent it is.
        kind: Note or memo.
        attach: A file to attach.
        copies: How many copies.
        urgent: Whether to ring a bell.
        weight: Paper weight.

    Returns:
        A receipt.
    """
    return f"sent {body}"


def make_folder(root: Folder) -> None:
    """Create a folder tree.

    Args:
        root: The top folder.
    """


@pytest.fixture(scope="module")
def note() -> Tool:
    return make_tool(send_note, effect="send", scope="to", scope_kind="recipient")


def test_description_is_the_first_paragraph(note: Tool) -> None:
    assert note.name == "send_note"
    assert note.description == "Send a short note to people."


def test_args_become_parameter_descriptions(note: Tool) -> None:
    props = note.parameters["properties"]
    assert props["to"]["description"] == "Who gets the note."
    assert props["body"]["description"] == "The text of the note, which may span several lines."
    assert all(prop["description"] for prop in props.values())


def test_schema_is_plain_json_schema(note: Tool) -> None:
    schema = note.parameters
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["to", "body"]
    assert "$defs" not in schema
    assert "$ref" not in repr(schema)
    props = schema["properties"]
    assert props["priority"]["enum"] == ["low", "high"]
    assert props["priority"]["default"] == "low"
    assert props["kind"]["enum"] == ["note", "memo"]
    assert {"type": "string", "format": "path"} in props["attach"]["anyOf"]
    assert (props["copies"]["minimum"], props["copies"]["maximum"]) == (1, 5)
    assert (props["urgent"]["type"], props["weight"]["type"]) == ("boolean", "number")
    recipient = props["to"]["items"]
    assert recipient["additionalProperties"] is False
    # A property called "title" is data, not the JSON-schema annotation that gets dropped.
    assert set(recipient["properties"]) == {"address", "title"}
    assert "title" not in props["body"]


def test_schema_validates_and_compiles_to_both_grammars(note: Tool) -> None:
    jsonschema.Draft202012Validator.check_schema(dict(note.parameters))
    call = check_call("send_note", {"to": [{"address": "a@b.c"}], "body": "hi"}, [note.spec()])
    assert call.arguments["body"] == "hi"
    assert "send_note" in hermes_json_grammar([note.spec()])
    assert "send_note" in qwen_xml_grammar([note.spec()])


def test_recursive_models_keep_their_definition() -> None:
    folders = make_tool(make_folder, effect="write")
    schema = folders.parameters
    assert schema["properties"]["root"]["properties"]["children"]["items"] == {
        "$ref": "#/$defs/Folder"
    }
    assert set(schema["$defs"]) == {"Folder"}
    assert "make_folder" in hermes_json_grammar([folders.spec()])


def test_decorator_with_dotted_name_and_metadata() -> None:
    @tool(effect="system", scope="name", scope_kind="setting", range_arg="level", name="os.set")
    def set_level(name: str, level: int) -> None:
        """Set a level.

        Args:
            name: Which setting.
            level: The new value.
        """

    assert isinstance(set_level, Tool)
    assert (set_level.name, set_level.effect, set_level.range_arg) == ("os.set", "system", "level")
    assert set_level.side_effecting


def undocumented(path: str, limit: int = 3) -> None:
    """List a folder.

    Args:
        path: The folder.
    """


def star_args(*names: str) -> None:
    """Greet.

    Args:
        names: People.
    """


def star_kwargs(**options: str) -> None:
    """Configure.

    Args:
        options: Options.
    """


def callable_arg(callback: Callable[[], None]) -> None:
    """Call back.

    Args:
        callback: What to call.
    """


class Opaque:
    pass


def opaque_arg(thing: Opaque) -> None:
    """Use a thing.

    Args:
        thing: The thing.
    """


def unannotated(thing) -> None:  # type: ignore[no-untyped-def]
    """Use a thing.

    Args:
        thing: The thing.
    """


def no_docstring(query: str) -> None:
    pass


def search(query: str) -> None:
    """Search.

    Args:
        query: Words.
    """


def extra_doc(query: str) -> None:
    """Search.

    Args:
        query: Words.
        limit: Not an argument.
    """


@pytest.mark.parametrize(
    ("function", "options", "message"),
    [
        (undocumented, {}, "'limit' has no description"),
        (star_args, {}, "*args and **kwargs"),
        (star_kwargs, {}, "*args and **kwargs"),
        (callable_arg, {}, "argument 'callback' has an unsupported type"),
        (opaque_arg, {}, "argument 'thing' has an unsupported type"),
        (unannotated, {}, "needs a type annotation"),
        (no_docstring, {}, "needs a docstring"),
        (extra_doc, {}, "documents unknown 'limit'"),
        (search, {"name": "Files.Search"}, "must be lower-case"),
        (search, {"name": "files..search"}, "must be lower-case"),
        (search, {"effect": "delete"}, "effect must be one of"),
        (search, {"scope": "path", "scope_kind": "path"}, "'path' is not an argument"),
        (search, {"scope": "query"}, "scope or resource goes with scope_kind"),
        (search, {"scope": "query", "scope_kind": "folder"}, "scope_kind must be one of"),
    ],
)
def test_definition_errors_are_clear(
    function: Callable[..., Any], options: dict[str, Any], message: str
) -> None:
    options = {"effect": "read", **options}
    with pytest.raises(ToolDefinitionError, match=message.replace("*", r"\*")):
        make_tool(function, **options)


def test_range_arg_needs_a_setting_scope() -> None:
    def find(query: str, limit: int) -> None:
        """Find.

        Args:
            query: Words.
            limit: Most results.
        """

    with pytest.raises(ToolDefinitionError, match="range_arg only applies"):
        make_tool(find, effect="read", scope="query", scope_kind="path", range_arg="limit")


def set_level(level: int) -> None:
    """Set a level.

    Args:
        level: The level.
    """


def test_a_fixed_resource_is_every_calls_scope() -> None:
    built = make_tool(
        set_level, effect="system", resource="volume", scope_kind="setting", range_arg="level"
    )
    assert built.scoped_values({"level": 5}) == ["volume"] and built.names_resource
    assert not make_tool(set_level, effect="system").names_resource


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"resource": "volume"}, "goes with scope_kind"),
        ({"resource": "volume", "scope": "level", "scope_kind": "setting"}, "not both"),
        ({"resource": " ", "scope_kind": "setting"}, "non-empty"),
    ],
)
def test_a_fixed_resource_is_checked(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=message):
        make_tool(set_level, effect="system", **options)


def move(sources: list[str], destination: str, overwrite: bool = False) -> str:
    """Move files into a folder.

    Args:
        sources: Full paths of the files.
        destination: Full path of the folder.
        overwrite: Replace what is there.
    """
    return "moved"


def test_a_tool_may_name_every_argument_that_holds_a_resource() -> None:
    moving = make_tool(move, effect="write", scope=("sources", "destination"), scope_kind="path")
    assert moving.scope == ("sources", "destination")
    assert moving.scope_args == ("sources", "destination")
    call = {"sources": ["/a/x", "/a/y"], "destination": "/b", "overwrite": False}
    assert moving.scoped_values(call) == ["/a/x", "/a/y", "/b"]
    assert moving.scoped_values({"sources": ["/a/x"]}) is None
    assert moving.scoped_values({"sources": [], "destination": "/b"}) is None
    single = make_tool(move, effect="write", scope=["destination"], scope_kind="path")
    assert single.scope == "destination" and single.scope_args == ("destination",)


@pytest.mark.parametrize(
    ("scope", "message"),
    [
        (("sources", "target"), "scope 'target' is not an argument"),
        (("sources", "sources"), "names an argument twice"),
        ((), "scope must name an argument"),
        (("sources", 3), "scope must name an argument"),
    ],
)
def test_every_scoped_argument_must_exist(scope: Any, message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=message):
        make_tool(move, effect="write", scope=scope, scope_kind="path")


def test_a_call_names_what_it_read_by_its_resources_or_arguments() -> None:
    moving = make_tool(move, effect="write", scope=("sources", "destination"), scope_kind="path")
    call = {"sources": ["/a/1", "/a/2", "/a/3", "/a/4"], "destination": "/b"}
    assert moving.source(call) == "reply from move of /a/1, /a/2, /a/3 and 2 more"
    unscoped = make_tool(move, effect="read")
    assert unscoped.source({"sources": ["/a/1"], "destination": "/b", "overwrite": None}) == (
        """move with sources ["/a/1"], destination '/b'"""
    )
    assert unscoped.source({}) == "move result"
    assert make_tool(move, effect="write").source({}) == "reply from move"
    assert moving.source({"sources": ["/a/1"], "destination": "/b"}, failed=True) == (
        "error from move of /a/1, /b"
    )


def test_a_tool_may_word_what_a_call_read_itself() -> None:
    @tool(effect="read", source_label=lambda args: f"email '{args['subject']}' from billing@…")
    def mail_read(subject: str) -> str:
        """Read an email.

        Args:
            subject: Its subject.
        """
        return ""

    assert mail_read.source({"subject": "Invoice #4411"}) == "email 'Invoice #4411' from billing@…"

    def broken(arguments: Any) -> str:
        raise KeyError("subject")

    fallback = make_tool(mail_read.function, effect="read", source_label=broken)
    assert fallback.source({"subject": "Hi"}) == "mail_read with subject 'Hi'"
