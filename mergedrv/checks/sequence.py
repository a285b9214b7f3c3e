"""The `sequence` check: a record's sequence column numbers each table's
rows 1..n in table order; a table numbered otherwise, or a row whose cell is
not a number, is left alone by the merge, and reported here."""

from __future__ import annotations

from .. import model


def sequence(ctx) -> None:
    """Each keyed table holding the record's ``sequence`` column, numbered 1..n
    (the merge's numbering read only where a record has one: importing the
    merge costs each hook a few ms)."""
    for record in ctx.records():
        if not record.sequence:
            continue
        from ..merge.sequence import index

        for path, doc in ctx.record_docs(record):
            for table in doc.keyed_tables():
                idx = index(table, record.sequence)
                if idx is not None and table.detached is None:
                    _table(ctx, record, path, table, idx)


def _table(ctx, record, path: str, table: model.Table, idx: int) -> None:
    """One finding per table: its first row out of 1..n."""
    from ..merge.sequence import number

    col = record.sequence
    for i, row in enumerate(table.rows, 1):
        got = number(row.lines[0], row.column, idx)
        if got == i:
            continue
        if got is None:
            cell = ctx.cells(table, row)[idx].strip() if idx < len(ctx.cells(table, row)) else b""
            why = f"its {col} cell {cell.decode('utf-8', 'replace')!r} is not a number"
        else:
            why = f"it is numbered {got}, but it is row {i} of the table"
        ctx.add(path, row.line + 1, "sequence",
                f"{record.name}: {model.shown(row.key or '')}: {why}; column {col} numbers the rows 1..n in table order, "
                f"and a merge leaves the numbers of this table (line {table.start + 1}) alone until they are; number them 1..{len(table.rows)}")
        return
