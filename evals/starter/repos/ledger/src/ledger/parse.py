"""Read journals written in a small plain-text format.

::

    ; Comments start with a semicolon.
    2024-01-05 Coffee beans
        expenses:food:coffee     12.50 EUR
        assets:bank

    2024-01-31 Salary
        assets:bank            3000.00 EUR  ; paid early
        income:salary         -3000.00 EUR

A transaction is a line with an ISO date and a description, followed by
indented postings: an account, then at least two spaces or a tab and an
amount. One posting per transaction may leave its amount out to receive
whatever balances the others.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Optional

from .journal import Journal, Posting, Transaction, UnbalancedTransaction, _totals
from .money import Money

__all__ = ["ParseError", "parse_journal"]

_HEADER = re.compile(r"(?P<date>\d{4}-\d{2}-\d{2})\s+(?P<description>\S.*)")
_POSTING = re.compile(r"(?P<account>\S+(?: \S+)*)(?:(?: {2,}|\t)\s*(?P<amount>\S.*))?")


class ParseError(ValueError):
    """A journal that cannot be read, with the line at fault."""

    def __init__(self, lineno: int, message: str) -> None:
        self.lineno = lineno
        super().__init__(f"line {lineno}: {message}")


class _Pending:
    """A transaction being read."""

    def __init__(self, lineno: int, when: date, description: str) -> None:
        self.lineno = lineno
        self.date = when
        self.description = description
        self.postings: list[Posting] = []
        self.open_account: Optional[str] = None

    def finish(self) -> Transaction:
        postings = list(self.postings)
        if self.open_account is not None:
            totals = _totals(p.amount for p in postings)
            if len(totals) != 1:
                raise ParseError(self.lineno, "an amount can be left out only with one currency")
            postings.append(Posting(self.open_account, -next(iter(totals.values()))))
        try:
            return Transaction(self.date, self.description, tuple(postings))
        except (UnbalancedTransaction, ValueError) as exc:
            raise ParseError(self.lineno, str(exc)) from None


def parse_journal(text: str) -> Journal:
    """Parse ``text`` into a :class:`~ledger.journal.Journal`."""
    journal = Journal()
    pending: Optional[_Pending] = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(";", 1)[0].rstrip()
        if not line:
            continue
        if not line[0].isspace():
            if pending is not None:
                journal.add(pending.finish())
            header = _HEADER.fullmatch(line)
            if not header:
                raise ParseError(lineno, "expected a date and a description")
            try:
                when = datetime.strptime(header.group("date"), "%Y-%m-%d")
            except ValueError:
                raise ParseError(lineno, f"invalid date {header.group('date')}") from None
            pending = _Pending(lineno, when, header.group("description"))
            continue
        if pending is None:
            raise ParseError(lineno, "posting outside a transaction")
        posting = _POSTING.fullmatch(line.strip())
        if not posting:
            raise ParseError(lineno, "expected an account and an amount")
        account, amount = posting.group("account"), posting.group("amount")
        if amount is None:
            if pending.open_account is not None:
                raise ParseError(lineno, "only one posting can leave its amount out")
            pending.open_account = account
            continue
        try:
            pending.postings.append(Posting(account, Money.parse(amount)))
        except ValueError as exc:
            raise ParseError(lineno, str(exc)) from None
    if pending is not None:
        journal.add(pending.finish())
    return journal
