from datetime import timedelta

import pytest

from envcfg import parse_bool, parse_duration, parse_float, parse_int, parse_list, parse_size


@pytest.mark.parametrize(
    "text", ["1", "true", "True", "YES", "y", "on", pytest.param(" t ", id="padded")]
)
def test_parse_bool_true(text: str) -> None:
    assert parse_bool(text) is True


@pytest.mark.parametrize("text", ["0", "false", "FALSE", "no", "n", "off", "f"])
def test_parse_bool_false(text: str) -> None:
    assert parse_bool(text) is False


@pytest.mark.parametrize("text", [pytest.param("", id="empty"), "2", "maybe", "truthy"])
def test_parse_bool_invalid(text: str) -> None:
    with pytest.raises(ValueError):
        parse_bool(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("42", 42),
        ("-7", -7),
        ("010", 10),
        ("1_000_000", 1_000_000),
        ("0x1F", 31),
        ("0o17", 15),
        ("0b101", 5),
        ("-0x10", -16),
    ],
)
def test_parse_int(text: str, expected: int) -> None:
    assert parse_int(text) == expected


@pytest.mark.parametrize("text", [pytest.param("", id="empty"), "4.5", "ten", "0x"])
def test_parse_int_invalid(text: str) -> None:
    with pytest.raises(ValueError):
        parse_int(text)


def test_parse_float() -> None:
    assert parse_float("0.25") == 0.25
    assert parse_float("1e-3") == 0.001
    with pytest.raises(ValueError):
        parse_float("quarter")


def test_parse_list() -> None:
    assert parse_list("a,b,c") == ["a", "b", "c"]


def test_parse_list_separator() -> None:
    assert parse_list("a;b", sep=";") == ["a", "b"]


@pytest.mark.parametrize("text", [pytest.param("", id="empty"), pytest.param("   ", id="blank")])
def test_parse_list_empty(text: str) -> None:
    assert parse_list(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("90", timedelta(seconds=90)),
        ("2.5", timedelta(seconds=2.5)),
        ("45s", timedelta(seconds=45)),
        ("10m", timedelta(minutes=10)),
        ("1.5h", timedelta(minutes=90)),
        ("2d", timedelta(days=2)),
        ("1h30m", timedelta(hours=1, minutes=30)),
        pytest.param("1d 2h 3m 4s", timedelta(days=1, hours=2, minutes=3, seconds=4), id="spaced"),
        ("30s1m", timedelta(seconds=90)),
        ("1M", timedelta(minutes=1)),
    ],
)
def test_parse_duration(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        "h",
        "10x",
        "1h-30m",
        "m10",
        pytest.param("ten seconds", id="words"),
    ],
)
def test_parse_duration_invalid(text: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("512", 512),
        ("512b", 512),
        ("64k", 64_000),
        ("10MB", 10_000_000),
        pytest.param("10 mb", 10_000_000, id="spaced"),
        ("1KiB", 1024),
        ("1.5GiB", 1_610_612_736),
        ("2t", 2_000_000_000_000),
    ],
)
def test_parse_size(text: str, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize(
    "text",
    [pytest.param("", id="empty"), "MB", "1.5", "1.5b", pytest.param("12 parsecs", id="parsecs")],
)
def test_parse_size_invalid(text: str) -> None:
    with pytest.raises(ValueError):
        parse_size(text)
