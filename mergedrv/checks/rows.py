"""Row checks of one snapshot: keys-unique, key-format, column-format, table-shape."""

from __future__ import annotations

from .. import model
from .. import patterns
from . import Context
from .deltas import Extended


def _short(text: str, size: int = 60) -> str:
    return text if len(text) <= size else text[: size - 3] + "..."


def keys_unique(ctx: Context) -> None:
    """A key defined twice in a record (one file, or across a record's files;
    within each file alone under ``key_scope = "file"``, each table alone
    under ``key_scope = "table"``)."""
    for record in ctx.records():
        first: dict[str, tuple[str, int]] = {}
        for path, doc in ctx.record_docs(record):
            if record.per_file():
                first = {}
            for rows in ([t.rows for t in doc.keyed_tables()] if record.per_table() else [doc.rows()]):
                if record.per_table():
                    first = {}
                for row in rows:
                    key = _key(row)
                    where = first.get(key)
                    if where is None:
                        first[key] = (path, row.line + 1)
                        continue
                    at = f"line {where[1]}" if where[0] == path else f"{where[0]}:{where[1]}"
                    ctx.add(path, row.line + 1, "keys-unique", f"{record.name}: key {model.shown(key)} is defined twice (first at {at})")


def _key(row: model.Row) -> str:
    """A keyed row's key (the rows of keyed tables, the only ones checked here, all have one)."""
    return row.key  # type: ignore[return-value] # (str | None as the model types it)


def key_format(ctx: Context, only: dict[str, set[int]] | None = None) -> None:
    """A key that does not match the record's ``key_pattern`` (``only``: the
    rows starting at these 0-based lines of each path, range mode's added
    rows, where some other key is known to match; the rest is known)."""
    for record in ctx.records():
        if not record.key_pattern:
            continue
        for column in record.key_columns():
            _key_format(ctx, record, column, only)


def _key_format(ctx: Context, record, column: str, only: dict[str, set[int]] | None = None) -> None:
    """The keys of the tables keyed by ``column``, against its pattern."""
    pattern = model.pattern_for(record.key_pattern, column)
    if not pattern:
        return
    picked = [(path, row) for path, doc in ctx.record_docs(record) if only is None or path in only
              for t in doc.keyed_tables() if t.key_name == column for row in t.rows if only is None or row.line in only[path]]
    rows = [(path, model.shown(_key(row))) for path, row in picked]
    lines = [row.line for _, row in picked]
    try:
        hits = ctx.matching(pattern, [key for _, key in rows])
    except patterns.PatternError as exc:
        ctx.add(ctx.config_path, record.line, "key-format", f"{record.name}: key_pattern: {exc}")
        return
    col = f" ({column})" if len(record.key_columns()) > 1 else ""
    if len(rows) > 1 and not any(hits) and only is None:
        _matches_none(ctx, record, col, pattern, rows[0][0], lines[0] + 1, len(rows))
        return
    for (path, key), line, hit in zip(rows, lines, hits):
        if hit is None:
            ctx.add(path, line + 1, "key-format", f"{record.name}: key {_short(key)} is {len(key)} characters, too long to match")
        elif not hit:
            ctx.add(path, line + 1, "key-format", f"{record.name}: key {_short(key)} does not match key_pattern{col} '{pattern}'")


def _matches_none(ctx: Context, record, col: str, pattern: str, path: str, line: int, n: int) -> None:
    """A key_pattern that none of the record's keys matches: the pattern is
    wrong, not the rows; one finding at its `.mergedrv.toml` line."""
    from ..config.validate import key_line

    text = ctx.config_data.decode("utf-8", "replace") if ctx.config_data is not None else ""
    ctx.add(ctx.config_path, key_line(text, record.line, "key_pattern"), "key-format",
            f"{record.name}: key_pattern{col} '{pattern}' matches none of the {n} keys (the first is at {path}:{line}); "
            f"write a pattern the record's keys match")


def column_format(ctx: Context, only: dict[str, set[int]] | None = None) -> None:
    """A cell that does not match the pattern declared for its column
    (``only``: the rows starting at these 0-based lines of each path, range
    mode's edited rows; the rest is known)."""
    for record in ctx.records():
        if not record.columns:
            continue
        docs = ctx.record_docs(record)
        picked = None if only is None else _picked(docs, only)
        for name, pattern in record.columns.items():
            col = model.normalize_name(name)
            cells: list[tuple[str, model.Row, bytes]] = []
            seen = False
            for path, doc in docs:
                for table in doc.keyed_tables():
                    if col not in table.columns:
                        continue
                    seen = True
                    rows = table.rows if picked is None else picked.get(id(table))
                    if not rows:
                        continue
                    i = table.columns.index(col)
                    kept = ctx.shared("column-format", i)  # range mode: a line's stripped cell, once
                    for row in rows:
                        text = kept.get((row.lines[0], row.column)) if kept is not None else None
                        if text is None:
                            raw = ctx.cells(table, row)
                            text = patterns.stripped(raw[i]) if i < len(raw) else False  # a short row is table-shape's
                            if kept is not None:
                                kept[(row.lines[0], row.column)] = text
                        if isinstance(text, bytes):  # False: a short row
                            cells.append((path, row, text))
            if docs and not seen:
                ctx.add(ctx.config_path, record.line, "column-format", f"{record.name}: no keyed table has a column {name!r}; fix [record.columns]")
                continue
            try:
                hits = ctx.matching(pattern, [text for _, _, text in cells])
            except patterns.PatternError as exc:
                ctx.add(ctx.config_path, record.line, "column-format", f"{record.name}: column {name}: {exc}")
                continue
            for (path, row, cell), hit in zip(cells, hits):
                if hit:
                    continue
                text = cell.decode("utf-8", "replace")
                if hit is None:
                    ctx.add(path, row.line + 1, "column-format", f"{record.name}: {model.shown(_key(row))}: column {name} holds {len(text)} characters, too long to match")
                elif not hit:
                    ctx.add(path, row.line + 1, "column-format", f"{record.name}: {model.shown(_key(row))}: column {name} holds {_short(text)!r}, which does not match '{pattern}'")


def _picked(docs, only: dict[str, set[int]]) -> dict[int, list[model.Row]]:
    """id(table) -> its rows starting at the ``only`` lines of its path."""
    out = {}
    for path, doc in docs:
        lines = only.get(path)
        if not lines:
            continue
        for table in doc.keyed_tables():
            if any(table.start <= n < table.end for n in lines):
                out[id(table)] = [r for r in table.rows if r.line in lines]
    return out


def document_shape(ctx: Context, path: str, doc: model.Document, only: set[int] | None = None) -> None:
    """Report badly shaped body lines of every table (``only``: these 0-based lines)."""
    for table in doc.tables:
        if only is not None and not any(table.body <= n < table.end for n in only):
            continue
        want = len(model.split_cells(table.header, table.column).cells)
        got = len(model.split_cells(table.delimiter, table.column).cells)
        if got != want and only is None and table.detached is None:
            ctx.add(path, table.start + 2, "table-shape", f"the delimiter row has {got} cells, the header {want}")
        counts = ctx.shared("cell_count", table.column)  # range mode: a line's count, once per range
        for n in range(table.body, table.end):
            if only is not None and n not in only:
                continue
            line = doc.lines[n]
            got = counts.get(line) if counts is not None else None
            if got is None:
                body = line[table.column :]
                if not body.strip():
                    got = -1  # blank lines inside a log table
                elif b"|" not in body:
                    got = 0
                else:
                    got = model.cell_count(line, table.column)
                if counts is not None:
                    counts[line] = got
            if got == -1:
                continue
            if got == 0:
                ctx.add(path, n + 1, "table-shape", f"this line has no cell separator, so it is read as a 1-cell row of the table at line {table.start + 1} (header: {want} cells); add an empty line before it or join it to the row above")
                continue
            if got != want:
                row = doc.row_at(n)
                guess = model.key_of(line, table.column, table.key_col) if table.key_col is not None else None  # (a ragged row has no key)
                key = row.key if row is not None and row.line == n else guess
                name = f"{model.shown(key)}: " if key else ""
                _cells(ctx, path, n, name, got, table.start, want)


def _cells(ctx: Context, path: str, n: int, name: str, got: int, start: int, want: int) -> None:
    ctx.add(path, n + 1, "table-shape", f"{name}row has {got} cells, its header (line {start + 1}) has {want}; escape a literal pipe as \\| (inside code spans too)")


def table_shape(ctx: Context) -> None:
    """A table row whose cell count differs from its header's.

    Every table of a record file; in a log, the rows this change adds (the
    rows already logged cannot be edited, so they are not held against it).
    """
    for record in ctx.records() if ctx.shapes != "logs" else ():
        for path, doc in ctx.record_docs(record):
            document_shape(ctx, path, doc)
    for path, doc, old in ctx.changed_logs() if ctx.shapes != "records" else ():
        if doc is None and hasattr(old, "new_rows"):  # rows appended to the last table: only they are new
            for n, line in old.new_rows():
                got = model.cell_count(line, old.column)
                if got != old.want:  # a log row has no key; each starts with a pipe
                    _cells(ctx, path, n, "", got, old.table_start, old.want)
            continue
        if doc is None:
            continue
        if isinstance(old, Extended):  # the parent is this document's first `old.lines` lines
            known = {row.lines[0].rstrip() for t in doc.tables for row in t.rows if row.line < old.lines}
        else:
            known = {row.lines[0].rstrip() for t in old.tables for row in t.rows} if old is not None else set()
        new = {row.line for t in doc.tables for row in t.rows if row.lines[0].rstrip() not in known}
        document_shape(ctx, path, doc, new)


def detached_row(ctx: Context) -> None:
    """A row below its table, past blank lines or prose: an entry of the
    record (keyed, counted, merged), but GitHub shows it as text.  Reported
    once per row unless the record says ``detached_rows = "keep"``."""
    for record in ctx.records():
        if record.detached_rows == "keep":
            continue
        for path, doc in ctx.record_docs(record):
            for table in doc.keyed_tables():
                owner = table.detached
                if owner is None:
                    continue
                for row in table.rows:
                    ctx.add(
                        path, row.line + 1, "detached-row",
                        f"{record.name}: {model.shown(_key(row))} is a row of the table at line {owner.start + 1}, but blank lines or prose separate it "
                        f"from the table, so GitHub shows it as text; move it up into the table with no blank line before it "
                        f"(or set detached_rows = \"keep\" under this [[record]])",
                    )
