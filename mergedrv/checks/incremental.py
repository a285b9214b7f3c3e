"""The record-only checks of a version whose changes are rows edited in place of
a version whose findings are known (range mode): the edited rows checked alone."""

from __future__ import annotations

from collections import Counter

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
    if not all(_one_line(c.pattern) for c in record.counts if c.file is None):  # (another file's pattern never reads the rows)
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


WHOLE = ("detached-row", "sequence")  # checked whole on the new version (each a pass over the rows)
_REFS: dict[str, list] = {}  # check -> the patterns of the line references its messages hold (compiled once)


def rows_only(cfg, snap, old: list[Finding], moves: dict, wanted: set[str], memo: dict, parent=None) -> list[Finding]:
    """What `run_checks(cfg, snap, only=wanted, shapes="records")` finds, from
    ``old`` (its findings on the ``parent`` snapshot), when each changed record
    file's rows were added, removed or moved and nothing else changed
    (``moves``: path -> `rowedits.Moved`).

    column-format, table-shape and key-format read a row's own lines: the
    added rows are checked, the kept rows' findings move with their lines
    (the line each message names too), the removed rows' go.  key-format
    is checked whole when its pattern could now match no key (no kept row
    that matched is known).  keys-unique is kept, moved, when no key added,
    removed or moved is doubled before or after (the multiset of keys: every
    key added is new to its record and added once, none removed or moved
    had a double); else checked whole.  detached-row and sequence are checked
    whole; rollup (rollups, grids and counts count the rows) is checked again
    for the records whose files changed, the others' findings kept.
    """
    from . import Context, registry, ordered
    from .rows import column_format, document_shape, key_format

    ctx = Context(cfg, snap, shapes="records", memo=memo)
    before = Context(cfg, parent, memo=memo) if parent is not None else None
    added = {path: {n for _, row in m.added for n in range(row.line, row.line + len(row.lines))}
             | {n for t in m.reread for n in range(t.body, t.end)} for path, m in moves.items()}
    firsts = {path: {row.line for _, row in m.added} for path, m in moves.items()}
    for path in moves:  # parsed whole: no conflict marker (the model refuses them)
        kept_key = ctx.blob_key([path])
        if kept_key is not None:
            memo[("regions", path, kept_key)] = []
    whole = set(WHOLE) & wanted
    if "keys-unique" in wanted and (before is None or not _unique_kept(before, old, moves)):
        whole.add("keys-unique")
    if "key-format" in wanted and not _formats_kept(ctx, old, moves):
        whole.add("key-format")
    counted = _counted(cfg, ctx, moves) if "rollup" in wanted else set()  # the records whose rollups run again
    kept = _kept([f for f in old if f.check != "rollup" or not _of(cfg, ctx, f, counted)], moves, whole)
    if "column-format" in wanted:
        column_format(ctx, firsts)
    if "key-format" in wanted and "key-format" not in whole:
        key_format(ctx, firsts)
    if "table-shape" in wanted:
        for record in ctx.records():
            for path, doc in ctx.record_docs(record):
                if path in added and added[path]:
                    document_shape(ctx, path, doc, added[path])
    local = [f for f in ctx.findings if f.path in added and f.line - 1 in added[f.path]]
    start = len(ctx.findings)
    checks = registry()
    for check in sorted(whole):
        checks[check](ctx)
    if counted:
        from .rollup import rollup

        rollup(ctx, counted)
    return ordered(kept + local + ctx.findings[start:], wanted)


def _counted(cfg, ctx, moves: dict) -> set[str]:
    """The records with rollups, grids or counts one of whose files changed
    (a rollup reads its own record's files alone: the others' findings stand)."""
    return {r.name for r in cfg.records if (r.rollups or r.grids or r.counts) and any(p in moves for p in ctx.files(r.path))}


def _of(cfg, ctx, f: Finding, names: set[str]) -> bool:
    """Is rollup finding ``f`` one of these records' (in one of its files, or
    of its configuration or a file its counts name: its message names the
    record first)?"""
    for r in cfg.records:
        if r.name in names and (f.path in ctx.files(r.path) or (f.path == ctx.config_path or f.path in r.counted_files())
                                and f.message.startswith(f"{r.name}: ")):
            return True
    return False


def _kept(old: list[Finding], moves: dict, whole: set[str]) -> list[Finding]:
    """The ``old`` findings of the checks not run ``whole``, moved to their
    lines (a removed row's go); a check whose message names a line that went
    is added to ``whole``."""
    kept: list[Finding] = []
    for f in old:
        if f.check in whole:
            continue
        if f.path not in moves:
            kept.append(f)  # (the configuration's, another file's)
            continue
        g = _shifted(f, moves)
        if g is None:
            if f.check == "keys-unique" or moves[f.path].line(f.line - 1) is not None:
                whole.add(f.check)  # a line its message names went
            continue  # a removed row's
        kept.append(g)
    return [f for f in kept if f.check not in whole]


def _shifted(f: Finding, moves: dict) -> Finding | None:
    """``f`` at its line in the new version, and every line its message names
    (None: its line was removed, or a line its message names)."""
    import re

    line = moves[f.path].line(f.line - 1)
    if line is None:
        return None
    refs = _REFS.get(f.check)
    if refs is None:
        refs = _REFS[f.check] = [re.compile(p) for p in {
            "table-shape": (r"(?<=its header \(line )(\d+)(?=\) has)", r"(?<=row of the table at line )(\d+)(?= \(header)"),
            "keys-unique": (r"(?<=\(first at line )(\d+)(?=\)$)", r"(?<=\(first at )(.+):(\d+)(?=\)$)"),
        }.get(f.check, ())]
    message = f.message
    for pattern in refs:
        m = pattern.search(message)
        if m is None:
            continue
        if m.lastindex == 2:  # another file of the record
            path, n = m.group(1), int(m.group(2))
            at = moves[path].line(n - 1) if path in moves else n - 1
        else:
            n = int(m.group(1))
            at = moves[f.path].line(n - 1)
        if at is None:
            return None
        message = message[: m.start(m.lastindex)] + str(at + 1) + message[m.end(m.lastindex):]
    return f.replace(line=line + 1, message=message)


def _unique_kept(before, old: list[Finding], moves: dict) -> bool:
    """keys-unique finds what it found before, moved: every key added is new
    to its record (and added once); no key removed or moved had a double."""
    docs = {path: m.old for path, m in moves.items()}
    doubled: set = set()
    for f in old:
        if f.check != "keys-unique":
            continue
        doc = docs.get(f.path)
        if doc is None:
            doc = docs[f.path] = before.doc(f.path, *_spec(before.cfg, f.path))
        row = doc.row_at(f.line - 1) if doc is not None else None
        if row is None:
            return False
        doubled.add(row.key)
    for record in before.cfg.records:
        paths = [p for p in before.files(record.path) if p in moves]
        if not paths:
            continue
        if record.per_table():
            return False  # keys unique per table: checked whole (the moves say nothing of tables)
        for group in ([[p] for p in paths] if record.per_file() else [paths]):  # key_scope = "file": each file alone
            if not _group_kept(before, record, group, moves, doubled):
                return False
    return True


def _group_kept(before, record, paths: list[str], moves: dict, doubled: set) -> bool:
    """No key added to, removed from or moved in these files of ``record``
    (all of them, or one under ``key_scope = "file"``) is doubled before or after."""
    added = Counter(s.key for p in paths for _, s in moves[p].added)
    removed = Counter(r.key for p in paths for _, r in moves[p].removed)
    moved = {k for p in paths for k in moves[p].moved}
    if doubled & (added.keys() | removed.keys() | moved):
        return False
    if record.per_file():
        keys = {row.key for row in moves[paths[0]].old.rows()}  # the file's keys before (none of these is doubled)
    else:
        keys = before.keys(record)  # each key once (none of these is doubled)
    return not any((k in keys) - removed[k] + n > 1 for k, n in added.items())


def _spec(cfg, path: str) -> tuple:
    record = cfg.record_for(path)
    return (record.key, False, None, record.key_pattern) if record is not None else (None, False, None, None)


def _formats_kept(ctx, old: list[Finding], moves: dict) -> bool:
    """key-format needs only the added keys checked: it said nothing of the
    configuration, and each key column keeps a row whose key matched."""
    if any(f.check == "key-format" and f.path not in moves and f.path == ctx.config_path for f in old):
        return False
    flagged = set()
    for f in old:
        if f.check == "key-format" and f.path in moves:
            at = moves[f.path].line(f.line - 1)
            if at is not None:
                flagged.add((f.path, at))
    for record in ctx.cfg.records:
        if not record.key_pattern or not any(p in moves for p in ctx.files(record.path)):
            continue
        new = {(p, s.line) for p in moves for _, s in moves[p].added}
        for column in record.key_columns():
            if not model.pattern_for(record.key_pattern, column):
                continue
            if not any((path, row.line) not in new and (path, row.line) not in flagged
                       for path, doc in ctx.record_docs(record) for t in doc.keyed_tables() if t.key_name == column for row in t.rows):
                return False
    return True
