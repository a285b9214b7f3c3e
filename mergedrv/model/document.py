"""The record model's values: a Document of prose and tables over raw lines,
its Tables of Rows, and Unmodelable (what the parser refuses).  Built by
`model` (and `detached`); nothing here parses.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from .cache import ParseCache

from .cells import Cells, split_cells


class Unmodelable(ValueError):
    """The input cannot be modelled safely; callers fall back to a text merge.

    ``line``: the 1-based line at fault, when there is one (0: the whole file).
    """

    def __init__(self, message: str = "", line: int = 0) -> None:
        super().__init__(message)
        self.line = line


class Row:
    """One entry of a table: its row line plus the keyless lines under it.

    ``line`` is the 0-based index of the row line in its document, ``lines``
    the raw lines with their endings, ``key`` None for a log row.
    """

    __slots__ = ("line", "lines", "key", "column")

    def __init__(self, line: int, lines: list[bytes], key: str | None, column: int = 0) -> None:
        self.line = line
        self.lines = lines
        self.key = key
        self.column = column

    def __repr__(self) -> str:
        return f"Row(line={self.line}, key={self.key!r}, lines={len(self.lines)})"

    @property
    def text(self) -> bytes:
        lines = self.lines
        return lines[0] if len(lines) == 1 else b"".join(lines)

    def cells(self) -> Cells:
        return split_cells(self.lines[0], self.column)


class Run(Row):
    """A stretch of rows no side of a merge changed, folded into one entry
    (`folding`): its first row's line and key, and every row line of it.
    The merge carries it whole; its other keys are the base's ``elided``."""

    __slots__ = ()


class Table:
    """A pipe table: header and delimiter lines, then its body rows.

    ``start``/``end`` are line indexes (end exclusive); ``heading`` is the text
    of the nearest heading above; ``columns`` the normalized header names.
    ``preamble`` holds body lines before the first keyed row (they travel with
    the header).  In a log table every body line is its own row and
    blank lines between rows belong to the row above.
    """

    __slots__ = ("start", "end", "header", "delimiter", "column", "heading", "columns", "key_col", "preamble", "rows", "is_log", "path",
                 "key_name", "detached", "runs", "key_memo")

    def __init__(
        self,
        start: int,
        end: int,
        header: bytes,
        delimiter: bytes,
        column: int,
        heading: str,
        columns: list[str],
        key_col: int | None,
        preamble: list[bytes] | None = None,
        rows: list[Row] | None = None,
        is_log: bool = False,
    ) -> None:
        self.start = start
        self.end = end
        self.header = header
        self.delimiter = delimiter
        self.column = column
        self.heading = heading
        self.columns = columns
        self.key_col = key_col
        self.preamble = [] if preamble is None else preamble
        self.rows = [] if rows is None else rows
        self.is_log = is_log
        self.path: tuple[str, ...] = (heading,) if heading else ()  # every heading above, outermost first
        self.key_name = ""  # the declared key column keying it (its namespace)
        self.detached: Table | None = None  # detached rows: the table above they belong to
        self.runs = 0  # how many of its rows are `Run`s
        self.key_memo: dict[bytes, str | None] | None = None  # a keyed table's: the key its parse read from each row line

    def __repr__(self) -> str:
        return f"Table(start={self.start}, end={self.end}, heading={self.heading!r}, rows={len(self.rows)})"

    @property
    def head_lines(self) -> list[bytes]:
        if self.detached is not None:  # rows only: the header is the table's above
            return list(self.preamble)
        return [self.header, self.delimiter, *self.preamble]

    def shared_key(self) -> tuple[str, int] | None:
        """(key, rows) of a key that four rows or more, half the table or
        more, share (a column of `[Link](...)` cells, whose key is the
        link's text): its key column names no row.  None: the keys tell the
        rows apart (the common case, every key once, costs one set)."""
        keys = [r.key for r in self.rows if r.key is not None]
        if len(keys) < 4 or len(set(keys)) == len(keys):
            return None
        count: dict[str, int] = {}
        for k in keys:
            count[k] = count.get(k, 0) + 1
        top = max(count, key=count.__getitem__)
        n = count[top]
        return (top, n) if n >= 4 and 2 * n >= len(self.rows) else None

    def lines(self) -> list[bytes]:
        out = self.head_lines
        for row in self.rows:
            out.extend(row.lines)
        return out

    def keys(self) -> list[str]:
        return [r.key for r in self.rows if r.key is not None]

    @property
    def body(self) -> int:
        """The line its body rows start at (a detached run has no header)."""
        return self.start if self.detached is not None else self.start + 2


class Prose:
    """Lines ``start`` to ``end`` (exclusive) that are not a modelled table."""

    __slots__ = ("start", "end")

    def __init__(self, start: int, end: int) -> None:
        self.start = start
        self.end = end

    def __repr__(self) -> str:
        return f"Prose({self.start}, {self.end})"


class Document:
    """A parsed file: every line with its ending (``b"".join(lines)`` is the
    input), the blocks in order, and the headings as (line, text)."""

    __slots__ = ("lines", "blocks", "headings", "elided", "grouped", "ambiguous", "cache")

    def __init__(self, lines: list[bytes], blocks: list[Prose | Table], headings: list[tuple[int, str]]) -> None:
        self.lines = lines
        self.blocks = blocks
        self.headings = headings
        self.elided: set[str] | None = None  # a merge's base: the keys inside its `Run`s (each once in every version)
        self.grouped: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())  # `groups.Grouping`: keys keyed by group, labels that are none
        self.ambiguous: str | None = None  # why which group a repeated key is in is not sure (the merge falls back)
        self.cache: ParseCache | None = None  # the parse's: a version read after it shares it (`model.parse_many`)

    def render(self) -> bytes:
        return b"".join(self.lines)

    @property
    def tables(self) -> list[Table]:
        return [b for b in self.blocks if isinstance(b, Table)]

    def keyed_tables(self) -> list[Table]:
        return [b for b in self.blocks if isinstance(b, Table) and b.key_col is not None]

    def rows(self) -> Iterator[Row]:
        """Every keyed row of the document, in order."""
        for table in self.keyed_tables():
            yield from table.rows

    def row_at(self, line: int) -> Row | None:
        """The keyed row whose lines include ``line`` (0-based)."""
        for table in self.keyed_tables():
            if table.start <= line < table.end:
                for row in table.rows:
                    if row.line <= line < row.line + len(row.lines):
                        return row
        return None

    def heading_at(self, line: int) -> str:
        text = ""
        for hline, htext in self.headings:
            if hline > line:
                break
            text = htext
        return text
