from datetime import date

import pytest

from ledger import Journal, Money, Posting, Transaction, balance_report, format_money


@pytest.mark.parametrize(
    ("money", "expected"),
    [
        pytest.param(Money("1234.5", "USD"), "$1,234.50", id="usd"),
        pytest.param(Money("-3", "EUR"), "-€3.00", id="negative"),
        pytest.param(Money("0", "GBP"), "£0.00", id="zero"),
        pytest.param(Money("1234567.891", "CHF"), "1,234,567.89 CHF", id="no-symbol"),
    ],
)
def test_format_money(money: Money, expected: str) -> None:
    assert format_money(money) == expected


def test_format_money_without_symbol() -> None:
    assert format_money(Money("9.99", "USD"), symbol=False) == "9.99 USD"


def test_format_money_without_grouping() -> None:
    assert format_money(Money("-1234.5", "EUR"), grouping=False) == "-€1234.50"


def _journal() -> Journal:
    def txn(day: int, *postings: tuple[str, str]) -> Transaction:
        return Transaction(
            date(2024, 1, day),
            f"day {day}",
            tuple(Posting(account, Money.parse(amount)) for account, amount in postings),
        )

    return Journal(
        [
            txn(1, ("assets:bank", "1000 EUR"), ("income:salary", "-1000 EUR")),
            txn(2, ("expenses:food", "12.5 EUR"), ("assets:cash", "-12.5 EUR")),
            txn(3, ("assets:cash", "50 EUR"), ("assets:bank", "-50 EUR")),
            txn(4, ("assets:bank", "20 USD"), ("income:gifts", "-20 USD")),
        ]
    )


def test_balance_report() -> None:
    assert balance_report(_journal()) == "\n".join(
        [
            "assets:bank       €950.00",
            "assets:bank        $20.00",
            "assets:cash        €37.50",
            "expenses:food      €12.50",
            "income:gifts      -$20.00",
            "income:salary  -€1,000.00",
        ]
    )


def test_balance_report_depth() -> None:
    assert balance_report(_journal(), depth=1) == "\n".join(
        [
            "assets       €987.50",
            "assets        $20.00",
            "expenses      €12.50",
            "income    -€1,000.00",
            "income       -$20.00",
        ]
    )


def test_balance_report_as_of() -> None:
    assert balance_report(_journal(), as_of=date(2024, 1, 1)) == "\n".join(
        [
            "assets:bank     €1,000.00",
            "income:salary  -€1,000.00",
        ]
    )


def test_balance_report_empty() -> None:
    assert balance_report(Journal()) == ""


def test_balance_report_bad_depth() -> None:
    with pytest.raises(ValueError):
        balance_report(_journal(), depth=0)
