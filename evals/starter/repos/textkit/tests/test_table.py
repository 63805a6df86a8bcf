from decimal import Decimal

import pytest

from textkit import render_table


def test_basic_table() -> None:
    rows = [["apple", 3], ["banana", 12]]
    assert render_table(rows, headers=["fruit", "qty"]) == "\n".join(
        [
            "fruit   qty",
            "------  ---",
            "apple     3",
            "banana   12",
        ]
    )


def test_without_headers() -> None:
    assert render_table([["a", "bb"], ["ccc", "d"]]) == "a    bb\nccc  d"


def test_mixed_column_is_left_aligned() -> None:
    assert render_table([[1], ["x"], [22]]) == "1\nx\n22"


def test_numbers_of_all_kinds_are_right_aligned() -> None:
    assert render_table([[1.5], [Decimal("10.25")], [None], [7]]) == "  1.5\n10.25\n\n    7"


def test_none_and_booleans() -> None:
    assert render_table([["x", None, True], ["y", "z", False]]) == "x     yes\ny  z  no"


def test_short_rows_are_padded() -> None:
    assert render_table([["a", "b", "c"], ["d"]], headers=["h1", "h2"]) == "\n".join(
        [
            "h1  h2",
            "--  --  -",
            "a   b   c",
            "d",
        ]
    )


def test_align_override() -> None:
    assert render_table([["a"], ["bbb"]], align={0: "right"}) == "  a\nbbb"


def test_align_bad_column() -> None:
    with pytest.raises(IndexError):
        render_table([["a"]], align={3: "left"})


def test_align_bad_value() -> None:
    with pytest.raises(ValueError):
        render_table([["a"]], align={0: "middle"})


def test_max_width() -> None:
    rows = [["a very long description", 1]]
    assert render_table(rows, headers=["description", "n"], max_width=8) == "\n".join(
        [
            "descrip…  n",
            "--------  -",
            "a very…   1",
        ]
    )


def test_custom_separator() -> None:
    assert render_table([["a", "b"]], sep=" | ") == "a | b"


def test_empty() -> None:
    assert render_table([]) == ""
