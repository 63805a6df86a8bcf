"""textkit: small, dependency-free helpers for working with human text."""

from .case import split_words, to_camel, to_constant, to_kebab, to_pascal, to_snake
from .slug import slugify
from .table import render_table
from .width import char_width, display_width, pad, truncate
from .wrap import fill, fill_paragraphs, wrap

__version__ = "0.1.0"

__all__ = [
    "char_width",
    "display_width",
    "fill",
    "fill_paragraphs",
    "pad",
    "render_table",
    "slugify",
    "split_words",
    "to_camel",
    "to_constant",
    "to_kebab",
    "to_pascal",
    "to_snake",
    "truncate",
    "wrap",
]
