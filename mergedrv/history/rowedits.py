"""A record version that edited some rows in place of a version already parsed
and checked: its Document built from that one (`edited`), and its record-only
findings from that one's (`record_findings`: range mode's incremental checks).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from .. import model
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
    begin and end with (only the middle is split)."""
    a = b"".join(old) if a is None else a
    limit = min(len(a), len(data))
    same = _shared(a, data, limit, False)
    tail = _shared(a, data, limit - same, True)
    starts = list(accumulate(map(len, old), initial=0))
    i = bisect_right(starts, same) - 1  # the lines before it lie in the shared beginning
    if i > 0 and not old[i - 1].endswith(b"\n"):
        i -= 1  # the last line, which the new bytes may go on
    k = min(max(bisect_right(starts, len(a) - tail), i), len(old))  # from it on, each line and the byte before it are shared
    middle = model.split_lines(data[starts[i] : len(data) - (len(a) - starts[k])])
    if len(middle) != k - i:
        return None
    return old[:i] + middle + old[k:], i, k


def _shared(a: bytes, b: bytes, limit: int, end: bool) -> int:
    """How many bytes ``a`` and ``b`` share from their start (``end``: from their
    end), at most ``limit``; it may say up to 63 fewer: slices compared in C,
    in growing chunks."""
    at, step, la, lb = 0, 4096, len(a), len(b)
    view = memoryview(b)  # compared in place (no copy)
    while step >= 64:
        if at + step <= limit and (a.endswith(view[lb - at - step : lb - at], 0, la - at) if end else
                                   a.startswith(view[at : at + step], at)):
            at += step
            step *= 2
        else:
            step //= 2
    return at


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
    if key is None or key == by_blobs:
        return None
    parsed = checks.parsed
    changes: list[Change] = []
    for record, old_id, new_id in zip(cfg.records, key[2], by_blobs[2]):
        if old_id == new_id:
            continue
        if old_id is None or new_id is None:
            return None
        try:
            old_doc = parsed.get(old_id, record.key, False, record.key_pattern, record.path.lstrip("/"))
        except model.Unmodelable:
            return None
        found = edited(record.path.lstrip("/"), old_doc, parsed.data(new_id), parsed.data(old_id))
        if found is None:
            return None
        parsed.put(new_id, record.key, False, record.key_pattern, found[0])
        changes += [c for c in found[1] if c not in changes]
    before = parsed_tree(checks.repo, parent, parsed)
    if key not in checks._records:  # the parent's, as its own `SnapshotChecks._split` keeps them
        checks._records[key] = run_checks(cfg, before, None, None, only=alone, paths=None, shapes="records", memo=checks._memo)
    checks.incremental.append(commit.id)
    return incremental.record_only(cfg, snap, checks._records[key], changes, alone, checks._memo, before)
