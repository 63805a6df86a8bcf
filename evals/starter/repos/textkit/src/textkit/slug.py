"""URL slugs from arbitrary titles."""

from __future__ import annotations

import re
import unicodedata
from typing import Optional

__all__ = ["slugify"]

# Letters that Unicode decomposition does not reduce to ASCII.
_TRANSLITERATIONS = str.maketrans(
    {
        "ß": "ss",
        "æ": "ae",
        "Æ": "AE",
        "œ": "oe",
        "Œ": "OE",
        "ø": "o",
        "Ø": "O",
        "đ": "d",
        "Đ": "D",
        "ł": "l",
        "Ł": "L",
        "þ": "th",
        "Þ": "TH",
        "&": " and ",
    }
)
_APOSTROPHES = re.compile(r"['\u2019]")
_NON_ALNUM = re.compile(r"[^A-Za-z0-9]+")


def slugify(
    text: str,
    sep: str = "-",
    *,
    max_length: Optional[int] = None,
    lowercase: bool = True,
) -> str:
    """Turn ``text`` into a URL-safe slug.

    Accents are removed (``"Crème brûlée"`` becomes ``"creme-brulee"``), a few
    letters are transliterated (``"ß"`` becomes ``"ss"``), apostrophes vanish
    (``"Don't"`` becomes ``"dont"``) and every other run of characters that are
    not ASCII letters or digits becomes one ``sep``. The slug never starts or
    ends with ``sep``.

    ``max_length`` is a hard limit on the slug's length: a longer slug is cut
    at that many characters, even in the middle of a word.
    """
    if not sep:
        raise ValueError("sep must not be empty")
    if max_length is not None and max_length < 1:
        raise ValueError("max_length must be at least 1")
    text = _APOSTROPHES.sub("", text.translate(_TRANSLITERATIONS))
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    if lowercase:
        text = text.lower()
    slug = _NON_ALNUM.sub(sep, text).strip(sep)
    if max_length is not None:
        slug = slug[:max_length]
    return slug
