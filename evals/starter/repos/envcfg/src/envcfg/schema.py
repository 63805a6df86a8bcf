"""Load dataclasses of settings from environment variables."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from datetime import timedelta
from enum import Enum
from typing import Any, Callable, Optional, TypeVar, Union, get_origin, get_type_hints

from .dotenv import load_dotenv_file
from .errors import InvalidValue, MissingVariable
from .parsers import parse_bool, parse_duration, parse_float, parse_int, parse_list

__all__ = ["describe", "load", "setting"]

T = TypeVar("T")
Parser = Callable[[str], Any]

_PARSERS: dict[Any, Parser] = {
    str: str,
    int: parse_int,
    float: parse_float,
    bool: parse_bool,
    timedelta: parse_duration,
}


def setting(
    default: Any = dataclasses.MISSING,
    *,
    env: Optional[str] = None,
    secret: bool = False,
    help: str = "",
) -> Any:
    """A dataclass field with envcfg options.

    ``env`` names the variable explicitly (the prefix is not added to it),
    ``secret`` hides the default in :func:`describe`, and ``help`` documents it.
    """
    metadata = {"env": env, "secret": secret, "help": help}
    return dataclasses.field(default=default, metadata=metadata)


def _variable_name(field: dataclasses.Field, prefix: str) -> str:
    return field.metadata.get("env") or prefix + field.name.upper()


def _enum_parser(enum_type: type[Enum]) -> Parser:
    def parse(value: str) -> Enum:
        text = value.strip()
        for member in enum_type:
            if text.lower() == member.name.lower() or text == str(member.value):
                return member
        choices = ", ".join(member.name.lower() for member in enum_type)
        raise ValueError(f"expected one of {choices}")

    return parse


def _parser_for(annotation: Any) -> Parser:
    """The parser for a field annotated ``annotation``."""
    if annotation in _PARSERS:
        return _PARSERS[annotation]
    if get_origin(annotation) is list or annotation is list:
        return parse_list
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return _enum_parser(annotation)
    # Anything else is called with the text, like pathlib.Path or decimal.Decimal.
    return annotation


def load(
    cls: type[T],
    environ: Optional[Mapping[str, str]] = None,
    *,
    prefix: str = "",
    dotenv: Union[str, os.PathLike, None] = None,
) -> T:
    """Create ``cls``, a dataclass, from environment variables.

    Each field is read from the variable named by its ``setting(env=...)``, or
    else from ``prefix`` followed by the field's name in upper case. Values
    are converted according to the field's type annotation. A variable that is
    not set leaves the field's default; without a default it is an error.

    ``environ`` defaults to ``os.environ``. With ``dotenv``, that file's
    variables are used where ``environ`` does not set them.
    """
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"{cls!r} is not a dataclass")
    env = os.environ if environ is None else environ
    source: dict[str, str] = dict(load_dotenv_file(dotenv, env)) if dotenv is not None else {}
    source.update(env)

    hints = get_type_hints(cls)
    values: dict[str, Any] = {}
    for field in dataclasses.fields(cls):
        if not field.init:
            continue
        name = _variable_name(field, prefix)
        raw = source.get(name)
        if raw is None:
            if (
                field.default is dataclasses.MISSING
                and field.default_factory is dataclasses.MISSING
            ):
                raise MissingVariable(name)
            continue
        parser = _parser_for(hints[field.name])
        try:
            values[field.name] = parser(raw)
        except ValueError as exc:
            raise InvalidValue(name, raw, str(exc)) from exc
    return cls(**values)


def _type_name(annotation: Any) -> str:
    if isinstance(annotation, type) and not get_origin(annotation):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def describe(cls: type, *, prefix: str = "") -> list[tuple[str, str, str, str]]:
    """Document a settings class: one ``(variable, type, default, help)`` row per field.

    The default is ``"(required)"`` for required fields and ``"***"`` for secrets.
    """
    hints = get_type_hints(cls)
    rows = []
    for field in dataclasses.fields(cls):
        if not field.init:
            continue
        if field.default is not dataclasses.MISSING:
            default = repr(field.default)
        elif field.default_factory is not dataclasses.MISSING:
            default = repr(field.default_factory())
        else:
            default = "(required)"
        if field.metadata.get("secret") and default != "(required)":
            default = "***"
        help_text = field.metadata.get("help", "")
        rows.append(
            (_variable_name(field, prefix), _type_name(hints[field.name]), default, help_text)
        )
    return rows
