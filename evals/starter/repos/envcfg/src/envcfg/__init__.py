"""envcfg: typed application settings from environment variables and .env files.

Describe the settings as a dataclass and let :func:`load` fill it in::

    @dataclass
    class Settings:
        database_url: str
        debug: bool = False
        workers: int = 4
        request_timeout: timedelta = timedelta(seconds=30)

    settings = load(Settings, prefix="APP_", dotenv=".env")
"""

from .dotenv import load_dotenv_file, parse_dotenv
from .errors import ConfigError, DotenvError, InvalidValue, MissingVariable
from .parsers import parse_bool, parse_duration, parse_float, parse_int, parse_list, parse_size
from .schema import describe, load, setting

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "DotenvError",
    "InvalidValue",
    "MissingVariable",
    "describe",
    "load",
    "load_dotenv_file",
    "parse_bool",
    "parse_dotenv",
    "parse_duration",
    "parse_float",
    "parse_int",
    "parse_list",
    "parse_size",
    "setting",
]
