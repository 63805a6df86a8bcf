"""The currencies ledger knows, after ISO 4217."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Optional

__all__ = ["Currency", "UnknownCurrency", "get_currency", "register_currency"]


class UnknownCurrency(KeyError):
    """A currency code that is not registered."""

    def __str__(self) -> str:
        return f"unknown currency: {self.args[0]!r}"


@dataclass(frozen=True)
class Currency:
    """A currency: its ISO code, how many decimal places its minor unit has, its symbol."""

    code: str
    minor_units: int
    symbol: Optional[str] = None

    @property
    def quantum(self) -> Decimal:
        """The smallest amount of the currency: ``0.01`` for USD, ``1`` for JPY."""
        return Decimal(1).scaleb(-self.minor_units)


_REGISTRY: dict[str, Currency] = {}


def register_currency(currency: Currency) -> None:
    """Add ``currency`` to the registry, or replace the one with the same code."""
    if len(currency.code) != 3 or not currency.code.isalpha() or not currency.code.isupper():
        raise ValueError(f"currency codes are three capital letters, not {currency.code!r}")
    if currency.minor_units < 0:
        raise ValueError("minor_units must not be negative")
    _REGISTRY[currency.code] = currency


def get_currency(code: str) -> Currency:
    """The registered currency with ISO code ``code`` (in any case)."""
    try:
        return _REGISTRY[code.upper()]
    except KeyError:
        raise UnknownCurrency(code) from None


for _currency in (
    Currency("USD", 2, "$"),
    Currency("EUR", 2, "€"),
    Currency("GBP", 2, "£"),
    Currency("CHF", 2),
    Currency("CAD", 2),
    Currency("JPY", 0, "¥"),
    Currency("KRW", 0, "₩"),
    Currency("KWD", 3),
    Currency("BHD", 3),
):
    register_currency(_currency)
