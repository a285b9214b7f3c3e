"""Citations of an upstream in markdown: `path::Symbol`, `path::Class.method`,
`path:line`, `path:line-line` (and `path:a,b-c`), with their carrier.

The carrier is the markdown file and line holding the citation and, inside a
keyed table, the record row (its key and the cells the report shows).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import model

# A path: segments of [\w@+.-], the last with an extension starting with a letter.
# It may not follow a path character or a colon (URLs, `ns::a.h`), nor start with //.
_PATH = r"(?<![\w@+./:\\-])(?P<path>(?:\.{1,2}/)*(?:\.?[\w@+-][\w@+.-]*/)*\.?[\w@+-][\w@+.-]*\.[A-Za-z][A-Za-z0-9_+]*)"
_SYMBOL = r"::(?P<symbol>~?[A-Za-z_]\w*(?:(?:::|\.)~?[A-Za-z_]\w*)*)(?:\(\))?"
_LINES = r":(?P<lines>\d+(?:[-–]\d+)?(?:,\d+(?:[-–]\d+)?)*)(?![\w])"
CITATION = re.compile(_PATH + "(?:" + _SYMBOL + "|" + _LINES + ")", re.A)
_RANGE = re.compile(r"(\d+)(?:[-–](\d+))?")


@dataclass(slots=True)
class Citation:
    """One citation as written, where it is, and the row that carries it."""

    file: str  # the markdown file holding it (relative to the repository)
    line: int  # 1-based line in that file
    text: str  # as written, e.g. "registry.py:73-75"
    path: str  # the cited path
    symbol: str | None = None  # "Class.method" for path::Class.method
    lines: tuple[int, int] | None = None  # first and last cited line (1-based)
    record: str | None = None  # the record's name, for a record file
    key: str | None = None  # the key of the row carrying it
    shown: str = ""  # the row's cells named by [anchors] show, e.g. "INVENTORIED"

    @property
    def target(self) -> tuple[str, str | None, tuple[int, int] | None]:
        """What is checked upstream; equal targets are checked once."""
        return (self.path, self.symbol, self.lines)

    @property
    def carrier(self) -> str:
        """The row key, or the file and line, that carries the citation."""
        return self.key or f"{self.file}:{self.line}"


def find(text: str) -> list[tuple[int, str, str, str | None, tuple[int, int] | None]]:
    """Citations in markdown text: (line, as written, path, symbol, lines).

    A line citation naming several ranges (`a.py:12,40-42`) yields one
    citation per range.
    """
    out: list[tuple[int, str, str, str | None, tuple[int, int] | None]] = []
    for lineno, line in enumerate(text.split("\n"), 1):
        if "::" not in line and ":" not in line:
            continue
        line = line.replace("\\_", "_")
        for m in CITATION.finditer(line):
            path = m.group("path")
            if path.startswith("./"):
                path = path[2:]
            if m.group("symbol"):
                out.append((lineno, m.group(0).removesuffix("()"), path, m.group("symbol"), None))
                continue
            for r in _RANGE.finditer(m.group("lines")):
                first = int(r.group(1))
                last = int(r.group(2)) if r.group(2) else first
                written = f"{m.group('path')}:{r.group(0)}"
                out.append((lineno, written, path, None, (first, max(first, last))))
    return out


def scan(file: str, data: bytes, key: model.KeySpec = None, record: str | None = None, show: tuple[str, ...] = (),
         key_pattern: model.PatternSpec = None) -> list[Citation]:
    """The citations of one markdown file, each with the row carrying it."""
    text = data.decode("utf-8", "replace")
    found = find(text)
    if not found:
        return []
    doc = None
    try:
        doc = model.parse(data, key=key, key_pattern=key_pattern) if key else None
    except model.Unmodelable:
        doc = None
    wanted = [model.normalize_name(s) for s in show]
    rows = _rows_by_line(doc) if doc is not None else {}
    out = []
    for lineno, written, path, symbol, lines in found:
        cite = Citation(file, lineno, written, path, symbol, lines, record)
        if lineno - 1 in rows:
            table, row = rows[lineno - 1]
            cite.key = model.shown(row.key) if row.key is not None else None  # the row's name as the file writes it (a keyed row has a key)
            cite.shown = _shown(table, row, wanted)
        out.append(cite)
    return out


def _rows_by_line(doc: model.Document) -> dict[int, tuple[model.Table, model.Row]]:
    """Each line (0-based) of a keyed row, with its table and row."""
    out = {}
    for table in doc.keyed_tables():
        for row in table.rows:
            for i in range(len(row.lines)):
                out[row.line + i] = (table, row)
    return out


def _shown(table: model.Table, row: model.Row, wanted: list[str]) -> str:
    """The row's cells under the columns named in ``wanted``, joined by ``, ``."""
    if not wanted:
        return ""
    cells = row.cells().cells
    values = []
    for name in wanted:
        if name in table.columns:
            i = table.columns.index(name)
            if i < len(cells):
                value = model.clean_key(cells[i])
                if value:
                    values.append(value)
    return ", ".join(values)
