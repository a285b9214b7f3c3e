"""Sequence columns (`sequence = "#"`): a column numbering a table's rows
1..n.  Its cell never counts as a change while rows merge (`masked`), and
after a clean keyed merge each table numbered 1..n in every version is
renumbered in the merged order (`renumber`)."""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported on the driver's path (it costs a few ms)
if TYPE_CHECKING:
    import re  # (the types only: rx compiles the pattern)

    from .values import Options

from .. import model, rx
from ..model.cells import split_cells
from ..names import normalize_name
from .match import match_tables

_NUMBER = rb"[0-9]+"
_PLAIN = rb"^[ \t]*[`*_]*[ \t]*([0-9]+)[ \t]*[`*_]*[ \t]*$"  # (compiled by rx: no `re` on the driver's path)


def _plain(cell: bytes) -> re.Match[bytes] | None:
    return rx.compile(_PLAIN).match(cell)


def index(table: object, name: str | None) -> int | None:
    """The sequence column's index in ``table``'s header (None: absent, or it is the key column)."""
    if name is None or table is None:
        return None
    want = normalize_name(name)
    cols = getattr(table, "columns", [])
    if want not in cols:
        return None
    i = cols.index(want)
    return None if i == getattr(table, "key_col", None) else i


def number(line: bytes, column: int, idx: int) -> int | None:
    """The number in cell ``idx`` of a row line (None: no cell, or not a plain number)."""
    cells = split_cells(line, column).cells
    if idx >= len(cells):
        return None
    m = _plain(cells[idx])
    return int(m.group(1)) if m else None


def masked(row: model.Row, idx: int | None) -> bytes:
    """The row's text with its sequence cell left out (its text if none)."""
    if idx is None:
        return row.text
    c = split_cells(row.lines[0], row.column)
    if idx >= len(c.cells) or _plain(c.cells[idx]) is None:
        return row.text
    cells = list(c.cells)
    cells[idx] = b""
    return b"".join([model.Cells(c.prefix, cells, c.suffix).render(), *row.lines[1:]])


def row_lines(table: model.Table) -> list[tuple[int, bytes]]:
    """Each body row line of ``table`` (folded runs read row by row): (line index, bytes)."""
    out = []
    for row in table.rows:
        out.append((row.line, row.lines[0]))
    return out


def in_sequence(table: model.Table | None, name: str | None) -> bool:
    """``table`` numbers its rows 1..n in column ``name`` (an absent table counts)."""
    if table is None:
        return True
    idx = index(table, name)
    if idx is None or not table.rows:
        return False
    return all(number(line, table.column, idx) == i for i, (_, line) in enumerate(row_lines(table), 1))


def renumber_table(lines: list[bytes], table: model.Table, idx: int) -> bool:
    """Number ``table``'s rows 1..n in place in ``lines``; False (nothing
    changed) when a row's cell is not a plain number."""
    new = {}
    for i, (at, line) in enumerate(row_lines(table), 1):
        c = split_cells(line, table.column)
        if idx >= len(c.cells) or _plain(c.cells[idx]) is None:
            return False
        cells = list(c.cells)
        cells[idx] = rx.compile(_NUMBER).sub(str(i).encode(), cells[idx], count=1)
        new[at] = model.Cells(c.prefix, cells, c.suffix).render()
    for at, line in new.items():
        lines[at] = line
    return True


def renumber(docs: list[model.Document], merged: bytes, opts: Options) -> bytes:
    """``merged`` with each sequenced table numbered 1..n: a table of ours
    whose base and theirs versions (where present) are numbered 1..n too."""
    name = getattr(opts, "sequence", None)
    key, pattern = opts.key, opts.key_pattern
    o, a, b = (model.parse(b"".join(d.lines), key, False, pattern) for d in docs)  # row by row: no folded runs
    groups = match_tables(o.keyed_tables(), a.keyed_tables(), b.keyed_tables())
    ours = [g.tables[1] for g in groups if g.tables[1] is not None and all(in_sequence(t, name) for t in g.tables)]
    if not ours:
        return merged
    wanted = {_identity(a, t) for t in ours}
    doc = model.parse(merged, key, False, pattern)
    lines = list(doc.lines)
    for t in doc.keyed_tables():
        idx = index(t, name)
        if idx is not None and _identity(doc, t) in wanted:
            renumber_table(lines, t, idx)
    return b"".join(lines)


def _identity(doc: model.Document, table: model.Table) -> tuple[tuple[str, ...], int]:
    """A table's heading path and its position among the document's tables under that path."""
    same = [t for t in doc.keyed_tables() if t.path == table.path]
    return table.path, next(i for i, t in enumerate(same) if t is table)
