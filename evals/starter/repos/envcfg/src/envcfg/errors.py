"""Exceptions raised while reading settings."""

from __future__ import annotations

from typing import Optional


class ConfigError(Exception):
    """Base class of every error envcfg raises about the configuration."""


class MissingVariable(ConfigError):
    """A required variable is not set."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"{name} is required but not set")


class InvalidValue(ConfigError):
    """A variable is set to something its setting's type cannot accept."""

    def __init__(self, name: str, value: str, reason: str) -> None:
        self.name = name
        self.value = value
        self.reason = reason
        super().__init__(f"{name}={value!r}: {reason}")


class DotenvError(ConfigError):
    """A .env file could not be parsed."""

    def __init__(self, lineno: int, message: str, path: Optional[str] = None) -> None:
        self.lineno = lineno
        self.path = path
        super().__init__(f"{path or '<string>'}:{lineno}: {message}")
