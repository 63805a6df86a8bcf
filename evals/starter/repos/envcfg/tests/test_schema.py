import dataclasses
import enum
from datetime import timedelta
from pathlib import Path

import pytest

from envcfg import InvalidValue, MissingVariable, describe, load, setting


class Level(enum.Enum):
    DEBUG = 10
    INFO = 20


@dataclasses.dataclass
class Settings:
    database_url: str
    debug: bool = False
    workers: int = 4
    ratio: float = 0.5
    timeout: timedelta = timedelta(seconds=30)
    level: Level = Level.INFO
    data_dir: Path = Path("/var/lib/app")
    api_key: str = setting("", env="SERVICE_API_KEY", secret=True, help="Key for the upstream API")


def test_defaults() -> None:
    settings = load(Settings, {"APP_DATABASE_URL": "sqlite://"}, prefix="APP_")
    assert settings == Settings(database_url="sqlite://")


def test_every_type() -> None:
    environ = {
        "APP_DATABASE_URL": "postgres://db/app",
        "APP_DEBUG": "yes",
        "APP_WORKERS": "0x10",
        "APP_RATIO": "0.75",
        "APP_TIMEOUT": "1m30s",
        "APP_LEVEL": "debug",
        "APP_DATA_DIR": "/srv/data",
        "SERVICE_API_KEY": "k3y",
    }
    assert load(Settings, environ, prefix="APP_") == Settings(
        database_url="postgres://db/app",
        debug=True,
        workers=16,
        ratio=0.75,
        timeout=timedelta(seconds=90),
        level=Level.DEBUG,
        data_dir=Path("/srv/data"),
        api_key="k3y",
    )


def test_enum_by_value() -> None:
    settings = load(Settings, {"DATABASE_URL": "x", "LEVEL": "10"})
    assert settings.level is Level.DEBUG


def test_missing_required() -> None:
    with pytest.raises(MissingVariable) as info:
        load(Settings, {}, prefix="APP_")
    assert info.value.name == "APP_DATABASE_URL"


def test_invalid_value() -> None:
    with pytest.raises(InvalidValue) as info:
        load(Settings, {"DATABASE_URL": "x", "WORKERS": "many"})
    assert info.value.name == "WORKERS"
    assert str(info.value) == "WORKERS='many': not an integer: 'many'"


def test_invalid_enum() -> None:
    with pytest.raises(InvalidValue, match="expected one of debug, info"):
        load(Settings, {"DATABASE_URL": "x", "LEVEL": "loud"})


def test_plain_list_field() -> None:
    @dataclasses.dataclass
    class Tags:
        tags: list = dataclasses.field(default_factory=list)

    assert load(Tags, {"TAGS": "a,b"}).tags == ["a", "b"]
    assert load(Tags, {}).tags == []


def test_environment_beats_dotenv(tmp_path) -> None:
    path = tmp_path / ".env"
    path.write_text("DATABASE_URL=from-file\nWORKERS=8\n", encoding="utf-8")
    settings = load(Settings, {"WORKERS": "2"}, dotenv=path)
    assert (settings.database_url, settings.workers) == ("from-file", 2)


def test_not_a_dataclass() -> None:
    with pytest.raises(TypeError):
        load(dict, {})


def test_init_false_fields_are_skipped() -> None:
    @dataclasses.dataclass
    class WithDerived:
        name: str = "x"
        upper: str = dataclasses.field(init=False, default="")

    assert load(WithDerived, {"UPPER": "ignored"}).upper == ""


def test_describe() -> None:
    rows = describe(Settings, prefix="APP_")
    assert rows[0] == ("APP_DATABASE_URL", "str", "(required)", "")
    assert rows[4] == ("APP_TIMEOUT", "timedelta", "datetime.timedelta(seconds=30)", "")
    assert rows[-1] == ("SERVICE_API_KEY", "str", "***", "Key for the upstream API")
