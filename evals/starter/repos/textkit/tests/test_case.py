import pytest

from textkit import split_words, to_camel, to_constant, to_kebab, to_pascal, to_snake


@pytest.mark.parametrize(
    ("text", "words"),
    [
        pytest.param("hello_world", ["hello", "world"], id="snake"),
        pytest.param("hello-world", ["hello", "world"], id="kebab"),
        pytest.param("helloWorld", ["hello", "World"], id="camel"),
        pytest.param("HelloWorld", ["Hello", "World"], id="pascal"),
        pytest.param("HELLO_WORLD", ["HELLO", "WORLD"], id="constant"),
        pytest.param("  hello   world ", ["hello", "world"], id="phrase"),
        pytest.param("userID", ["user", "ID"], id="trailing-acronym"),
        pytest.param("sha256Sum", ["sha256", "Sum"], id="digits"),
        pytest.param("version2", ["version2"], id="trailing-digits"),
        pytest.param("2fast", ["2", "fast"], id="leading-digits"),
        pytest.param("", [], id="empty"),
    ],
)
def test_split_words(text: str, words: list[str]) -> None:
    assert split_words(text) == words


def test_to_snake() -> None:
    assert to_snake("helloWorldAgain") == "hello_world_again"


def test_to_kebab() -> None:
    assert to_kebab("Hello World") == "hello-world"


def test_to_constant() -> None:
    assert to_constant("maxRetryCount") == "MAX_RETRY_COUNT"


def test_to_pascal() -> None:
    assert to_pascal("user_id") == "UserId"


def test_to_camel() -> None:
    assert to_camel("HELLO_WORLD") == "helloWorld"


def test_to_camel_empty() -> None:
    assert to_camel("--") == ""


@pytest.mark.parametrize("convert", [to_snake, to_kebab, to_camel, to_pascal, to_constant])
def test_round_trip_through_snake(convert) -> None:
    assert to_snake(convert("retry_after_seconds")) == "retry_after_seconds"
