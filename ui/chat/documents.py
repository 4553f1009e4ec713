"""Laid-out text for transcript rows, kept until the row's text, the width or the theme changes.

The view asks every row for its size on each relayout; only rows that changed (the one being
streamed) pay for a new layout.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QPainter,
    QPalette,
    QTextBlock,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextOption,
)

from hearth.ui import theme
from hearth.ui.chat.entries import Entry


class TextLayouts:
    """One QTextDocument per (row, part), rebuilt only when the row's version or width moves."""

    def __init__(self) -> None:
        self._documents: dict[tuple[int, str], tuple[tuple[object, ...], QTextDocument]] = {}

    def plain(self, entry: Entry, part: str, text: str, font: QFont, width: int) -> QTextDocument:
        return self._get(entry, part, text, font, width, markdown=False)

    def markdown(
        self, entry: Entry, part: str, text: str, font: QFont, width: int
    ) -> QTextDocument:
        return self._get(entry, part, text, font, width, markdown=True)

    def forget(self, keep: set[int]) -> None:
        """Drop layouts of rows that are gone (after the transcript was replaced)."""
        self._documents = {k: v for k, v in self._documents.items() if k[0] in keep}

    def _get(
        self, entry: Entry, part: str, text: str, font: QFont, width: int, *, markdown: bool
    ) -> QTextDocument:
        key = (entry.id, part)
        stamp = (entry.version, width, font.key(), theme.current().name)
        cached = self._documents.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        document = ReplyDocument()
        document.setDocumentMargin(0)
        document.setDefaultFont(font)
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        document.setDefaultTextOption(option)
        if markdown:
            document.setMarkdown(text, REPLY_MARKDOWN)
            drop_images(document)
            space_paragraphs(document)
            shade_code(document, theme.current().color("code_bg"))
        else:
            document.setPlainText(text)
        document.setTextWidth(max(width, 10))
        self._documents[key] = (stamp, document)
        return document


# GitHub Markdown with raw HTML shown as text: a reply can never style itself like Hearth.
REPLY_MARKDOWN = QTextDocument.MarkdownFeature(
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value
    | QTextDocument.MarkdownFeature.MarkdownNoHTML.value
)


class ReplyDocument(QTextDocument):
    """A document that loads nothing: a reply's `![](…)` must not read files or draw pictures."""

    def loadResource(self, type: int, name: QUrl | str) -> Any:
        return None


def drop_images(document: QTextDocument) -> None:
    """Replace each Markdown image with its address in words, so nothing is drawn or loaded."""
    block = document.begin()
    while block.isValid():
        iterator = block.begin()
        images = []
        while not iterator.atEnd():
            fragment = iterator.fragment()
            if fragment.isValid() and fragment.charFormat().isImageFormat():
                name = fragment.charFormat().toImageFormat().name()
                images.append((fragment.position(), fragment.length(), name))
            iterator += 1
        for position, length, name in reversed(images):
            cursor = QTextCursor(document)
            cursor.setPosition(position)
            cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
            cursor.insertText(f"[image: {name}]", QTextCharFormat())
        block = block.next()


PARAGRAPH_GAP = 8
LIST_ITEM_GAP = 2


def space_paragraphs(document: QTextDocument) -> None:
    """Air between paragraphs, lists and code, but list items kept close together."""
    block = document.begin()
    while block.isValid():
        following = block.next()
        spaced = QTextBlockFormat()
        spaced.setTopMargin(0)
        if _is_code(block):
            spaced.setBottomMargin(
                0 if following.isValid() and _is_code(following) else PARAGRAPH_GAP
            )
        elif (
            block.textList() is not None
            and following.isValid()
            and following.textList() is block.textList()
        ):
            spaced.setBottomMargin(LIST_ITEM_GAP)
        else:
            spaced.setBottomMargin(PARAGRAPH_GAP if following.isValid() else 0)
        QTextCursor(block).mergeBlockFormat(spaced)
        block = following


def _is_code(block: QTextBlock) -> bool:
    return block.blockFormat().hasProperty(QTextFormat.Property.BlockCodeFence)


def shade_code(document: QTextDocument, background: QColor) -> None:
    """Give code blocks and inline code a background, as chat apps do."""
    block = document.begin()
    while block.isValid():
        cursor = QTextCursor(block)
        if _is_code(block):
            shaded = QTextBlockFormat()
            shaded.setBackground(background)
            cursor.mergeBlockFormat(shaded)
        else:
            _shade_inline_code(block, background)
        block = block.next()


def _shade_inline_code(block: QTextBlock, background: QColor) -> None:
    iterator = block.begin()
    while not iterator.atEnd():
        fragment = iterator.fragment()
        if fragment.isValid() and fragment.charFormat().fontFixedPitch():
            cursor = QTextCursor(block.document())
            cursor.setPosition(fragment.position())
            cursor.setPosition(
                fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor
            )
            shaded = QTextCharFormat()
            shaded.setBackground(background)
            cursor.mergeCharFormat(shaded)
        iterator += 1


def draw_document(
    painter: QPainter, document: QTextDocument, x: float, y: float, colour: QColor
) -> None:
    """Draw `document` with its top-left at (x, y) in `colour`."""
    painter.save()
    painter.translate(x, y)
    context = QAbstractTextDocumentLayout.PaintContext()
    palette = QPalette(context.palette)
    palette.setColor(QPalette.ColorRole.Text, colour)
    context.palette = palette
    document.documentLayout().draw(painter, context)
    painter.restore()
