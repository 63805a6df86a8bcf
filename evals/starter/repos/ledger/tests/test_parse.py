import pytest

from ledger import Money, ParseError, parse_journal

JOURNAL = """\
; January
2024-01-05 Coffee beans
    expenses:food:coffee     12.50 EUR
    assets:bank

2024-01-31 Salary  ; paid early
    assets:bank            3000.00 EUR
    income:salary         -3000.00 EUR
2024-01-12 Groceries
\texpenses:food\t54.20 EUR
\tassets:bank
"""


def test_parse_transactions() -> None:
    journal = parse_journal(JOURNAL)
    assert [t.description for t in journal] == ["Coffee beans", "Groceries", "Salary"]
    coffee = next(iter(journal))
    assert [(p.account, p.amount) for p in coffee.postings] == [
        ("expenses:food:coffee", Money("12.50", "EUR")),
        ("assets:bank", Money("-12.50", "EUR")),
    ]


def test_parse_balances() -> None:
    journal = parse_journal(JOURNAL)
    assert journal.balance("assets:bank") == {"EUR": Money("2933.30", "EUR")}
    assert journal.balance("expenses") == {"EUR": Money("66.70", "EUR")}


def test_dates_are_read() -> None:
    journal = parse_journal(JOURNAL)
    assert [f"{t.date:%d.%m.%Y}" for t in journal] == ["05.01.2024", "12.01.2024", "31.01.2024"]


def test_account_names_may_contain_single_spaces() -> None:
    journal = parse_journal("2024-02-01 Rent\n  expenses:flat rent  800 EUR\n  assets:bank\n")
    assert journal.accounts() == ["assets:bank", "expenses:flat rent"]


def test_several_currencies() -> None:
    text = (
        "2024-03-01 Exchange\n"
        "  assets:usd   110.00 USD\n"
        "  assets:eur  -100.00 EUR\n"
        "  equity:fx   -110.00 USD\n"
        "  equity:fx    100.00 EUR\n"
    )
    assert parse_journal(text).balance("equity") == {
        "USD": Money("-110", "USD"),
        "EUR": Money("100", "EUR"),
    }


def test_empty_journal() -> None:
    assert len(parse_journal("; nothing yet\n\n")) == 0


@pytest.mark.parametrize(
    ("text", "lineno"),
    [
        pytest.param("  assets:bank  1 EUR\n", 1, id="posting-first"),
        pytest.param("Jan 5 Coffee\n", 1, id="bad-header"),
        pytest.param("2024-02-30 Nope\n  a  1 EUR\n  b\n", 1, id="bad-date"),
        pytest.param("2024-01-01 X\n  a  1 EUR\n  b  -2 EUR\n", 1, id="unbalanced"),
        pytest.param("2024-01-01 X\n  a  1 EUR\n  b\n  c\n", 4, id="two-open"),
        pytest.param("2024-01-01 X\n  a  one EUR\n  b\n", 2, id="bad-amount"),
        pytest.param("2024-01-01 X\n  a  1 EUR\n  b  1 USD\n  c\n", 1, id="open-multi-currency"),
        pytest.param("2024-01-01 X\n  a  1 EUR\n", 1, id="one-posting"),
    ],
)
def test_errors(text: str, lineno: int) -> None:
    with pytest.raises(ParseError) as info:
        parse_journal(text)
    assert info.value.lineno == lineno
