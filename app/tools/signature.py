"""A tool function's signature as a pydantic model: one validated field per parameter."""

from __future__ import annotations

import inspect
import typing
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import pydantic

from hearth.tools.errors import ToolDefinitionError


def arguments_model(
    function: Callable[..., Any], name: str, descriptions: Mapping[str, str] | None = None
) -> type[pydantic.BaseModel]:
    """Build a pydantic model with one field per parameter; extra keys are refused."""
    descriptions = descriptions or {}
    fields: dict[str, Any] = {}
    hints = _type_hints(function, name)
    for parameter in inspect.signature(function).parameters.values():
        _check_parameter(parameter, hints, name)
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        described = pydantic.Field(default, description=descriptions.get(parameter.name))
        fields[parameter.name] = (hints[parameter.name], described)
    config = pydantic.ConfigDict(extra="forbid", arbitrary_types_allowed=False)
    model_name = "".join(part.title() for part in name.replace(".", "_").split("_")) + "Arguments"
    try:
        with warnings.catch_warnings():
            # A parameter may be called `json` or `copy`; the model is only used for validation.
            warnings.filterwarnings("ignore", "Field name .* shadows", UserWarning)
            return pydantic.create_model(model_name, __config__=config, **fields)
    except pydantic.PydanticUserError as error:
        raise unsupported_type_error(name, hints, error) from None


def unsupported_type_error(
    name: str, hints: Mapping[str, Any], error: Exception
) -> ToolDefinitionError:
    """Name the argument whose type pydantic cannot validate or describe in JSON schema."""
    culprit = next((arg for arg, hint in hints.items() if arg != "return" and not _fits(hint)), "")
    where = f"argument {culprit!r}" if culprit else "an argument"
    reason = str(error).split("\n", 1)[0].split(". ", 1)[0]
    return ToolDefinitionError(
        f"tool {name!r}: {where} has an unsupported type ({reason}); use str, int, float, bool, "
        "Literal, an Enum, list, Optional, Path or a pydantic model"
    )


def takes_any_keywords(function: Callable[..., Any]) -> bool:
    """Whether the function takes only `**kwargs` (an MCP tool): no model can describe it."""
    kinds = {p.kind for p in inspect.signature(function).parameters.values()}
    return kinds == {inspect.Parameter.VAR_KEYWORD}


def _fits(hint: Any) -> bool:
    try:
        pydantic.TypeAdapter(hint).json_schema()
    except pydantic.PydanticUserError:
        return False
    return True


def _type_hints(function: Callable[..., Any], name: str) -> dict[str, Any]:
    try:
        return typing.get_type_hints(function, include_extras=True)
    except Exception as error:
        raise ToolDefinitionError(f"tool {name!r}: cannot resolve type hints: {error}") from None


def _check_parameter(parameter: inspect.Parameter, hints: Mapping[str, Any], name: str) -> None:
    where = f"tool {name!r}, argument {parameter.name!r}"
    if parameter.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
        raise ToolDefinitionError(f"{where}: *args and **kwargs cannot be described to a model")
    if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
        raise ToolDefinitionError(f"{where}: positional-only arguments are not supported")
    if parameter.name not in hints:
        raise ToolDefinitionError(f"{where}: needs a type annotation")
    if parameter.name.startswith("_"):
        raise ToolDefinitionError(f"{where}: names starting with '_' cannot be model fields")
