"""ledger: exact money arithmetic and a tiny plain-text double-entry journal."""

from .currency import Currency, UnknownCurrency, get_currency, register_currency
from .journal import Journal, Posting, Transaction, UnbalancedTransaction
from .money import CurrencyMismatch, Money
from .parse import ParseError, parse_journal
from .report import balance_report, format_money

__version__ = "0.1.0"

__all__ = [
    "Currency",
    "CurrencyMismatch",
    "Journal",
    "Money",
    "ParseError",
    "Posting",
    "Transaction",
    "UnbalancedTransaction",
    "UnknownCurrency",
    "balance_report",
    "format_money",
    "get_currency",
    "parse_journal",
    "register_currency",
]
