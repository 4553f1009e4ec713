"""Every page the main window lists opens on a real core, with its title."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from hearth.ui.context import UiContext
from hearth.ui.pages import PAGES


@pytest.mark.parametrize("page_class", PAGES, ids=lambda page: page.__name__)
def test_each_page_opens_with_its_title(qtbot: QtBot, context: UiContext, page_class: type) -> None:
    with qtbot.assertNotEmitted(context.errors.error_shown, wait=300):
        page = page_class(context)
        qtbot.addWidget(page)
        page.show()
    assert isinstance(page_class.title, str) and page_class.title


def test_the_pages_are_listed_in_navigation_order() -> None:
    assert [page.title for page in PAGES] == [
        "Permissions",
        "Activity",
        "Models",
        "Accounts",
        "Folders",
        "Plugins",
    ]
