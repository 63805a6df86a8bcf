import pytest

from textkit import char_width, display_width, pad, truncate


@pytest.mark.parametrize(
    ("char", "width"),
    [
        pytest.param("a", 1, id="ascii"),
        pytest.param("é", 1, id="latin"),
        pytest.param("\u0301", 0, id="combining"),
        pytest.param("\u200b", 0, id="zero-width-space"),
        pytest.param("\t", 0, id="control"),
        pytest.param("日", 2, id="cjk"),
        pytest.param("Ａ", 2, id="fullwidth"),
        pytest.param("ｱ", 1, id="halfwidth-katakana"),
    ],
)
def test_char_width(char: str, width: int) -> None:
    assert char_width(char) == width


def test_char_width_needs_one_character() -> None:
    with pytest.raises(ValueError):
        char_width("ab")


def test_display_width() -> None:
    assert display_width("abc") == 3
    assert display_width("日本語") == 6
    assert display_width("e\u0301") == 1
    assert display_width("") == 0


def test_pad_left() -> None:
    assert pad("ab", 5) == "ab   "


def test_pad_left_wide() -> None:
    assert pad("日本", 6) == "日本  "


def test_pad_right() -> None:
    assert pad("42", 5, "right") == "   42"


def test_pad_fillchar() -> None:
    assert pad("7", 3, "right", fillchar="0") == "007"


def test_pad_never_shortens() -> None:
    assert pad("abcdef", 3) == "abcdef"
    assert pad("abcdef", 3, "right") == "abcdef"


def test_pad_rejects_unknown_alignment() -> None:
    with pytest.raises(ValueError):
        pad("a", 3, "middle")


def test_pad_rejects_wide_fillchar() -> None:
    with pytest.raises(ValueError):
        pad("a", 3, fillchar="日")


def test_truncate_fits() -> None:
    assert truncate("hello", 5) == "hello"


def test_truncate_ascii() -> None:
    assert truncate("hello world", 8) == "hello w…"


def test_truncate_drops_trailing_space() -> None:
    assert truncate("hello world", 7) == "hello…"


def test_truncate_wide() -> None:
    assert truncate("日本語のテキスト", 7) == "日本語…"


def test_truncate_custom_placeholder() -> None:
    assert truncate("abcdefgh", 6, placeholder="...") == "abc..."


def test_truncate_too_narrow_for_placeholder() -> None:
    with pytest.raises(ValueError):
        truncate("abcdefgh", 2, placeholder="...")
