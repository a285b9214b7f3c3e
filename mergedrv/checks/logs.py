"""The log-append-only check: a log's existing rows stay as they are, in order,
and new rows go at the end."""

from __future__ import annotations


from .. import model
from . import Context
from .deltas import Extended


def _rows(doc: model.Document) -> list[tuple[bytes, int]]:
    """(row text without line ending and trailing space, 1-based line) of every log row."""
    return [(row.lines[0].rstrip(), row.line + 1) for table in doc.tables for row in table.rows]


def _short(row: bytes, size: int = 70) -> str:
    text = row.decode("utf-8", "replace").strip()
    return text if len(text) <= size else text[: size - 3] + "..."


def is_prose_log(doc: model.Document) -> bool:
    """The log grows in prose (a ledger is one table to its end): it holds
    no table, or prose follows its first table."""
    if not doc.tables:
        return True
    inside = {n for t in doc.tables for n in range(t.start, t.end)}
    return any(line.strip() and n not in inside for n, line in enumerate(doc.lines[doc.tables[0].end :], doc.tables[0].end))


def _prose(ctx: Context, path: str, new_doc: model.Document, old_doc: model.Document) -> None:
    """A prose log: its lines up to the base's end stay as they are."""
    old, new = old_doc.lines, new_doc.lines
    n = 0
    for a, b in zip(old, new):
        if a != b:
            break
        n += 1
    if n == len(old) or (n == len(old) - 1 and n < len(new) and new[n].startswith(old[n].rstrip(b"\r\n"))):
        return  # only appended
    what = "removed" if n >= len(new) else f"changed ({_short(old[n])})"
    ctx.add(path, min(n, len(new) - 1) + 1 if new else 1, "log-append-only", f"line {n + 1} of the log was {what}; a log only grows at its end: add a new entry there")


def log_append_only(ctx: Context) -> None:
    for path, new_doc, old_doc in ctx.changed_logs():
        if old_doc is None or new_doc is None or isinstance(old_doc, Extended):
            continue  # unreadable, or lines appended at the end (`Context.appended`, `Extended`): nothing changed
        if is_prose_log(old_doc):
            before = len(ctx.findings)
            _rows_changed(ctx, path, new_doc, old_doc)
            if len(ctx.findings) == before:
                _prose(ctx, path, new_doc, old_doc)
            continue
        _rows_changed(ctx, path, new_doc, old_doc)


def _rows_changed(ctx: Context, path: str, new_doc: model.Document, old_doc: model.Document) -> None:
    """The log tables' rows: existing ones never changed, new ones at the end."""
    from difflib import SequenceMatcher  # only for a log the change touches
    old, new = _rows(old_doc), _rows(new_doc)
    end = new[-1][1] + 1 if new else 1
    matcher = SequenceMatcher(None, [r for r, _ in old], [r for r, _ in new], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal" or (op == "insert" and i1 == len(old)):
            continue
        if op in ("replace", "delete"):
            for k in range(i1, i2):
                j = j1 + (k - i1)
                if op == "replace" and j < j2:
                    ctx.add(path, new[j][1], "log-append-only", f"the log row of line {old[k][1]} was changed ({_short(old[k][0])}); existing rows are never edited: append a new row")
                else:
                    at = new[j2][1] if j2 < len(new) else end
                    ctx.add(path, at, "log-append-only", f"the log row of line {old[k][1]} was removed ({_short(old[k][0])}); existing rows are never removed")
        extra = range(j1 + (i2 - i1), j2) if op == "replace" else range(j1, j2) if op == "insert" else range(0)
        for j in extra:
            if op == "replace" and i2 == len(old):
                continue  # rows after the last old one are appended
            ctx.add(path, new[j][1], "log-append-only", f"a row was inserted before existing rows ({_short(new[j][0])}); new rows go at the end of the log")
