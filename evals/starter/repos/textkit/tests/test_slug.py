import pytest

from textkit import slugify


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("Hello World", "hello-world", id="simple"),
        pytest.param("  Hello,   World!  ", "hello-world", id="punctuation"),
        pytest.param("Crème brûlée", "creme-brulee", id="accents"),
        pytest.param("Straße", "strasse", id="eszett"),
        pytest.param("Smørrebrød", "smorrebrod", id="o-slash"),
        pytest.param("Rock & Roll", "rock-and-roll", id="ampersand"),
        pytest.param("Don't stop", "dont-stop", id="apostrophe"),
        pytest.param("It’s here", "its-here", id="curly-apostrophe"),
        pytest.param("Python 3.12 released", "python-3-12-released", id="digits"),
        pytest.param("日本語", "", id="nothing-left"),
    ],
)
def test_slugify(text: str, expected: str) -> None:
    assert slugify(text) == expected


def test_custom_separator() -> None:
    assert slugify("Hello World", sep="_") == "hello_world"


def test_keep_case() -> None:
    assert slugify("Hello World", lowercase=False) == "Hello-World"


def test_max_length_cuts_mid_word() -> None:
    assert slugify("Hello World", max_length=8) == "hello-wo"


def test_max_length_longer_than_slug() -> None:
    assert slugify("Hello World", max_length=50) == "hello-world"


@pytest.mark.parametrize("bad", [0, -3])
def test_max_length_must_be_positive(bad: int) -> None:
    with pytest.raises(ValueError):
        slugify("Hello", max_length=bad)


def test_empty_separator_is_rejected() -> None:
    with pytest.raises(ValueError):
        slugify("Hello", sep="")
