"""A parser for ``.env`` files.

The format, line by line:

* blank lines and lines starting with ``#`` are ignored;
* ``KEY=value``, optionally preceded by ``export``;
* unquoted values are stripped and may end with a comment (``KEY=value # note``);
* single-quoted values are taken literally;
* double-quoted values understand the escapes ``\\n``, ``\\t``, ``\\"``, ``\\\\``
  and ``\\$``;
* unquoted and double-quoted values expand ``${NAME}`` and ``${NAME:-default}``,
  looking ``NAME`` up among the keys defined above it, then in the environment.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Optional, Union

from .errors import DotenvError

__all__ = ["load_dotenv_file", "parse_dotenv"]

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_VARIABLE = r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}"
_UNQUOTED_TOKEN = re.compile(_VARIABLE)
_DOUBLE_QUOTED_TOKEN = re.compile(r"\\(.)|" + _VARIABLE)
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "$": "$"}


def parse_dotenv(
    text: str,
    *,
    environ: Optional[Mapping[str, str]] = None,
    path: Optional[str] = None,
) -> dict[str, str]:
    """Parse the text of a .env file into a dict, in the order the keys appear.

    ``environ`` is where ``${NAME}`` looks for names the file does not define
    (``os.environ`` by default); ``path`` only names the file in errors.
    """
    env = os.environ if environ is None else environ
    values: dict[str, str] = {}

    def lookup(name: str, default: Optional[str]) -> str:
        found = values.get(name, env.get(name))
        if found is None or (found == "" and default is not None):
            return default or ""
        return found

    def expand_unquoted(match: re.Match) -> str:
        return lookup(match.group(1), match.group(2))

    def expand_double_quoted(match: re.Match) -> str:
        escaped = match.group(1)
        if escaped is not None:
            return _ESCAPES.get(escaped, "\\" + escaped)
        return lookup(match.group(2), match.group(3))

    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export ") or line.startswith("export\t"):
            line = line[len("export") :].lstrip()
        key, equals, value = line.partition("=")
        key = key.strip()
        if not equals:
            raise DotenvError(lineno, "expected KEY=VALUE", path)
        if not _KEY.fullmatch(key):
            raise DotenvError(lineno, f"invalid key {key!r}", path)
        value = value.strip()

        quote = value[:1]
        if quote in ("'", '"'):
            end = _closing_quote(value, quote)
            if end < 0:
                raise DotenvError(lineno, "unterminated quoted value", path)
            rest = value[end + 1 :].strip()
            if rest and not rest.startswith("#"):
                raise DotenvError(lineno, "unexpected text after the closing quote", path)
            inner = value[1:end]
            if quote == "'":
                values[key] = inner
            else:
                values[key] = _DOUBLE_QUOTED_TOKEN.sub(expand_double_quoted, inner)
        else:
            value = value.split("#", 1)[0].rstrip()
            values[key] = _UNQUOTED_TOKEN.sub(expand_unquoted, value)
    return values


def _closing_quote(value: str, quote: str) -> int:
    """Index of the quote closing the one at ``value[0]``, or -1."""
    index = 1
    while index < len(value):
        char = value[index]
        if char == "\\" and quote == '"':
            index += 2
            continue
        if char == quote:
            return index
        index += 1
    return -1


def load_dotenv_file(
    path: Union[str, os.PathLike],
    environ: Optional[Mapping[str, str]] = None,
) -> dict[str, str]:
    """Read and parse the .env file at ``path`` (UTF-8)."""
    with open(path, encoding="utf-8") as handle:
        return parse_dotenv(handle.read(), environ=environ, path=os.fspath(path))
