"""Greedy word wrapping that counts terminal columns, not characters."""

from __future__ import annotations

import re
from typing import Any, Optional

from .width import char_width, display_width

__all__ = ["fill", "fill_paragraphs", "wrap"]

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")


def _split_at_width(word: str, width: int) -> tuple[str, str]:
    """Split ``word`` after as many characters as fit in ``width`` columns (at least one)."""
    used = 0
    for index, char in enumerate(word):
        used += char_width(char)
        if used > width:
            cut = max(index, 1)
            return word[:cut], word[cut:]
    return word, ""


def wrap(
    text: str,
    width: int = 70,
    *,
    indent: str = "",
    subsequent_indent: Optional[str] = None,
    break_long_words: bool = True,
) -> list[str]:
    """Wrap ``text`` into lines at most ``width`` terminal columns wide.

    Runs of whitespace, newlines included, collapse to single spaces. The first
    line starts with ``indent`` and the others with ``subsequent_indent``
    (which defaults to ``indent``). A word longer than a whole line is split
    across lines when ``break_long_words`` is true, and otherwise sticks out
    on a line of its own.
    """
    if subsequent_indent is None:
        subsequent_indent = indent
    if width <= max(display_width(indent), display_width(subsequent_indent)):
        raise ValueError("width must be larger than the indentation")

    lines: list[str] = []
    prefix = indent
    current: list[str] = []
    used = 0

    def flush() -> None:
        nonlocal prefix, current, used
        lines.append(prefix + " ".join(current))
        prefix = subsequent_indent
        current = []
        used = 0

    for word in text.split():
        size = display_width(word)
        if current and used + 1 + size <= width - display_width(prefix):
            current.append(word)
            used += 1 + size
            continue
        if current:
            flush()
        room = width - display_width(prefix)
        while break_long_words and size > room:
            head, word = _split_at_width(word, room)
            current = [head]
            flush()
            room = width - display_width(prefix)
            size = display_width(word)
        if word:
            current = [word]
            used = size
    if current:
        flush()
    return lines


def fill(text: str, width: int = 70, **options: Any) -> str:
    """Like :func:`wrap`, but return one string with the lines joined by newlines."""
    return "\n".join(wrap(text, width, **options))


def fill_paragraphs(text: str, width: int = 70, **options: Any) -> str:
    """Fill each blank-line-separated paragraph of ``text`` on its own."""
    paragraphs = [part for part in _PARAGRAPH_BREAK.split(text.strip()) if part.strip()]
    return "\n\n".join(fill(paragraph, width, **options) for paragraph in paragraphs)
