from decimal import Decimal

import pytest

from ledger import Currency, UnknownCurrency, get_currency, register_currency


def test_lookup_is_case_insensitive() -> None:
    assert get_currency("usd") == Currency("USD", 2, "$")


@pytest.mark.parametrize(
    ("code", "quantum"),
    [("USD", Decimal("0.01")), ("JPY", Decimal("1")), ("KWD", Decimal("0.001"))],
)
def test_quantum(code: str, quantum: Decimal) -> None:
    assert get_currency(code).quantum == quantum


def test_unknown_currency() -> None:
    with pytest.raises(UnknownCurrency, match="unknown currency: 'XYZ'"):
        get_currency("XYZ")


def test_register_currency() -> None:
    register_currency(Currency("XTS", 2))
    assert get_currency("xts").minor_units == 2


@pytest.mark.parametrize(
    "currency",
    [
        pytest.param(Currency("usd", 2), id="lowercase"),
        pytest.param(Currency("DOLLAR", 2), id="too-long"),
        pytest.param(Currency("XTS", -1), id="negative-units"),
    ],
)
def test_register_rejects_bad_currencies(currency: Currency) -> None:
    with pytest.raises(ValueError):
        register_currency(currency)
