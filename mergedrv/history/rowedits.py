"""A record version that edited some rows in place of a version already parsed
and checked: its Document built from that one (`edited`), and its record-only
findings from that one's (`record_findings`: range mode's incremental checks).
"""

from __future__ import annotations

from bisect import bisect_right

from .. import model
from ..model.edits import split_changed
from ..model.structure import maybe_delim
from ..model.folding import plain_row
from ..values import Value

MAX_EDITS = 64  # more changed lines than this: checked whole (a rewrite, not an edit)


class Change(Value):
    """One row line edited in place: its table in the new Document, the row
    before and after (same line and continuation lines; the key may differ)."""

    __slots__ = ("path", "table", "old", "new")

    def __init__(self, path: str, table: model.Table, old: model.Row, new: model.Row) -> None:
        self.path = path
        self.table = table
        self.old = old
        self.new = new


def edited(path: str, old_doc: model.Document, new_data: bytes, old_data: bytes | None = None) -> tuple[model.Document, list[Change]] | None:
    """``new_data``'s Document (what `model.parse` would build with the same
    key and key pattern) when every line it changed from ``old_doc`` is the
    first line of a keyed row, edited in place: a plain row (`rowruns`) with
    a key, not a label, in a table at the margin; None otherwise."""
    old = old_doc.lines
    found = _lines(old, new_data, old_data)
    if found is None:
        return None
    new, first, end = found
    lines = [i for i in range(first, end) if old[i] != new[i]]
    if not lines or len(lines) > MAX_EDITS:
        return None
    try:
        model.check_modelable(new_data, 7, [new[i] for i in lines])
    except model.Unmodelable:
        return None
    if any(b"<<<<<<<" in new[i] or b">>>>>>>" in new[i] for i in lines):
        return None  # (a conflict region is read before the model)
    rows = _rows_at(old_doc, set(lines))
    edits: dict[int, list[tuple[int, model.Row]]] = {}  # table's block index -> (row index, new row)
    for i in lines:
        found = rows.get(i)
        if found is None:
            return None
        b, k, table, row = found
        key = _same_shape(table, row, old, new, i)
        if key is None:
            return None
        edits.setdefault(b, []).append((k, model.Row(i, [new[i], *row.lines[1:]], key, row.column)))
    doc, changes = _rebuilt(old_doc, new, edits)
    return doc, [Change(path, t, old_row, new_row) for t, old_row, new_row in changes]


def _lines(old: list[bytes], data: bytes, a: bytes | None = None) -> tuple[list[bytes], int, int] | None:
    """``data``'s lines, when there are as many as ``old`` (the lines of ``a``),
    and the lines outside which they are ``old``'s own: those of the bytes both
    begin and end with (only the middle is split: `edits.split_changed`)."""
    lines, i, k, middle = split_changed(b"".join(old) if a is None else a, old, data, model.split_lines)
    if len(middle) != k - i:
        return None
    return lines, i, k


def _rows_at(doc: model.Document, lines: set[int]) -> dict[int, tuple]:
    """Line -> (block index, row index, table, row) of the keyed rows starting at ``lines``."""
    out = {}
    for b, block in enumerate(doc.blocks):
        if isinstance(block, model.Table) and block.key_col is not None and any(block.start <= i < block.end for i in lines):
            for k, row in enumerate(block.rows):
                if row.line in lines:
                    out[row.line] = (b, k, block, row)
    return out


def _same_shape(table: model.Table, row: model.Row, old: list[bytes], new: list[bytes], i: int) -> str | None:
    """The row's key after line ``i``'s edit, when the edit keeps the table's
    shape and the line a keyed row (the conditions of `rowruns.shifted` for
    an edit in a table's body); else None."""
    if table.detached is not None or table.is_log or table.column or table.key_col is None or i < table.start + 2:
        return None
    if not (plain_row(old[i]) and plain_row(new[i])):
        return None
    if i + 1 == table.end:  # the table's last line: a blank line (or the file's end) still ends it
        if i + 1 < len(old) and old[i + 1].strip():
            return None
    elif maybe_delim(old[i + 1]):
        return None
    was, key = model.key_of(old[i], table.column, table.key_col), model.key_of(new[i], table.column, table.key_col)
    if key is None or was is None or row.key is None or not row.key.endswith(was):
        return None
    cells = model.split_cells(new[i], table.column).cells
    if len(new[i]) <= 512 and all(not c.strip() for j, c in enumerate(cells) if j != table.key_col):
        return None  # could read as a group label (folded into the row above)
    return row.key[: len(row.key) - len(was)] + key  # a later key column's keys carry its namespace


def _rebuilt(doc: model.Document, lines: list[bytes], edits: dict[int, list[tuple[int, model.Row]]]):
    """A copy of ``doc`` over ``lines`` with the ``edits``' rows in place: the
    tables they change (and the detached runs of those) copied, so nothing the
    old Document holds changes."""
    blocks: list = []
    copies: dict[int, model.Table] = {}
    changes = []
    for b, block in enumerate(doc.blocks):
        if not isinstance(block, model.Table) or (b not in edits and (block.detached is None or id(block.detached) not in copies)):
            blocks.append(block)  # unchanged, shared (no check changes a Document: range mode shares them already)
            continue
        t = model.Table(block.start, block.end, block.header, block.delimiter, block.column, block.heading, list(block.columns),
                        block.key_col, list(block.preamble), list(block.rows), block.is_log)
        t.path, t.key_name, t.detached = block.path, block.key_name, block.detached
        for k, row in edits.get(b, ()):
            changes.append((t, t.rows[k], row))
            t.rows[k] = row
        copies[id(block)] = t
        blocks.append(t)
    for t in copies.values():
        if t.detached is not None:
            t.detached = copies.get(id(t.detached), t.detached)
    return model.Document(lines, blocks, list(doc.headings)), changes


def record_findings(checks, cfg, snap, commit, by_blobs: tuple, alone: set[str]):
    """The record-only findings at ``commit`` (``by_blobs``: `SnapshotChecks._record_key`
    with every file examined), from its first parent's: None when a changed
    record is not row edits in place of the parent's version (checked whole)."""
    from ..checks import run_checks
    from ..checks import incremental
    from .entries import parsed_tree

    parent = commit.parents[0]
    if checks.config_at(parent)[0] is not cfg:
        return None  # the configuration (or a pin) changed: the parent's findings are not this one's
    key = checks._record_key(cfg, parent, None)
    if key is None or key == by_blobs or key[3] != by_blobs[3]:
        return None  # (a file counts are searched in changed: checked whole)
    parsed = checks.parsed
    changes: list[Change] = []
    docs: dict[str, tuple[model.Document, model.Document]] = {}  # a changed record file's old and new Document
    rows_moved = False  # a record whose rows were added, removed or moved (else each was edited in place)
    for record, old_id, new_id in zip(cfg.records, key[2], by_blobs[2]):
        if old_id == new_id:
            continue
        if old_id is None or new_id is None:
            return None
        path = record.path.lstrip("/")
        try:
            old_doc = parsed.get(old_id, record.key, False, record.key_pattern, path)
            found = edited(path, old_doc, parsed.data(new_id), parsed.data(old_id))
            if found is None:
                rows_moved = True
                docs[path] = (old_doc, parsed.get(new_id, record.key, False, record.key_pattern, path))
                continue
        except model.Unmodelable:
            return None
        parsed.put(new_id, record.key, False, record.key_pattern, found[0])
        docs[path] = (old_doc, found[0])
        changes += [c for c in found[1] if c not in changes]
    moves = {}
    if rows_moved:
        for path, (old_doc, new_doc) in docs.items():
            found_moved = moved(path, old_doc, new_doc)
            if found_moved is None:
                return None
            moves[path] = found_moved
    before = parsed_tree(checks.repo, parent, parsed)
    if key not in checks._records:  # the parent's, as its own `SnapshotChecks._split` keeps them
        checks._records[key] = run_checks(cfg, before, None, None, only=alone, paths=None, shapes="records", memo=checks._memo)
    checks.incremental.append(commit.id)
    if rows_moved:
        return incremental.rows_only(cfg, snap, checks._records[key], moves, alone, checks._memo, before)
    return incremental.record_only(cfg, snap, checks._records[key], changes, alone, checks._memo, before)


class Moved(Value):
    """A record file's rows added, removed or moved between two parsed versions
    (``old``, ``new``) that hold the same blocks (prose, tables, detached
    runs) in the same order, each table with the same header, delimiter,
    headings and preamble: the keyed rows ``added`` and ``removed`` as
    (table, row), the keys of the rows that moved (``moved``), the unkeyed
    tables whose body changed (``reread``), and where each line of ``old``
    that is kept stands in ``new`` (`line`; a changed prose block keeps none)."""

    __slots__ = ("path", "old", "new", "added", "removed", "moved", "reread", "_starts", "_spans")

    def __init__(self, path: str, old: model.Document, new: model.Document) -> None:
        self.path, self.old, self.new = path, old, new
        self.added: list[tuple[model.Table, model.Row]] = []
        self.removed: list[tuple[model.Table, model.Row]] = []
        self.moved: set[str] = set()
        self.reread: list[model.Table] = []  # the new version's unkeyed tables whose body changed
        self._starts: list[int] = []  # each old block's first line
        self._spans: list[tuple[int, int, dict[int, int] | None]] = []  # (its end, its shift, its row lines' map when rows changed)

    def line(self, n: int) -> int | None:
        """Old 0-based line ``n``'s line in the new version (None: a removed row's)."""
        b = bisect_right(self._starts, n) - 1
        if b < 0:
            return n
        end, shift, rows = self._spans[b]
        if n >= end:
            return n  # (past the last block: not a line of the file)
        if rows is None or n < self._starts[b] + rows[-1]:  # (the header, the delimiter, the preamble)
            return n + shift
        return rows.get(n)


def moved(path: str, old: model.Document, new: model.Document) -> Moved | None:
    """`Moved` between two parses of a file, or None when their blocks or a
    table's head differ (prose, and the body of an unkeyed table, may change)."""
    if len(old.blocks) != len(new.blocks):
        return None
    out = Moved(path, old, new)
    index_old = {id(b): n for n, b in enumerate(old.blocks)}
    index_new = {id(b): n for n, b in enumerate(new.blocks)}
    for a, b in zip(old.blocks, new.blocks):
        if type(a) is not type(b):
            return None
        out._starts.append(a.start)
        shift = b.start - a.start
        if isinstance(a, model.Table) and isinstance(b, model.Table) and not _same_head(a, b, index_old, index_new):
            return None
        if not isinstance(a, model.Table) or not isinstance(b, model.Table) or a.key_col is None or a.is_log:
            same = a.end - a.start == b.end - b.start and old.lines[a.start:a.end] == new.lines[b.start:b.end]
            if not same and isinstance(b, model.Table):
                out.reread.append(b)  # an unkeyed table's body changed: its lines are read again
            out._spans.append((a.end, shift, None if same else {-1: 0}))  # (a changed block's lines: none kept)
            continue
        if a.preamble != b.preamble:
            return None
        out._spans.append((a.end, shift, _rows_moved(out, a, b)))
    return out


def _same_head(a: model.Table, b: model.Table, index_old: dict, index_new: dict) -> bool:
    """The same header, delimiter, place in the headings and owner (a detached run's)."""
    return ((a.header, a.delimiter, a.column, a.heading, a.columns, a.key_col, a.is_log, a.path, a.key_name)
            == (b.header, b.delimiter, b.column, b.heading, b.columns, b.key_col, b.is_log, b.path, b.key_name)
            and (a.detached is None) == (b.detached is None)
            and (a.detached is None or index_old.get(id(a.detached)) == index_new.get(id(b.detached))))


def _rows_moved(out: Moved, a: model.Table, b: model.Table) -> dict[int, int] | None:
    """The rows of ``a`` kept, moved, removed and added in ``b`` (into ``out``):
    None when only the table's place changed, else its kept lines' map (key
    -1: where its first row starts, the lines above it shifted with the table)."""
    old, new = a.rows, b.rows
    n = min(len(old), len(new))
    p = 0
    while p < n and old[p].lines == new[p].lines and old[p].key == new[p].key:
        p += 1
    q = 0
    while q < n - p and old[-1 - q].lines == new[-1 - q].lines and old[-1 - q].key == new[-1 - q].key:
        q += 1
    if p == len(old) == len(new):
        return None
    pairs = list(zip(old[:p], new[:p])) + list(zip(old[len(old) - q:], new[len(new) - q:]))
    pool: dict[tuple, list[model.Row]] = {}
    for r in old[p:len(old) - q]:
        pool.setdefault((r.key, *r.lines), []).append(r)
    for s in new[p:len(new) - q]:
        found = pool.get((s.key, *s.lines))
        if found:
            r = found.pop(0)
            pairs.append((r, s))
            out.moved.add(r.key)  # type: ignore[arg-type] # a keyed row's key is a str
        else:
            out.added.append((b, s))
    out.removed += [(a, r) for rows in pool.values() for r in rows]
    lines = {-1: (old[0].line if old else a.end) - a.start}
    for r, s in pairs:
        for j in range(len(r.lines)):
            lines[r.line + j] = s.line + j
    return lines
