import pytest

from textkit import fill, fill_paragraphs, wrap

TEXT = "The quick brown fox jumps over the lazy dog"


def test_wrap_basic() -> None:
    assert wrap(TEXT, 15) == ["The quick brown", "fox jumps over", "the lazy dog"]


def test_wrap_collapses_whitespace() -> None:
    assert wrap("a  b\n\tc", 10) == ["a b c"]


def test_wrap_empty() -> None:
    assert wrap("   ", 10) == []


def test_wrap_indent() -> None:
    assert wrap(TEXT, 16, indent="* ", subsequent_indent="  ") == [
        "* The quick",
        "  brown fox",
        "  jumps over the",
        "  lazy dog",
    ]


def test_wrap_breaks_long_words() -> None:
    assert wrap("abcdefghij xy", 4) == ["abcd", "efgh", "ij", "xy"]


def test_wrap_keeps_long_words() -> None:
    assert wrap("a abcdefghij b", 4, break_long_words=False) == ["a", "abcdefghij", "b"]


def test_wrap_counts_wide_characters() -> None:
    assert wrap("日本語 の テキスト", 8) == ["日本語", "の", "テキスト"]


def test_wrap_width_must_exceed_indent() -> None:
    with pytest.raises(ValueError):
        wrap(TEXT, 2, indent="  ")


def test_fill() -> None:
    assert fill(TEXT, 20) == "The quick brown fox\njumps over the lazy\ndog"


def test_fill_paragraphs() -> None:
    text = "one two three\n\n  \nfour five\nsix"
    assert fill_paragraphs(text, 9) == "one two\nthree\n\nfour five\nsix"
