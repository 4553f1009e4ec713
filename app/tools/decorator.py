"""`@tool`: a typed function, or a connector's method, becomes a `Tool` the model may propose."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import pydantic

from hearth.timeslots import TimeSlot
from hearth.tools.define import make_tool
from hearth.tools.errors import ToolDefinitionError
from hearth.tools.tool import Effect, Notified, Scope, ScopeKind, Tool

# The hooks a method may name instead of giving a function, with what each takes after `self`.
_NAMED_HOOKS: dict[str, tuple[str, ...]] = {
    "undo": ("arguments", "result"),
    "check": ("arguments",),
    "notifies": ("arguments",),
    "preview": ("arguments",),
    "slots": ("arguments",),
}


def tool(
    *,
    effect: Effect,
    scope: Scope | None = None,
    scope_kind: ScopeKind | None = None,
    range_arg: str | None = None,
    resource: str | None = None,
    preview: Callable[[Mapping[str, Any]], str] | str | None = None,
    undo: Callable[[Mapping[str, Any], Any], Any] | str | None = None,
    name: str | None = None,
    keywords: Iterable[str] = (),
    source_label: Callable[[Mapping[str, Any]], str] | None = None,
    check: Callable[[Mapping[str, Any]], None] | str | None = None,
    notifies: Callable[[Mapping[str, Any]], Notified] | str | None = None,
    slots: Callable[[Mapping[str, Any]], Sequence[TimeSlot]] | str | None = None,
) -> Callable[[Callable[..., Any]], Any]:
    """Decorator form of `make_tool`; on a connector's method it makes a `ToolMethod`.

    On a method, `undo` may name another method of the connector, `(self, arguments, result)`,
    and so may `check`, `(self, arguments)`, which raises `ToolFailure` for a call that cannot
    run, `notifies`, `(self, arguments)`, which returns the addresses a call would notify, and
    `preview`, `(self, arguments)`, the text a card shows before the call runs, and `slots`,
    `(self, arguments)`, the `TimeSlot`s a card draws for it. A name that is no method of the
    connector, or a method taking other arguments, fails as the connector's class is made.
    """

    def decorate(function: Callable[..., Any]) -> Any:
        options = ToolOptions(
            effect,
            scope,
            scope_kind,
            range_arg,
            resource,
            preview,
            undo,
            name,
            keywords,
            source_label,
            check,
            notifies,
            slots,
        )
        if _is_method(function):
            return ToolMethod(function, options)
        return options.build(function, name or str(getattr(function, "__name__", "")))

    return decorate


@dataclass(frozen=True)
class ToolOptions:
    """What `@tool` was told: consent metadata, preview, undo, name, keywords, source label."""

    effect: Effect
    scope: Scope | None
    scope_kind: ScopeKind | None
    range_arg: str | None
    resource: str | None
    preview: Callable[[Mapping[str, Any]], str] | str | None
    undo: Callable[[Mapping[str, Any], Any], Any] | str | None
    name: str | None
    keywords: Iterable[str]
    source_label: Callable[[Mapping[str, Any]], str] | None = None
    check: Callable[[Mapping[str, Any]], None] | str | None = None
    notifies: Callable[[Mapping[str, Any]], Notified] | str | None = None
    slots: Callable[[Mapping[str, Any]], Sequence[TimeSlot]] | str | None = None

    def build(self, function: Callable[..., Any], name: str, **changes: Any) -> Tool:
        for hook in _NAMED_HOOKS:
            if isinstance(changes.get(hook, getattr(self, hook)), str):
                raise ToolDefinitionError(
                    f"tool {name!r}: {hook} names a method, so the tool must be a connector's "
                    "method"
                )
        options = {
            "effect": self.effect,
            "scope": self.scope,
            "scope_kind": self.scope_kind,
            "range_arg": self.range_arg,
            "resource": self.resource,
            "preview": self.preview,
            "undo": self.undo,
            "keywords": self.keywords,
            "source_label": self.source_label,
            "check": self.check,
            "notifies": self.notifies,
            "slots": self.slots,
            **changes,
        }
        return make_tool(function, name=name, **options)


class ToolOwner(Protocol):
    """The object a `@tool` method's tool is bound to: a `Connector`."""

    @property
    def name(self) -> str: ...

    @property
    def scope_kind(self) -> ScopeKind | None: ...


class ToolMethod:
    """A connector method decorated with `@tool`: each connector object gets its own `Tool`.

    The tool is named `<connector>.<method>` unless `name` is given; a scope without a kind
    takes the connector's `scope_kind`. `undo="method_name"` names the method that reverts it,
    which receives the result again as this method's declared return type, even after the undo
    journal kept it as JSON across a restart.
    """

    def __init__(self, function: Callable[..., Any], options: ToolOptions) -> None:
        self.function = function
        self.options = options
        self._attribute = function.__name__

    def __set_name__(self, owner: type, attribute: str) -> None:
        self._attribute = attribute

    def __get__(self, instance: ToolOwner | None, owner: type | None = None) -> Any:
        if instance is None:
            return self
        cache: dict[str, Tool] = instance.__dict__.setdefault("_hearth_tools", {})
        if self._attribute not in cache:
            cache[self._attribute] = self._bind(instance)
        return cache[self._attribute]

    def check_hooks(self, owner: type, owner_name: str) -> None:
        """Refuse a hook naming no method of the class `owner`, or one taking other arguments.

        `Connector` calls this as each subclass is made, so a misspelt hook fails when the
        plugin's module is imported rather than when its tools are first built.
        """
        for hook, parameters in _NAMED_HOOKS.items():
            attribute = getattr(self.options, hook)
            if isinstance(attribute, str) and (
                problem := _hook_problem(owner, attribute, parameters)
            ):
                raise ToolDefinitionError(f"tool {self._name(owner_name)!r}: {hook} {problem}")

    def _name(self, owner_name: str) -> str:
        return self.options.name or f"{owner_name}.{self.function.__name__}"

    def _bind(self, instance: ToolOwner) -> Tool:
        bound = self.function.__get__(instance)
        name = self._name(instance.name)
        scope_kind = self.options.scope_kind
        names = self.options.scope is not None or self.options.resource is not None
        if names and scope_kind is None:
            scope_kind = instance.scope_kind
        hooks = {
            hook: getattr(instance, attribute)
            for hook in _NAMED_HOOKS
            if isinstance(attribute := getattr(self.options, hook), str)
        }
        if "undo" in hooks:
            hooks["undo"] = _typed_undo(hooks["undo"], self.function)
        # The connector owns its resources' spelling: its parser canonicalises every scoped
        # value of every tool it has, so no tool can be declared without it by mistake.
        parser = getattr(instance, "canonical_resource", None)
        if self.options.scope is not None and callable(parser):
            hooks["canonical"] = parser
        return self.options.build(bound, name, scope_kind=scope_kind, **hooks)


def _hook_problem(owner: type, attribute: str, parameters: tuple[str, ...]) -> str | None:
    method = getattr(owner, attribute, None)
    if not callable(method):
        return f"names no method {attribute!r} of {owner.__name__}"
    try:
        signature = inspect.signature(method)
    except (TypeError, ValueError):
        return None  # a callable Python cannot describe: nothing to check it against
    # Read from the class, a plain method still takes `self`; a static or class method does not.
    takes_self = inspect.isfunction(inspect.getattr_static(owner, attribute))
    try:
        signature.bind(*[None] * (len(parameters) + takes_self))
    except TypeError:
        return f"method {attribute!r} must take ({', '.join(('self', *parameters))})"
    return None


def _is_method(function: Callable[..., Any]) -> bool:
    parameters = list(inspect.signature(function).parameters)
    return bool(parameters) and parameters[0] == "self"


def _typed_undo(
    undo: Callable[[Mapping[str, Any], Any], Any], function: Callable[..., Any]
) -> Callable[[Mapping[str, Any], Any], Any]:
    """Undo gets the result as the tool returned it, even after a restart read it from disk."""
    returns = typing.get_type_hints(function).get("return", Any)
    adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(returns)

    def revert(arguments: Mapping[str, Any], result: Any) -> Any:
        return undo(arguments, adapter.validate_python(result))

    revert.__name__ = getattr(undo, "__name__", "revert")
    return revert
