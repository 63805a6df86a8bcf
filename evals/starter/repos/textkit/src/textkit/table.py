"""Plain-text tables for terminal output."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Optional

from .width import pad, truncate

__all__ = ["render_table"]

_ALIGNMENTS = ("left", "right")


def _cell_text(value: object) -> str:
    """How a cell value is shown: ``None`` is empty, booleans are yes/no."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def _default_alignment(column: Sequence[object]) -> str:
    """Right for columns whose non-empty cells are all numbers, else left."""
    filled = [value for value in column if value is not None]
    if filled and all(_is_number(value) for value in filled):
        return "right"
    return "left"


def render_table(
    rows: Sequence[Sequence[object]],
    headers: Optional[Sequence[str]] = None,
    *,
    align: Optional[Mapping[int, str]] = None,
    max_width: Optional[int] = None,
    sep: str = "  ",
) -> str:
    """Render ``rows`` as an aligned plain-text table.

    Cells may be any value: ``None`` renders as an empty cell, booleans as
    ``yes``/``no`` and everything else with ``str()``. Short rows are padded
    with empty cells. Columns whose non-empty cells are all numbers are
    right-aligned, the others left-aligned; ``align`` maps a column index to
    ``"left"`` or ``"right"`` to override that, and a column's header follows
    its column's alignment. Columns are as wide as their widest cell in
    terminal columns, so that wide (CJK) characters line up, and are joined
    with ``sep``. ``max_width`` caps every column's width by truncating longer
    cells with ``"…"``. Headers are underlined with dashes. Trailing spaces are
    stripped from every line.
    """
    body = [list(row) for row in rows]
    ncols = max([len(headers or ())] + [len(row) for row in body])
    if ncols == 0:
        return ""
    for row in body:
        row.extend([None] * (ncols - len(row)))

    alignments = [_default_alignment([row[i] for row in body]) for i in range(ncols)]
    for index, how in (align or {}).items():
        if not 0 <= index < ncols:
            raise IndexError(f"align refers to column {index}, but the table has {ncols}")
        if how not in _ALIGNMENTS:
            raise ValueError(f"unknown alignment: {how!r}")
        alignments[index] = how

    cells = [[_cell_text(value) for value in row] for row in body]
    head = None if headers is None else list(headers) + [""] * (ncols - len(headers))
    if max_width is not None:
        cells = [[truncate(text, max_width) for text in row] for row in cells]
        if head is not None:
            head = [truncate(text, max_width) for text in head]

    columns = [[row[i] for row in cells] + ([head[i]] if head else []) for i in range(ncols)]
    widths = [max(len(text) for text in column) for column in columns]

    def line(texts: Sequence[str]) -> str:
        padded = (pad(text, widths[i], alignments[i]) for i, text in enumerate(texts))
        return sep.join(padded).rstrip()

    lines: list[str] = []
    if head is not None:
        lines.append(line(head))
        lines.append(sep.join("-" * width for width in widths))
    lines.extend(line(row) for row in cells)
    return "\n".join(lines)
