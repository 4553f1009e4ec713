"""The model chip names a loaded catalog model as the catalog does, not by its GGUF's name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hearth.assistant import Assistant
from hearth.models import load_chat_model
from hearth.ui.chat.status import ModelStatus
from hearth.ui.context import UiContext


@pytest.mark.model
def test_the_chip_shows_the_catalog_name(qtbot: Any, test_gguf: Path) -> None:
    assistant = Assistant.open(load_chat_model(test_gguf, 1024), entry_points=False)
    context = UiContext(assistant)
    try:
        chip = ModelStatus(context)
        qtbot.addWidget(chip)
        chip.refresh()
        qtbot.waitUntil(lambda: chip.info is not None)
        assert chip.full_text().startswith("SmolLM2 135M Instruct · Q4_1 · ")
        assert "Smollm2 135M 8k" in chip.toolTip()  # the GGUF's own name stays in the details
    finally:
        context.shutdown()
        assistant.close()
