"""Amounts of money in one currency, with exact decimal arithmetic."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, Decimal, InvalidOperation
from functools import total_ordering
from typing import Union

from .currency import get_currency

__all__ = ["CurrencyMismatch", "Money"]

CENT = Decimal("0.01")

_AMOUNT_FIRST = re.compile(r"(?P<amount>[-+]?[\d,]*\.?\d+)\s+(?P<code>[A-Za-z]{3})")
_CODE_FIRST = re.compile(r"(?P<code>[A-Za-z]{3})\s+(?P<amount>[-+]?[\d,]*\.?\d+)")


class CurrencyMismatch(ValueError):
    """Arithmetic or comparison between amounts in different currencies."""


@total_ordering
@dataclass(frozen=True)
class Money:
    """An amount in a currency, rounded to the currency's smallest unit.

    ``amount`` may be given as a :class:`~decimal.Decimal`, an ``int`` or a
    string; floats are refused because they cannot hold most decimal amounts
    exactly. Amounts are rounded half to even.
    """

    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        amount = self.amount
        if isinstance(amount, (float, bool)):
            raise TypeError(f"amounts must be Decimal, int or str, not {type(amount).__name__}")
        try:
            amount = Decimal(amount)
        except (InvalidOperation, TypeError):
            raise ValueError(f"invalid amount: {self.amount!r}") from None
        if not amount.is_finite():
            raise ValueError(f"invalid amount: {self.amount!r}")
        code = get_currency(self.currency).code
        object.__setattr__(self, "currency", code)
        object.__setattr__(self, "amount", amount.quantize(CENT, rounding=ROUND_HALF_EVEN))

    @classmethod
    def zero(cls, currency: str) -> Money:
        return cls(Decimal(0), currency)

    @classmethod
    def parse(cls, text: str) -> Money:
        """Read ``"12.50 EUR"``, ``"EUR 12.50"`` or ``"-1,234.5 USD"``."""
        stripped = text.strip()
        match = _AMOUNT_FIRST.fullmatch(stripped) or _CODE_FIRST.fullmatch(stripped)
        if not match:
            raise ValueError(f"not an amount of money: {text!r}")
        return cls(match.group("amount").replace(",", ""), match.group("code"))

    def _check(self, other: Money) -> None:
        if self.currency != other.currency:
            raise CurrencyMismatch(f"cannot combine {self.currency} and {other.currency}")

    def __add__(self, other: object) -> Money:
        if not isinstance(other, Money):
            return NotImplemented
        self._check(other)
        return Money(self.amount + other.amount, self.currency)

    def __radd__(self, other: object) -> Money:
        # Lets sum() start from its default 0.
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented

    def __sub__(self, other: object) -> Money:
        if not isinstance(other, Money):
            return NotImplemented
        self._check(other)
        return Money(self.amount - other.amount, self.currency)

    def __mul__(self, factor: object) -> Money:
        if isinstance(factor, bool) or not isinstance(factor, (int, Decimal)):
            return NotImplemented
        return Money(self.amount * factor, self.currency)

    __rmul__ = __mul__

    def __neg__(self) -> Money:
        return Money(-self.amount, self.currency)

    def __abs__(self) -> Money:
        return Money(abs(self.amount), self.currency)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Money):
            return NotImplemented
        self._check(other)
        return self.amount < other.amount

    def __bool__(self) -> bool:
        return bool(self.amount)

    def __str__(self) -> str:
        return f"{self.amount} {self.currency}"

    def allocate(self, ratios: Sequence[Union[int, Decimal]]) -> list[Money]:
        """Split into parts proportional to ``ratios`` that add up exactly to this amount.

        Each part is first rounded towards zero to the smallest unit; the units
        left over then go one each to the first parts with a non-zero ratio, so
        ``Money("100.00", "USD").allocate([1, 1, 1])`` gives 33.34, 33.33 and
        33.33.
        """
        if not ratios:
            raise ValueError("allocate needs at least one ratio")
        if any(ratio < 0 for ratio in ratios):
            raise ValueError("ratios must not be negative")
        total = sum(ratios)
        if total == 0:
            raise ValueError("ratios must not all be zero")
        parts = [
            (self.amount * ratio / total).quantize(CENT, rounding=ROUND_DOWN) for ratio in ratios
        ]
        remainder = self.amount - sum(parts)
        for index, ratio in enumerate(ratios):
            if remainder < CENT:
                break
            if ratio > 0:
                parts[index] += CENT
                remainder -= CENT
        return [Money(part, self.currency) for part in parts]
