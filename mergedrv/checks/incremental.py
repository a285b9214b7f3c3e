"""The record-only checks of a version whose changes are rows edited in place of
a version whose findings are known (range mode): the edited rows checked alone."""

from __future__ import annotations

from .. import model
from ..captures import one_line
from ..derived import cell_text
from ..findings import Finding

LOCAL = ("column-format", "table-shape")  # what a row's own line decides
KEYED = ("keys-unique", "key-format")  # what the keys decide


def record_only(cfg, snap, old: list[Finding], changes: list, wanted: set[str], memo: dict, parent=None) -> list[Finding]:
    """What `run_checks(cfg, snap, only=wanted, shapes="records")` finds, from
    ``old`` (its findings on the version ``changes`` were made to: `rowedits.Change`,
    each a row's first line edited, its key, line and table shape kept).

    detached-row reads prose and keys: kept.  keys-unique and key-format
    read keys and lines: kept when no edit changed a key, else checked whole.
    column-format and table-shape read a row's own line: the edited rows are
    checked again and the rest kept.  rollup reads the counted columns of the
    rows: kept when no edit changed one, else checked whole.  With no key
    changed, the keys the refs check knows are the ``parent`` snapshot's.
    """
    from . import Context, registry, ordered
    from .rows import document_shape, column_format

    ctx = Context(cfg, snap, shapes="records", memo=memo)
    only: dict[str, set[int]] = {}
    for c in changes:
        only.setdefault(c.path, set()).add(c.new.line)
    for path in only:  # the parent's version had none (it was parsed) and no edit wrote a marker (`rowedits.edited`)
        kept = ctx.blob_key([path])
        if kept is not None:
            memo[("regions", path, kept)] = []
    at = {(c.path, c.new.line + 1) for c in changes}
    whole = set(KEYED if any(c.old.key != c.new.key for c in changes) else ())
    if not whole and parent is not None:
        _same_keys(ctx, Context(cfg, parent, memo=memo), {c.path for c in changes})
    if not all(_rollup_kept(r, [c for c in changes if c.path == r.path.lstrip("/")]) for r in cfg.records):
        whole.add("rollup")
    whole &= wanted
    kept = [f for f in old if not ((f.path, f.line) in at and f.check in LOCAL) and f.check not in whole]
    if "column-format" in wanted:
        column_format(ctx, only)
    if "table-shape" in wanted:
        for record in ctx.records():
            for path, doc in ctx.record_docs(record):
                if path in only:
                    document_shape(ctx, path, doc, only[path])
    local = [f for f in ctx.findings if (f.path, f.line) in at and f.check in LOCAL]
    before = len(ctx.findings)
    checks = registry()
    for check in sorted(whole):
        checks[check](ctx)
    return ordered(kept + local + ctx.findings[before:], wanted)


def _same_keys(ctx, parent, paths: set[str]) -> None:
    """No edit changed a key, and the lines stay: each edited record's keys
    (and where each is first defined), and the refs check's universe, are
    those kept for the ``parent``."""
    from .refs import same_universe

    memo = ctx.shared("keys")
    for record in ctx.cfg.records:
        if any(p in paths for p in ctx.files(record.path)):
            old, new = parent.keys_key(record), ctx.keys_key(record)
            if old in memo and new is not None:
                memo.setdefault(new, memo[old])
    same_universe(ctx, parent)


def _rollup_kept(record, changes: list) -> bool:
    """Whether ``record``'s rollups, grids and counts come out as before the
    ``changes``: no edited row sits in a rollup's table or changed a cell of
    a column they count by, and every count pattern stays on its line (so the
    rows' text is not searched)."""
    if not changes or not (record.rollups or record.grids or record.counts):
        return True
    if not all(_one_line(c.pattern) for c in record.counts):
        return False
    columns = {model.normalize_name(r.group) for r in record.rollups} | {model.normalize_name(g.column) for g in record.grids}
    columns |= {model.normalize_name(col) for c in record.counts for col in c.where}
    for c in changes:
        t = c.table
        heading = model.normalize_name(t.heading)
        for r in record.rollups:
            if heading == model.normalize_name(r.heading) and {model.normalize_name(r.label), model.normalize_name(r.count)} <= set(t.columns):
                return False
        before, after = c.old.cells().cells, c.new.cells().cells
        for col in columns & set(t.columns):
            i = t.columns.index(col)
            if _text(before, i) != _text(after, i):
                return False
    return True


_ONE_LINE: dict[str, bool] = {}


def _one_line(pattern: str) -> bool:
    if pattern not in _ONE_LINE:
        _ONE_LINE[pattern] = one_line(pattern)
    return _ONE_LINE[pattern]


def _text(cells: list[bytes], i: int) -> str:
    return cell_text(cells[i]) if i < len(cells) else ""
