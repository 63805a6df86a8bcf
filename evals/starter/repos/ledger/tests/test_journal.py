from datetime import date

import pytest

from ledger import Journal, Money, Posting, Transaction, UnbalancedTransaction


def eur(amount: str) -> Money:
    return Money(amount, "EUR")


def txn(day: int, description: str, *postings: tuple) -> Transaction:
    return Transaction(
        date(2024, 1, day),
        description,
        tuple(Posting(account, amount) for account, amount in postings),
    )


@pytest.fixture
def journal() -> Journal:
    return Journal(
        [
            txn(31, "Salary", ("assets:bank", eur("3000")), ("income:salary", eur("-3000"))),
            txn(
                5, "Coffee", ("expenses:food:coffee", eur("12.50")), ("assets:bank", eur("-12.50"))
            ),
            txn(
                12,
                "Groceries and cash",
                ("expenses:food:groceries", eur("54.20")),
                ("assets:cash", eur("40")),
                ("assets:bank", eur("-94.20")),
            ),
        ]
    )


def test_transactions_are_sorted_by_date(journal: Journal) -> None:
    assert [t.description for t in journal] == ["Coffee", "Groceries and cash", "Salary"]
    assert len(journal) == 3


def test_same_day_transactions_keep_their_order() -> None:
    first = txn(1, "first", ("a", eur("1")), ("b", eur("-1")))
    second = txn(1, "second", ("a", eur("2")), ("b", eur("-2")))
    assert [t.description for t in Journal([first, second])] == ["first", "second"]


def test_accounts(journal: Journal) -> None:
    assert journal.accounts() == [
        "assets:bank",
        "assets:cash",
        "expenses:food:coffee",
        "expenses:food:groceries",
        "income:salary",
    ]


def test_balance_includes_sub_accounts(journal: Journal) -> None:
    assert journal.balance("assets") == {"EUR": eur("2933.30")}
    assert journal.balance("expenses:food") == {"EUR": eur("66.70")}


def test_balance_does_not_match_name_prefixes(journal: Journal) -> None:
    assert journal.balance("assets:ban") == {}


def test_balance_as_of(journal: Journal) -> None:
    assert journal.balance("assets:bank", as_of=date(2024, 1, 12)) == {"EUR": eur("-106.70")}
    assert journal.balance("assets:bank", as_of=date(2024, 1, 4)) == {}


def test_balance_leaves_out_zeros() -> None:
    journal = Journal([txn(1, "in and out", ("a", eur("5")), ("a", eur("-5")))])
    assert journal.balance("a") == {}


def test_balance_per_currency() -> None:
    journal = Journal(
        [
            txn(1, "usd", ("a", Money(1, "USD")), ("b", Money(-1, "USD"))),
            txn(2, "eur", ("a", eur("2")), ("b", eur("-2"))),
        ]
    )
    assert journal.balance("a") == {"USD": Money(1, "USD"), "EUR": eur("2")}


def test_unbalanced_transaction() -> None:
    with pytest.raises(UnbalancedTransaction, match=r"off by 0\.01 EUR"):
        txn(1, "oops", ("a", eur("1")), ("b", eur("-0.99")))


def test_single_posting_is_unbalanced() -> None:
    with pytest.raises(UnbalancedTransaction):
        txn(1, "alone", ("a", eur("0")))


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("", id="empty"),
        pytest.param("assets:", id="empty-leaf"),
        pytest.param(":bank", id="empty-root"),
        pytest.param("assets: bank", id="padded-part"),
    ],
)
def test_invalid_account_names(name: str) -> None:
    with pytest.raises(ValueError):
        Posting(name, eur("1"))
