"""Parsers that turn the text of an environment variable into a Python value.

Each one takes a string and returns the value, or raises :class:`ValueError`
with a short reason.
"""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal, InvalidOperation

__all__ = ["parse_bool", "parse_duration", "parse_float", "parse_int", "parse_list", "parse_size"]

_TRUE = frozenset({"1", "true", "t", "yes", "y", "on"})
_FALSE = frozenset({"0", "false", "f", "no", "n", "off"})

_NUMBER = r"\d+(?:\.\d+)?"
_DURATION_PART = re.compile(rf"({_NUMBER})(d|h|m|s|ms)")
_DURATION_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}

_SIZE = re.compile(rf"({_NUMBER})\s*(?:([kmgt])(i?)b?|b)?", re.IGNORECASE)
_SIZE_POWERS = {"k": 1, "m": 2, "g": 3, "t": 4}


def parse_bool(value: str) -> bool:
    """``1/true/t/yes/y/on`` and ``0/false/f/no/n/off``, in any case."""
    text = value.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"not a boolean: {value!r}")


def parse_int(value: str) -> int:
    """A decimal integer, or hexadecimal/octal/binary with a ``0x``/``0o``/``0b`` prefix.

    Underscores may group digits (``1_000_000``).
    """
    text = value.strip().lower()
    digits = text.lstrip("+-")
    base = 0 if digits[:2] in ("0x", "0o", "0b") else 10
    try:
        return int(text, base)
    except ValueError:
        raise ValueError(f"not an integer: {value!r}") from None


def parse_float(value: str) -> float:
    """A decimal number such as ``0.25``, ``1e-3`` or ``inf``."""
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"not a number: {value!r}") from None


def parse_list(value: str, sep: str = ",") -> list[str]:
    """Split ``value`` on ``sep``. An empty or blank value is an empty list."""
    if not value.strip():
        return []
    return value.split(sep)


def parse_duration(value: str) -> timedelta:
    """A duration such as ``90``, ``1.5h``, ``1h30m`` or ``250ms``.

    A bare number counts seconds. Otherwise the value is one or more
    number-and-unit parts, largest unit first or not, with the units ``d``,
    ``h``, ``m``, ``s`` and ``ms``. Case and spaces between the parts do not
    matter.
    """
    text = value.strip().lower().replace(" ", "")
    if re.fullmatch(_NUMBER, text):
        return timedelta(seconds=float(text))
    seconds = 0.0
    position = 0
    for match in _DURATION_PART.finditer(text):
        if match.start() != position:
            break
        seconds += float(match.group(1)) * _DURATION_UNITS[match.group(2)]
        position = match.end()
    if position == 0 or position != len(text):
        raise ValueError(f"invalid duration {value!r}")
    return timedelta(seconds=seconds)


def parse_size(value: str) -> int:
    """A size in bytes such as ``512``, ``64k``, ``10MB`` or ``1.5GiB``.

    ``k``, ``m``, ``g`` and ``t`` are powers of 1000, and powers of 1024 with
    an ``i`` (``KiB``). The ``b`` is optional and case does not matter. The
    result must be a whole number of bytes.
    """
    match = _SIZE.fullmatch(value.strip())
    if not match:
        raise ValueError(f"invalid size {value!r}")
    number, prefix, binary = match.groups()
    multiplier = 1
    if prefix:
        multiplier = (1024 if binary else 1000) ** _SIZE_POWERS[prefix.lower()]
    try:
        size = Decimal(number) * multiplier
    except InvalidOperation:  # pragma: no cover - the pattern only lets numbers through
        raise ValueError(f"invalid size {value!r}") from None
    if size != size.to_integral_value():
        raise ValueError(f"not a whole number of bytes: {value!r}")
    return int(size)
