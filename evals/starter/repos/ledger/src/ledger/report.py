"""Human-readable amounts and reports."""

from __future__ import annotations

from datetime import date
from typing import Optional

from .currency import get_currency
from .journal import Journal
from .money import Money

__all__ = ["balance_report", "format_money"]


def format_money(money: Money, *, symbol: bool = True, grouping: bool = True) -> str:
    """Format ``money`` for people: ``$1,234.50``, ``-€3.00`` or ``12.00 CHF``.

    The currency's symbol goes in front when it has one and ``symbol`` is true;
    otherwise the code follows the number. ``grouping`` puts commas between
    thousands.
    """
    currency = get_currency(money.currency)
    number = f"{abs(money.amount):{',' if grouping else ''}.2f}"
    sign = "-" if money.amount < 0 else ""
    if symbol and currency.symbol:
        return f"{sign}{currency.symbol}{number}"
    return f"{sign}{number} {currency.code}"


def _rollup(account: str, depth: Optional[int]) -> str:
    return account if depth is None else ":".join(account.split(":")[:depth])


def balance_report(
    journal: Journal,
    *,
    as_of: Optional[date] = None,
    depth: Optional[int] = None,
) -> str:
    """One line per account and currency with a non-zero balance, accounts sorted.

    With ``depth``, accounts are rolled up to that many levels (``depth=1``
    reports ``assets`` rather than ``assets:bank`` and ``assets:cash``).
    Amounts are right-aligned.
    """
    if depth is not None and depth < 1:
        raise ValueError("depth must be at least 1")
    accounts = sorted({_rollup(account, depth) for account in journal.accounts()})
    rows: list[tuple[str, str]] = []
    for account in accounts:
        balances = journal.balance(account, as_of=as_of)
        rows.extend((account, format_money(balances[code])) for code in sorted(balances))
    if not rows:
        return ""
    account_width = max(len(account) for account, _ in rows)
    amount_width = max(len(amount) for _, amount in rows)
    return "\n".join(
        f"{account:<{account_width}}  {amount:>{amount_width}}" for account, amount in rows
    )
