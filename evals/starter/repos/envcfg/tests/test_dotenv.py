import pytest

from envcfg import DotenvError, load_dotenv_file, parse_dotenv


def parse(text: str, **environ: str) -> dict:
    return parse_dotenv(text, environ=environ)


def test_basic() -> None:
    assert parse("A=1\nB = two words \n") == {"A": "1", "B": "two words"}


def test_blank_lines_and_comments() -> None:
    assert parse("\n# a comment\n   # indented comment\nA=1\n\n") == {"A": "1"}


def test_export_prefix() -> None:
    assert parse("export A=1\nexport\tB=2") == {"A": "1", "B": "2"}


def test_empty_value() -> None:
    assert parse("A=\nB=''") == {"A": "", "B": ""}


def test_inline_comment() -> None:
    assert parse("A=value # the value\nB=x\t# tab before") == {"A": "value", "B": "x"}


def test_single_quotes_are_literal() -> None:
    assert parse(r"A='a \n ${B} # not a comment'") == {"A": r"a \n ${B} # not a comment"}


def test_double_quote_escapes() -> None:
    text = r'A="line1\nline2\ttab \"quoted\" back\\slash \$HOME"'
    assert parse(text) == {"A": 'line1\nline2\ttab "quoted" back\\slash $HOME'}


def test_double_quotes_keep_hash_and_spaces() -> None:
    assert parse('A="  # kept  "  # dropped') == {"A": "  # kept  "}


def test_value_with_equals_sign() -> None:
    assert parse("URL=postgres://u@h/db?sslmode=require") == {
        "URL": "postgres://u@h/db?sslmode=require"
    }


def test_interpolation_from_file() -> None:
    text = "HOST=db\nPORT=5432\nURL=postgres://${HOST}:${PORT}/app"
    assert parse(text)["URL"] == "postgres://db:5432/app"


def test_interpolation_from_environment() -> None:
    assert parse('GREETING="hi ${USER}"', USER="ada") == {"GREETING": "hi ada"}


def test_interpolation_prefers_file() -> None:
    assert parse("USER=file\nX=${USER}", USER="env")["X"] == "file"


def test_interpolation_default() -> None:
    assert parse("A=${MISSING:-fallback}\nB=${EMPTY:-fallback}", EMPTY="") == {
        "A": "fallback",
        "B": "fallback",
    }


def test_interpolation_unknown_is_empty() -> None:
    assert parse("A=x${MISSING}y") == {"A": "xy"}


def test_later_keys_win() -> None:
    assert parse("A=1\nA=2") == {"A": "2"}


@pytest.mark.parametrize(
    ("text", "lineno"),
    [
        pytest.param("A=1\nnot a pair", 2, id="no-equals"),
        pytest.param("1A=x", 1, id="bad-key"),
        pytest.param('A="open', 1, id="unterminated"),
        pytest.param("\n\nA='x' y", 3, id="text-after-quote"),
    ],
)
def test_errors(text: str, lineno: int) -> None:
    with pytest.raises(DotenvError) as info:
        parse(text)
    assert info.value.lineno == lineno


def test_load_file(tmp_path) -> None:
    path = tmp_path / ".env"
    path.write_text("# settings\nNAME=café\n", encoding="utf-8")
    assert load_dotenv_file(path, environ={}) == {"NAME": "café"}


def test_error_names_the_file(tmp_path) -> None:
    path = tmp_path / "broken.env"
    path.write_text("oops\n", encoding="utf-8")
    with pytest.raises(DotenvError, match=r"broken\.env:1"):
        load_dotenv_file(path, environ={})
