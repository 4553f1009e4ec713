"""`ToolResult`: the base of a tool's typed result, whose JSON is what the model reads."""

from __future__ import annotations

from typing import Any, ClassVar

import pydantic


class ToolResult(pydantic.BaseModel):
    """Frozen; the fields named in `omitted_when_empty` are left out of the JSON while empty
    (None, "", [] or False), so the model reads only what it can use. Undo gets the same type
    back, even after a restart read it from disk."""

    model_config = pydantic.ConfigDict(frozen=True)
    omitted_when_empty: ClassVar[frozenset[str]] = frozenset({"note"})

    @pydantic.model_serializer(mode="wrap")
    def _without_empty_notes(self, handler: pydantic.SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        return {
            key: value
            for key, value in data.items()
            if key not in self.omitted_when_empty or value not in (None, [], "", False)
        }
