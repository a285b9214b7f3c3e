"""Row checks of one snapshot: keys-unique, key-format, column-format, table-shape."""

from __future__ import annotations

from .. import model
from . import Context, patterns


def _short(text: str, size: int = 60) -> str:
    return text if len(text) <= size else text[: size - 3] + "..."


def keys_unique(ctx: Context) -> None:
    """A key defined twice in a record (one file, or across a record's files)."""
    for record in ctx.records():
        first: dict[str, tuple[str, int]] = {}
        for path, doc in ctx.record_docs(record):
            for row in doc.rows():
                where = first.get(row.key)
                if where is None:
                    first[row.key] = (path, row.line + 1)
                    continue
                at = f"line {where[1]}" if where[0] == path else f"{where[0]}:{where[1]}"
                ctx.add(path, row.line + 1, "keys-unique", f"{record.name}: key {row.key} is defined twice (first at {at})")


def key_format(ctx: Context) -> None:
    """A key that does not match the record's ``key_pattern``."""
    for record in ctx.records():
        if not record.key_pattern:
            continue
        for path, doc in ctx.record_docs(record):
            for row in doc.rows():
                try:
                    ok = patterns.search(record.key_pattern, row.key) is not None
                except patterns.PatternError as exc:
                    ctx.add(path, row.line + 1, "key-format", f"{record.name}: key_pattern: {exc}")
                    if "cannot be used" in str(exc):
                        break
                    continue
                if not ok:
                    ctx.add(path, row.line + 1, "key-format", f"{record.name}: key {_short(row.key)} does not match key_pattern {record.key_pattern!r}")


def column_format(ctx: Context) -> None:
    """A cell that does not match the pattern declared for its column."""
    for record in ctx.records():
        if not record.columns:
            continue
        wanted = {model.normalize_name(c): (c, p) for c, p in record.columns.items()}
        seen: set[str] = set()
        broken: set[str] = set()
        for path, doc in ctx.record_docs(record):
            for table in doc.keyed_tables():
                for col, (name, pattern) in wanted.items():
                    if col not in table.columns:
                        continue
                    seen.add(col)
                    i = table.columns.index(col)
                    for row in table.rows:
                        if col in broken:
                            break
                        cells = row.cells().cells
                        if i >= len(cells):
                            continue  # table-shape reports the short row
                        text = cells[i].decode("utf-8", "replace").strip()
                        try:
                            ok = patterns.search(pattern, text) is not None
                        except patterns.PatternError as exc:
                            ctx.add(path, row.line + 1, "column-format", f"{record.name}: {row.key}: column {name}: {exc}")
                            if "cannot be used" in str(exc):
                                broken.add(col)
                            continue
                        if not ok:
                            ctx.add(
                                path,
                                row.line + 1,
                                "column-format",
                                f"{record.name}: {row.key}: column {name} holds {_short(text)!r}, which does not match {pattern!r}",
                            )
        for col, (name, _) in wanted.items():
            if col not in seen and ctx.record_docs(record):
                ctx.add(ctx.config_path, record.line, "column-format", f"{record.name}: no keyed table has a column {name!r}; fix [record.columns]")


def _shape(ctx: Context, path: str, doc: model.Document, only: set[int] | None = None) -> None:
    """Report badly shaped body lines of every table (``only``: these 0-based lines)."""
    for table in doc.tables:
        want = len(model.split_cells(table.header, table.column).cells)
        got = len(model.split_cells(table.delimiter, table.column).cells)
        if got != want and only is None:
            ctx.add(path, table.start + 2, "table-shape", f"the delimiter row has {got} cells, the header {want}")
        for n in range(table.start + 2, table.end):
            if only is not None and n not in only:
                continue
            line = doc.lines[n]
            body = line[table.column :]
            if not body.strip():
                continue  # blank lines inside a log table
            if b"|" not in body:
                ctx.add(path, n + 1, "table-shape", f"this line has no cell separator, so it is read as a 1-cell row of the table at line {table.start + 1} (header: {want} cells); add an empty line before it or join it to the row above")
                continue
            got = len(model.split_cells(line, table.column).cells)
            if got != want:
                row = doc.row_at(n)
                name = f"{row.key}: " if row is not None and row.line == n else ""
                ctx.add(path, n + 1, "table-shape", f"{name}row has {got} cells, its header (line {table.start + 1}) has {want}; escape a literal pipe as \\| (inside code spans too)")


def table_shape(ctx: Context) -> None:
    """A table row whose cell count differs from its header's.

    Every table of a record file; in a log, the rows this change adds (the
    rows already logged cannot be edited, so they are not held against it).
    """
    for record in ctx.records():
        for path, doc in ctx.record_docs(record):
            _shape(ctx, path, doc)
    if ctx.parent is None:
        return
    for log in ctx.cfg.logs:
        if not ctx.examined(log.path):
            continue
        for path in ctx.files(log.path):
            if ctx.same_in_parent(path):
                continue
            doc = ctx.doc(path, log=True)
            old = ctx.doc(path, log=True, snap=ctx.parent)
            if doc is None:
                continue
            known = {row.lines[0].rstrip() for t in old.tables for row in t.rows} if old is not None else set()
            new = {row.line for t in doc.tables for row in t.rows if row.lines[0].rstrip() not in known}
            _shape(ctx, path, doc, new)
