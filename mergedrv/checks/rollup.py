"""The rollup check: declared rollup tables, prose counts and the counts of
other files (a checker's constant) agree with the rows."""

from __future__ import annotations

from . import Context


def rollup(ctx: Context, names: set[str] | None = None) -> None:
    """Each record's rollups, grids and counts against its rows (``names``:
    these records' alone, range mode's records whose files changed)."""
    for record in ctx.records():
        if names is not None and record.name not in names:
            continue
        if not record.rollups and not record.counts and not record.grids:
            continue
        docs = ctx.record_docs(record)
        if not docs:
            continue
        rows = ctx.rows(record)
        found: set[tuple[str, int]] = set()
        reported: set[tuple[str, int]] = set()
        for path, doc in docs:
            _report(ctx, record, path, ctx.derive(record, doc, rows), found, reported)
        _counted_files(ctx, record, rows, found, reported)
        for i, r in enumerate(record.rollups):
            if ("rollup", i) not in found:
                ctx.add(ctx.config_path, r.line, "rollup", f"{record.name}: no table under a heading {r.heading!r} has the columns {r.label!r} and {r.count!r}")
        for i, g in enumerate(record.grids):
            if ("grid", i) not in found:
                ctx.add(ctx.config_path, g.line, "rollup", f"{record.name}: no table has the grid's columns {g.label!r} and {g.rows!r}")
        for i, c in enumerate(record.counts):
            if ("count", i) not in found:
                where = f"in {c.path()}" if c.file is not None else "outside the keyed tables"
                ctx.add(ctx.config_path, c.line, "rollup", f"{record.name}: count pattern '{c.pattern}' matches nothing {where}")


def _counted_files(ctx: Context, record, rows, found: set[tuple[str, int]], reported: set[tuple[str, int]]) -> None:
    """The counts of ``record`` that name another file (``file``), judged in it:
    a stale number at its line there, a file the snapshot lacks at the count's
    `.mergedrv.toml` line."""
    for path, data, result in ctx.counted(record, rows):
        mine = [(i, c) for i, c in enumerate(record.counts) if c.path() == path]
        if data is None:
            for i, c in mine:
                found.add(("count", i))
                ctx.add(ctx.config_path, c.line, "rollup", f"{record.name}: count file '{c.file}' matches no file in "
                        f"{getattr(ctx.snap, 'label', '') or 'the snapshot'}, so the count is not judged; "
                        "name a file git tracks (`git ls-files`), or remove the [[record.count]]")
            continue
        if result is None:  # a merge's conflict regions: counted once resolved
            found.update(("count", i) for i, _ in mine)
            continue
        _report(ctx, record, path, result, found, reported)


def _report(ctx: Context, record, path: str, result, found: set[tuple[str, int]], reported: set[tuple[str, int]]) -> None:
    """What one file's derived numbers say: a wrong number at its line, a
    problem at its line or, once, at its entry's `.mergedrv.toml` line
    (``found``: the entries that matched; ``reported``: those said once)."""
    for n in result.numbers:
        found.add(n.source)
        if n.found != n.want:
            ctx.add(path, n.line, "rollup", f"{record.name}: {n.what} says {n.found}, the rows give {n.want} (`mergedrv fix` rewrites it)")
    for p in result.problems:
        if p.line:
            ctx.add(path, p.line, "rollup", f"{record.name}: {p.message}")
        elif p.source not in reported:
            reported.add(p.source)
            found.add(p.source)
            ctx.add(ctx.config_path, config_line(record, p.source), "rollup", f"{record.name}: {p.message}")


def config_line(record, source: tuple[str, int]) -> int:
    """The `.mergedrv.toml` line of the rollup, grid or count a problem comes from (the record's if none)."""
    kind, i = source
    items = {"rollup": record.rollups, "grid": record.grids}.get(kind, record.counts)
    return items[i].line if i < len(items) else record.line
