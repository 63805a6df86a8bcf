from decimal import Decimal

import pytest

from ledger import CurrencyMismatch, Money, UnknownCurrency


def usd(amount: str) -> Money:
    return Money(Decimal(amount), "USD")


def test_construction_converts_and_rounds() -> None:
    assert Money("12.5", "usd") == Money(Decimal("12.50"), "USD")
    assert Money(3, "EUR").amount == Decimal("3.00")
    assert Money("0.125", "USD").amount == Decimal("0.12")
    assert Money("0.135", "USD").amount == Decimal("0.14")


def test_str() -> None:
    assert str(usd("1234.5")) == "1234.50 USD"


@pytest.mark.parametrize("bad", [1.5, True, None, "abc", "NaN", "Infinity"])
def test_construction_rejects(bad: object) -> None:
    with pytest.raises((TypeError, ValueError)):
        Money(bad, "USD")


def test_unknown_currency() -> None:
    with pytest.raises(UnknownCurrency):
        Money(1, "ABC")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("12.50 EUR", Money("12.50", "EUR"), id="amount-first"),
        pytest.param("EUR 12.50", Money("12.50", "EUR"), id="code-first"),
        pytest.param("-1,234.5 usd", Money("-1234.50", "USD"), id="grouped-negative"),
        pytest.param("  7 GBP ", Money("7", "GBP"), id="padded"),
        pytest.param(".5 CHF", Money("0.50", "CHF"), id="no-leading-digit"),
    ],
)
def test_parse(text: str, expected: Money) -> None:
    assert Money.parse(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("12.50", id="no-code"),
        pytest.param("EUR", id="no-amount"),
        pytest.param("12.50 EURO", id="long-code"),
        pytest.param("twelve EUR", id="words"),
    ],
)
def test_parse_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        Money.parse(text)


def test_arithmetic() -> None:
    assert usd("1.10") + usd("2.25") == usd("3.35")
    assert usd("1.10") - usd("2.25") == usd("-1.15")
    assert -usd("4") == usd("-4")
    assert abs(usd("-4")) == usd("4")
    assert usd("2.50") * 3 == usd("7.50")
    assert Decimal("0.5") * usd("0.25") == usd("0.12")


def test_sum() -> None:
    assert sum([usd("1"), usd("2"), usd("3.5")]) == usd("6.50")


def test_multiplying_by_float_is_refused() -> None:
    with pytest.raises(TypeError):
        usd("1") * 1.5


def test_comparison() -> None:
    assert usd("1") < usd("2")
    assert usd("2") >= usd("2")
    assert sorted([usd("3"), usd("-1"), usd("2")]) == [usd("-1"), usd("2"), usd("3")]


def test_truthiness() -> None:
    assert not Money.zero("USD")
    assert usd("0.01")


def test_mixing_currencies_is_refused() -> None:
    with pytest.raises(CurrencyMismatch):
        usd("1") + Money(1, "EUR")
    with pytest.raises(CurrencyMismatch):
        _ = usd("1") < Money(1, "EUR")


def test_allocate_evenly() -> None:
    assert usd("90").allocate([1, 1, 1]) == [usd("30")] * 3


def test_allocate_remainder_goes_first() -> None:
    assert usd("100").allocate([1, 1, 1]) == [usd("33.34"), usd("33.33"), usd("33.33")]


def test_allocate_by_weight() -> None:
    assert usd("10").allocate([70, 20, 10]) == [usd("7"), usd("2"), usd("1")]
    assert usd("0.05").allocate([3, 7]) == [usd("0.02"), usd("0.03")]


def test_allocate_skips_zero_ratios() -> None:
    assert usd("1.01").allocate([0, 1, 1]) == [usd("0"), usd("0.51"), usd("0.50")]


def test_allocate_decimal_ratios() -> None:
    assert usd("1").allocate([Decimal("0.5"), Decimal("0.25"), Decimal("0.25")]) == [
        usd("0.50"),
        usd("0.25"),
        usd("0.25"),
    ]


@pytest.mark.parametrize(
    "ratios",
    [
        pytest.param([], id="empty"),
        pytest.param([0, 0], id="zeros"),
        pytest.param([1, -1], id="negative"),
    ],
)
def test_allocate_rejects(ratios: list) -> None:
    with pytest.raises(ValueError):
        usd("1").allocate(ratios)
