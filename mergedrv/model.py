"""The record model: a markdown file as prose, keyed tables and log tables.

One parse feeds the merge driver, every check and the anchors.  A Document
keeps every input line as raw bytes, so rendering it back is byte-exact; the
tables are views that say which lines are headers and rows, split into cells
the way GitHub splits them (an escaped ``\\|`` stays inside its cell).
"""

from __future__ import annotations

import re
from . import blocks

BOM = b"\xef\xbb\xbf"
_PIPE = re.compile(rb"(?<!\\)\|")
_MARKUP = re.compile(r"[`*_]")
_CONFLICT_MARKER = re.compile(rb"^(?:<{7,}|>{7,})(?: |\r?$)", re.M)
_HEADING = re.compile(rb"^[ \t>]*#{1,6}[ \t]*(.*?)[ \t#]*\r?$")


class Unmodelable(ValueError):
    """The input cannot be modelled safely; callers fall back to a text merge."""


def normalize_name(text: str) -> str:
    """Header or key text without markup and surrounding space, case-folded."""
    return _MARKUP.sub("", text).strip().casefold()


def clean_key(cell: bytes) -> str:
    """A key cell's text: surrounding whitespace, backticks and ** removed."""
    text = cell.decode("utf-8", "replace").strip()
    while True:
        stripped = text.strip().strip("`").strip()
        if stripped.startswith("**") and stripped.endswith("**") and len(stripped) >= 4:
            stripped = stripped[2:-2]
        if stripped == text:
            return text
        text = stripped


class Cells:
    """A row line split GitHub-style: prefix | cell | cell ... suffix.

    ``prefix + b"|".join(cells) + suffix`` is the line, byte for byte.
    """

    __slots__ = ("prefix", "cells", "suffix")

    def __init__(self, prefix: bytes, cells: list[bytes], suffix: bytes) -> None:
        self.prefix = prefix
        self.cells = cells
        self.suffix = suffix

    def __repr__(self) -> str:
        return f"Cells({self.prefix!r}, {self.cells!r}, {self.suffix!r})"

    def render(self) -> bytes:
        return self.prefix + b"|".join(self.cells) + self.suffix


def split_cells(line: bytes, column: int = 0, upto: int = -1) -> Cells:
    """Split a table line (with or without its line ending) into cells.

    With ``upto`` >= 0 only the cells up to that index are split off; the rest
    of the line stays in the last cell (fast key lookup on 40 KB rows).
    """
    end = len(line)
    if line.endswith(b"\n"):
        end -= 1
        if line[:end].endswith(b"\r"):
            end -= 1
    start = column
    while start < end and line[start] in b" \t":
        start += 1
    if start < end and line[start] == 0x7C:  # leading pipe
        start += 1
    stop = end
    while stop > start and line[stop - 1] in b" \t":
        stop -= 1
    if stop > start and line[stop - 1] == 0x7C and (stop - 2 < start or line[stop - 2] != 0x5C):
        stop -= 1
    else:
        stop = end  # no closing pipe: trailing space belongs to the last cell
    body = line[start:stop]
    return Cells(line[:start], _PIPE.split(body, upto + 1 if upto >= 0 else 0), line[stop:])


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
        return b"".join(self.lines)

    def cells(self) -> Cells:
        return split_cells(self.lines[0], self.column)


class Table:
    """A pipe table: header and delimiter lines, then its body rows.

    ``start``/``end`` are line indexes (end exclusive); ``heading`` is the text
    of the nearest heading above; ``columns`` the normalized header names.
    ``preamble`` holds body lines before the first keyed row (they travel with
    the header).  In a log table every body line is its own row and
    blank lines between rows belong to the row above.
    """

    __slots__ = ("start", "end", "header", "delimiter", "column", "heading", "columns", "key_col", "preamble", "rows", "is_log")

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

    def __repr__(self) -> str:
        return f"Table(start={self.start}, end={self.end}, heading={self.heading!r}, rows={len(self.rows)})"

    @property
    def head_lines(self) -> list[bytes]:
        return [self.header, self.delimiter, *self.preamble]

    def lines(self) -> list[bytes]:
        out = self.head_lines
        for row in self.rows:
            out.extend(row.lines)
        return out

    def keys(self) -> list[str]:
        return [r.key for r in self.rows if r.key is not None]


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

    __slots__ = ("lines", "blocks", "headings")

    def __init__(self, lines: list[bytes], blocks: list[Prose | Table], headings: list[tuple[int, str]]) -> None:
        self.lines = lines
        self.blocks = blocks
        self.headings = headings

    def render(self) -> bytes:
        return b"".join(self.lines)

    @property
    def tables(self) -> list[Table]:
        return [b for b in self.blocks if isinstance(b, Table)]

    def keyed_tables(self) -> list[Table]:
        return [b for b in self.blocks if isinstance(b, Table) and b.key_col is not None]

    def rows(self):
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


def split_lines(data: bytes) -> list[bytes]:
    """Lines with their b"\\n" endings kept; the last may have none."""
    lines = data.split(b"\n")
    out = [line + b"\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def check_modelable(data: bytes) -> None:
    """Raise Unmodelable for input a keyed merge must not touch."""
    if b"\0" in data:
        raise Unmodelable("the file contains NUL bytes")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unmodelable(f"the file is not valid UTF-8 (byte {exc.start})") from None
    m = (b"<<<<<<<" in data or b">>>>>>>" in data) and _CONFLICT_MARKER.search(data)
    if m:
        line = data.count(b"\n", 0, m.start()) + 1
        raise Unmodelable(f"line {line} already holds a conflict marker")


def parse(data: bytes, key: str | None = None, log: bool = False) -> Document:
    """Parse markdown bytes into a Document.

    ``key`` names the key column of keyed tables (matched ignoring case and
    markup); tables without it stay tables with ``key_col = None``.  With
    ``log`` every table is a log table that also takes in the pipe lines that
    follow it after blank lines (ledgers separate rows by blank lines).
    Raises Unmodelable for NUL bytes, invalid UTF-8, conflict markers, or a
    parser error inside a table.
    """
    check_modelable(data)
    lines = split_lines(data)
    bare = [line[:-1] if line.endswith(b"\n") else line for line in lines]
    if bare and bare[0].startswith(BOM):
        bare[0] = bare[0][len(BOM) :]
    struct = blocks.structure(bare)
    headings = []
    for hline in struct.headings:
        m = _HEADING.match(bare[hline])
        text = (m.group(1) if m else bare[hline]).decode("utf-8", "replace").strip()
        if not m and hline > 0:  # setext: the text is the line above
            text = bare[hline].decode("utf-8", "replace").strip()
        headings.append((hline, text))
    doc = Document(lines, [], headings)
    want = normalize_name(key) if key else None
    pos = 0
    hi = 0
    heading = ""
    for span in struct.tables:
        if span.header < pos:
            raise Unmodelable(f"line {span.header + 1}: overlapping tables")
        for bad_start, bad_end in struct.error_lines:
            if bad_start < span.end and bad_end >= span.header:
                raise Unmodelable(f"line {span.header + 1}: the markdown parser reports an error inside a table")
        if span.has_error:
            raise Unmodelable(f"line {span.header + 1}: the markdown parser reports an error inside a table")
        while hi < len(headings) and headings[hi][0] < span.header:
            heading = headings[hi][1]
            hi += 1
        end = span.end
        if log:
            end = _log_extent(bare, end, span.column)
        if span.header > pos:
            doc.blocks.append(Prose(pos, span.header))
        doc.blocks.append(_table(doc, span, end, heading, want, log))
        pos = end
    if pos < len(lines):
        doc.blocks.append(Prose(pos, len(lines)))
    return doc


def _log_extent(bare: list[bytes], end: int, column: int) -> int:
    """Extend a log table over blank lines and the pipe lines after them."""
    last = end
    i = end
    while i < len(bare):
        text = bare[i][column:].strip()
        if not text:
            i += 1
            continue
        if text.startswith(b"|"):
            i += 1
            last = i
            continue
        break
    return last


def _table(doc: Document, span: blocks.TableSpan, end: int, heading: str, want: str | None, log: bool) -> Table:
    lines = doc.lines
    bom = len(BOM) if span.header == 0 and lines[0].startswith(BOM) else 0
    header = split_cells(lines[span.header], span.column + bom)
    columns = [normalize_name(c.decode("utf-8", "replace")) for c in header.cells]
    key_col = None
    if want is not None and not log and want in columns:
        key_col = columns.index(want)
    table = Table(
        start=span.header,
        end=end,
        header=lines[span.header],
        delimiter=lines[span.delimiter],
        column=span.column,
        heading=heading,
        columns=columns,
        key_col=key_col,
        is_log=log,
    )
    first_body = span.delimiter + 1
    # lines between header and delimiter cannot exist in GFM, but keep bytes
    if span.delimiter != span.header + 1:
        raise Unmodelable(f"line {span.header + 1}: table header and delimiter are not adjacent")
    for i in range(first_body, end):
        line = lines[i]
        if log:
            if not line.strip() and table.rows:
                table.rows[-1].lines.append(line)
            elif not line.strip():
                table.preamble.append(line)
            else:
                table.rows.append(Row(i, [line], None, span.column))
            continue
        row_key = None
        if key_col is not None and b"|" in line[span.column :]:
            cells = split_cells(line, span.column, key_col).cells
            if key_col < len(cells):
                row_key = clean_key(cells[key_col]) or None
        if row_key is None:
            if table.rows:
                table.rows[-1].lines.append(line)
            else:
                table.preamble.append(line)
        else:
            table.rows.append(Row(i, [line], row_key, span.column))
    return table
