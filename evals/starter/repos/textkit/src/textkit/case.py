"""Convert identifiers and phrases between naming conventions."""

from __future__ import annotations

import re

__all__ = ["split_words", "to_camel", "to_constant", "to_kebab", "to_pascal", "to_snake"]

_SEPARATORS = re.compile(r"[^A-Za-z0-9]+")
_WORD = re.compile(r"[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+")


def split_words(text: str) -> list[str]:
    """Split an identifier or a phrase into its words.

    Understands snake_case, kebab-case, camelCase, PascalCase, CONSTANT_CASE
    and plain phrases. A run of capitals is an acronym and forms one word
    (``"HTTPServer"`` gives ``["HTTP", "Server"]``), and digits stay with the
    word before them (``"sha256Sum"`` gives ``["sha256", "Sum"]``). Only ASCII
    letters and digits form words; anything else separates them.
    """
    words: list[str] = []
    for chunk in _SEPARATORS.split(text):
        words.extend(_WORD.findall(chunk))
    return words


def to_snake(text: str) -> str:
    """Any input to ``snake_case``."""
    return "_".join(word.lower() for word in split_words(text))


def to_kebab(text: str) -> str:
    """Any input to ``kebab-case``."""
    return "-".join(word.lower() for word in split_words(text))


def to_constant(text: str) -> str:
    """Any input to ``CONSTANT_CASE``."""
    return "_".join(word.upper() for word in split_words(text))


def to_pascal(text: str) -> str:
    """Any input to ``PascalCase``; acronyms are capitalized like words (``HttpServer``)."""
    return "".join(word.capitalize() for word in split_words(text))


def to_camel(text: str) -> str:
    """Any input to ``camelCase``."""
    words = split_words(text)
    if not words:
        return ""
    return words[0].lower() + "".join(word.capitalize() for word in words[1:])
