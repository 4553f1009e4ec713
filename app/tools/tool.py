"""A tool: a typed function the model may propose, plus what the consent gate needs to know."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

import pydantic
from pydantic_core import to_jsonable_python

from hearth.messages import ToolSpec
from hearth.timeslots import TimeSlot
from hearth.tools.errors import ArgumentProblem, ArgumentRefused, ToolArgumentsError
from hearth.tools.problems import pydantic_problem, schema_problems
from hearth.tools.signature import arguments_model, takes_any_keywords

if TYPE_CHECKING:
    import jsonschema

Effect = Literal["read", "write", "send", "system"]
"""read: only looks. write: changes local data. send: leaves the machine or reaches a person.
system: changes OS state (Wi-Fi, volume, ...)."""

ScopeKind = Literal["path", "recipient", "calendar", "setting"]
"""How the scoped arguments' values are matched against rule patterns."""

Scope = str | tuple[str, ...]
"""The argument naming the resource a call touches, or all of them ("sources", "destination")."""

Notified = Sequence[str] | Mapping[str, str]
"""What a `notifies` hook returns: the addresses, or each address with where it comes from."""

_PREVIEW_VALUE_CHARS = 80
_LABEL_VALUES = 3
_LABEL_VALUE_CHARS = 100


@dataclass(frozen=True)
class Tool:
    """One callable tool with its JSON schema and consent metadata."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    function: Callable[..., Any]
    effect: Effect
    scope: Scope | None = None
    scope_kind: ScopeKind | None = None
    range_arg: str | None = None
    # The one resource every call touches when no argument names it: `system.set_volume`
    # always changes "volume", so its rules are scoped like a `setting` argument's would be.
    resource: str | None = None
    preview: Callable[[Mapping[str, Any]], str] | None = None
    undo: Callable[[Mapping[str, Any], Any], Any] | None = None
    connector: str | None = None
    keywords: tuple[str, ...] = field(default=())
    source_label: Callable[[Mapping[str, Any]], str] | None = None
    # Raises `ToolFailure` for a call that cannot run (a missing file), before anyone is asked.
    check: Callable[[Mapping[str, Any]], None] | None = None
    # The resource's owner parsing one value of a scoped argument into the one spelling the
    # gate rules on, the tool runs with and the card shows; raises `ToolFailure` for a
    # spelling it refuses (see `canonical_arguments`).
    canonical: Callable[[str], str] | None = None
    # Who wrote the description and schema the model reads, when neither Hearth nor an
    # installed plugin did ("the MCP server 'notes'"): reading them is reading outside text.
    told_by: str | None = None
    # The addresses a call notifies (a calendar server mails invitations), from its arguments
    # or the stored event; a call that notifies anyone is also a send to them. A mapping also
    # says where the call takes each address from ("the Reply-To of message 'INBOX/7'").
    notifies: Callable[[Mapping[str, Any]], Notified] | None = None
    # The stretches of time a card draws for a call (a calendar change's old and new slot).
    slots: Callable[[Mapping[str, Any]], Sequence[TimeSlot]] | None = None
    # Set only on the send view `as_invitation` makes: the people it reaches, and the tool
    # whose own scope (the calendar) a rule must cover as well.
    reaches: tuple[str, ...] = ()
    primary: Tool | None = None
    # (address, where the call takes it from) for the people `reaches` names through data.
    reached_from: tuple[tuple[str, str], ...] = ()

    @property
    def side_effecting(self) -> bool:
        return self.effect != "read"

    @property
    def names_resource(self) -> bool:
        """Whether a rule for this tool can carry a scope: its calls name what they touch."""
        return bool(self.scope_args or self.resource or self.reaches)

    @property
    def scope_args(self) -> tuple[str, ...]:
        """Every argument that names a resource the call touches; empty when none does."""
        if self.scope is None:
            return ()
        return (self.scope,) if isinstance(self.scope, str) else tuple(self.scope)

    def as_invitation(self, arguments: Mapping[str, Any]) -> Tool | None:
        """This call as the send it also is, scoped to the people it notifies; None if nobody.

        The view has effect `send` and recipient scope, so recipient rules, the rule of two and
        the card treat it as mail; its `primary` keeps the tool's own scope for the gate.
        """
        if self.notifies is None:
            return None
        named = self.notifies(arguments)
        people = tuple(dict.fromkeys(str(person).strip().lower() for person in named))
        people = tuple(person for person in people if person)
        if not people:
            return None
        origins = named.items() if isinstance(named, Mapping) else ()
        return replace(
            self,
            effect="send",
            scope_kind="recipient",
            reaches=people,
            primary=self,
            notifies=None,
            reached_from=tuple((str(p).strip().lower(), str(o)) for p, o in origins if o),
        )

    def canonical_arguments(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """`arguments` with every value naming a resource in its owner's canonical spelling.

        The gate, the tool, the card and the audit then all read that one value, so a spelling
        the gate would read one way and the tool another (an escaped path) cannot exist. A
        spelling the parser refuses as one a person could correct (`ArgumentRefused`) raises
        `ToolArgumentsError` naming the argument; any other refusal passes through.
        """
        if self.canonical is None or not self.scope_args:
            return dict(arguments)
        parse = self.canonical
        converted = dict(arguments)
        for name in self.scope_args:
            value = converted.get(name)
            try:
                if isinstance(value, str):
                    converted[name] = parse(value)
                elif isinstance(value, list):
                    converted[name] = [parse(v) if isinstance(v, str) else v for v in value]
            except ArgumentRefused as refused:
                problem = ArgumentProblem(refused.argument or name, refused.words)
                raise ToolArgumentsError(str(refused), [problem]) from None
        return converted

    def scoped_values(self, arguments: Mapping[str, Any]) -> list[object] | None:
        """Each resource the call names (list arguments give one per element), in order.

        None when a scoped argument is missing, null or an empty list: such a call names no
        resource a rule could be checked against. An invitation's resources are its people.
        """
        if self.reaches:
            return list(self.reaches)
        if self.resource is not None:
            return [self.resource]
        values: list[object] = []
        for name in self.scope_args:
            value = arguments.get(name)
            items = value if isinstance(value, list | tuple) else [value]
            if not items or any(item is None for item in items):
                return None
            values.extend(items)
        return values or None

    def source(self, arguments: Mapping[str, Any], *, failed: bool = False) -> str:
        """What this call's output is, in words: "files.read of /home/u/todo.md" for a read,
        "reply from files.move of /home/u/a.txt, /home/u/Old" for a side effect, "error from
        …" for a call that failed.

        Names the output wherever it is quoted as untrusted content; the tool's own
        `source_label` wins when it has one and it works.
        """
        if failed:
            return f"error from {self.source(arguments).removeprefix('reply from ')}"
        if self.source_label is not None:
            try:
                label = self.source_label(arguments)
            except Exception:
                label = ""
            if isinstance(label, str) and label.strip():
                return label.strip()
        reply = "reply from " if self.side_effecting else ""
        values = self.scoped_values(arguments)
        if values:
            return f"{reply}{self.name} of {_listed(values)}"
        named = [(key, value) for key, value in arguments.items() if value not in (None, "", [])]
        if named:
            shown = ", ".join(f"{key} {_quoted(value)}" for key, value in named[:_LABEL_VALUES])
            more = ", …" if len(named) > _LABEL_VALUES else ""
            return f"{reply}{self.name} with {shown}{more}"
        return f"{reply}{self.name}" if reply else f"{self.name} result"

    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.parameters)

    @cached_property
    def arguments_model(self) -> type[pydantic.BaseModel] | None:
        """The pydantic model of the signature; None for a `**kwargs` function (e.g. MCP)."""
        if takes_any_keywords(self.function):
            return None
        return arguments_model(self.function, self.name)

    def validate(self, arguments: object) -> dict[str, Any]:
        """Check arguments against the signature and return them converted, defaults filled in."""
        if not isinstance(arguments, Mapping):
            problem = ArgumentProblem("", "the arguments must be named values (a JSON object)")
            raise ToolArgumentsError(f"{self.name}: arguments must be a JSON object", [problem])
        model = self.arguments_model
        if model is None:
            return self._validate_by_schema(arguments)
        try:
            checked = model.model_validate(dict(arguments))
        except pydantic.ValidationError as error:
            errors = error.errors()
            described = "; ".join(_describe_error(item) for item in errors)
            raise ToolArgumentsError(
                f"Invalid arguments for {self.name}: {described}",
                [pydantic_problem(self.name, item) for item in errors],
            ) from None
        return dict(checked)

    def invoke(self, arguments: object) -> Any:
        """Validate the arguments, then call the function with them."""
        return self.function(**self.validate(arguments))

    def preview_text(self, arguments: Mapping[str, Any]) -> str | None:
        """The tool's own preview of this call, or None when it has none."""
        return self.preview(arguments) if self.preview is not None else None

    def time_slots(self, arguments: Mapping[str, Any]) -> tuple[TimeSlot, ...]:
        """What a card may draw for this call; nothing when the tool has no `slots` hook.

        The hook runs before anything else has checked the call, so any failure in it means
        only that there is nothing to draw.
        """
        if self.slots is None:
            return ()
        try:
            return tuple(slot for slot in self.slots(arguments) if isinstance(slot, TimeSlot))
        except Exception:
            return ()

    def describe(self, arguments: Mapping[str, Any]) -> str:
        """Text shown before the call runs: the tool's own preview, or `name(arg="value", ...)`."""
        if self.preview is not None:
            return self.preview(arguments)
        shown = ", ".join(f"{key}={_short_json(value)}" for key, value in arguments.items())
        return f"{self.name}({shown})"

    def _validate_by_schema(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        import jsonschema  # here: a front end opens faster without it, and few tools need it

        validator = jsonschema.Draft202012Validator(dict(self.parameters))
        errors = sorted(validator.iter_errors(dict(arguments)), key=lambda e: list(e.path))
        if errors:
            described = "; ".join(_describe_schema_error(error) for error in errors)
            problems = [found for error in errors for found in schema_problems(self.name, error)]
            raise ToolArgumentsError(f"Invalid arguments for {self.name}: {described}", problems)
        return dict(arguments)


def _describe_error(error: Mapping[str, Any]) -> str:
    where = ".".join(str(part) for part in error["loc"]) or "arguments"
    return f"{where}: {error['msg']}"


def _describe_schema_error(error: jsonschema.ValidationError) -> str:
    where = ".".join(str(part) for part in error.absolute_path) or "arguments"
    return f"{where}: {error.message}"


def _listed(values: list[object]) -> str:
    shown = ", ".join(_clip(str(value)) for value in values[:_LABEL_VALUES])
    hidden = len(values) - _LABEL_VALUES
    return f"{shown} and {hidden} more" if hidden > 0 else shown


def _quoted(value: object) -> str:
    if isinstance(value, str):
        return f"'{_clip(value)}'"
    return _clip(json.dumps(to_jsonable_python(value, fallback=str), ensure_ascii=False))


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _LABEL_VALUE_CHARS else text[: _LABEL_VALUE_CHARS - 1] + "…"


def _short_json(value: Any) -> str:
    text = json.dumps(to_jsonable_python(value), ensure_ascii=False)
    if len(text) <= _PREVIEW_VALUE_CHARS:
        return text
    return text[: _PREVIEW_VALUE_CHARS - 1] + "…"
