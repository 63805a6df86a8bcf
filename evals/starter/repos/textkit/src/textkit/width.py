"""Display width of text in a monospaced terminal.

East Asian wide and fullwidth characters take two columns, combining marks,
format and control characters take none, and everything else takes one.
"""

from __future__ import annotations

import unicodedata

__all__ = ["char_width", "display_width", "pad", "truncate"]

_ZERO_WIDTH_CATEGORIES = frozenset({"Mn", "Me", "Cf", "Cc"})
_WIDE = frozenset({"W", "F"})


def char_width(char: str) -> int:
    """Return the number of terminal columns ``char`` occupies: 0, 1 or 2."""
    if len(char) != 1:
        raise ValueError(f"expected a single character, got {char!r}")
    if unicodedata.category(char) in _ZERO_WIDTH_CATEGORIES:
        return 0
    if unicodedata.east_asian_width(char) in _WIDE:
        return 2
    return 1


def display_width(text: str) -> int:
    """Return the number of terminal columns ``text`` occupies."""
    return sum(char_width(char) for char in text)


def pad(text: str, width: int, align: str = "left", fillchar: str = " ") -> str:
    """Pad ``text`` with ``fillchar`` to ``width`` display columns.

    ``align`` is ``"left"`` (text first, then the padding) or ``"right"``.
    Text that is already ``width`` columns or wider is returned unchanged.
    """
    if len(fillchar) != 1 or char_width(fillchar) != 1:
        raise ValueError("fillchar must be a single one-column character")
    if align == "left":
        missing = width - display_width(text)
        return text + fillchar * max(missing, 0)
    if align == "right":
        return text.rjust(width, fillchar)
    raise ValueError(f"unknown alignment: {align!r}")


def truncate(text: str, width: int, placeholder: str = "…") -> str:
    """Shorten ``text`` to at most ``width`` display columns.

    Text that fits is returned unchanged. Otherwise as many characters as fit
    are kept, trailing whitespace is dropped and ``placeholder`` is appended,
    so that the result, placeholder included, is at most ``width`` columns.
    """
    if display_width(text) <= width:
        return text
    budget = width - display_width(placeholder)
    if budget < 0:
        raise ValueError(f"width {width} cannot hold the placeholder {placeholder!r}")
    kept: list[str] = []
    used = 0
    for char in text:
        columns = char_width(char)
        if used + columns > budget:
            break
        kept.append(char)
        used += columns
    return "".join(kept).rstrip() + placeholder
