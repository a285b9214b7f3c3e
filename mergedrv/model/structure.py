"""The block structure of a markdown file as the parser reads it: which lines
are pipe tables (header, delimiter, body rows) and headings, and where the
parser met errors.  Values only; `blocks` finds them, `folding` shifts them."""

from __future__ import annotations

from .. import rx

DELIM = rx.compile(rb"^[ \t>]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*\r?$")


def maybe_delim(line: bytes) -> bool:
    """Could this line be a delimiter row?  (cheap test before the regex)"""
    return len(line) < 4096 and not line.lstrip(b"|:- \t>\r\n") and DELIM.match(line) is not None


class TableSpan:
    """Lines (0-based) of one pipe table as tree-sitter reads it; ``column``
    is the byte column where the header starts (the container prefix)."""

    __slots__ = ("header", "delimiter", "rows", "column", "has_error")

    def __init__(self, header: int, delimiter: int, rows: list[int] | range, column: int, has_error: bool = False) -> None:
        self.header = header
        self.delimiter = delimiter
        self.rows = rows
        self.column = column
        self.has_error = has_error

    @property
    def end(self) -> int:
        """Line index one past the table's last line."""
        return (self.rows[-1] if self.rows else self.delimiter) + 1


class Structure:
    """Every table, the line of every heading, and parser-error line spans."""

    __slots__ = ("tables", "headings", "error_lines")

    def __init__(self) -> None:
        self.tables: list[TableSpan] = []
        self.headings: list[int] = []
        self.error_lines: list[tuple[int, int]] = []
