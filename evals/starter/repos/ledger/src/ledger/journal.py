"""Transactions and the journal that holds them."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from typing import Optional

from .money import Money

__all__ = ["Journal", "Posting", "Transaction", "UnbalancedTransaction"]


class UnbalancedTransaction(ValueError):
    """A transaction whose postings do not add up to zero in every currency."""


@dataclass(frozen=True)
class Posting:
    """An amount booked to an account such as ``"assets:bank:checking"``."""

    account: str
    amount: Money

    def __post_init__(self) -> None:
        parts = self.account.split(":")
        if not all(part and part == part.strip() for part in parts):
            raise ValueError(f"invalid account name: {self.account!r}")

    def is_in(self, account: str) -> bool:
        """Whether this posting is to ``account`` or one of its sub-accounts."""
        return self.account == account or self.account.startswith(account + ":")


@dataclass(frozen=True)
class Transaction:
    """A dated, described set of postings that balances in every currency."""

    date: date
    description: str
    postings: tuple[Posting, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "postings", tuple(self.postings))
        if len(self.postings) < 2:
            raise UnbalancedTransaction(f"{self.description!r} needs at least two postings")
        for currency, total in _totals(p.amount for p in self.postings).items():
            if total:
                raise UnbalancedTransaction(
                    f"{self.description!r} is off by {total.amount} {currency}"
                )


def _totals(amounts: Iterable[Money]) -> dict[str, Money]:
    """Sum amounts per currency, in the order the currencies first appear."""
    totals: dict[str, Money] = {}
    for amount in amounts:
        totals[amount.currency] = totals.get(amount.currency, Money.zero(amount.currency)) + amount
    return totals


class Journal:
    """Transactions kept in date order (same-day ones in the order they were added)."""

    def __init__(self, transactions: Iterable[Transaction] = ()) -> None:
        self._transactions: list[Transaction] = []
        for transaction in transactions:
            self.add(transaction)

    def add(self, transaction: Transaction) -> None:
        index = bisect.bisect_right([t.date for t in self._transactions], transaction.date)
        self._transactions.insert(index, transaction)

    def __iter__(self) -> Iterator[Transaction]:
        return iter(self._transactions)

    def __len__(self) -> int:
        return len(self._transactions)

    def accounts(self) -> list[str]:
        """Every account that has a posting, sorted."""
        return sorted({p.account for t in self._transactions for p in t.postings})

    def postings(self, account: str, *, as_of: Optional[date] = None) -> Iterator[Posting]:
        """Postings to ``account`` and its sub-accounts, up to and including ``as_of``."""
        for transaction in self._transactions:
            if as_of is not None and transaction.date > as_of:
                break
            for posting in transaction.postings:
                if posting.is_in(account):
                    yield posting

    def balance(self, account: str, *, as_of: Optional[date] = None) -> dict[str, Money]:
        """The balance of ``account`` and its sub-accounts per currency, zeros left out."""
        totals = _totals(p.amount for p in self.postings(account, as_of=as_of))
        return {currency: total for currency, total in totals.items() if total}
