"""The refs check: reference columns and backticked IDs in reference files must
name keys that exist (in any record of the snapshot)."""

from __future__ import annotations

import re
from collections.abc import Collection

from .. import model
from .. import patterns
from ..model.edits import changed_lines
from . import Context, conflict_keys

_WORDS = re.compile(r"[\s,;()\[\]]+")
_EMPTY = {"", "-", "—", "–", "n/a", "none", "tbd"}


def code_spans(line: str) -> list[str]:
    """The text of each `code span` of a line (an unclosed backtick opens none)."""
    parts = line.split("`")
    spans = parts[1::2]
    if len(parts) % 2 == 0:  # odd number of backticks: the last one is unclosed
        spans = spans[:-1]
    return [s.strip() for s in spans if s.strip()]


def _candidates(raw: str) -> list[str]:
    return code_spans(raw) or [w for w in _WORDS.split(raw.replace("**", "")) if w]


def _named(candidates, key_patterns: list[str], universe: Collection, matching=patterns.matching) -> set:
    """The candidates (str, or UTF-8 bytes) that look like keys (match a key
    pattern) but are none."""
    if isinstance(universe, Lazy):  # ask it only about what looks like a key
        return universe.unknown(_named(candidates, key_patterns, (), matching))
    unknown = sorted({c for c in candidates if c not in universe})
    out: set = set()
    for pattern in key_patterns:
        try:
            hits = matching(pattern, unknown)
        except patterns.PatternError:
            continue  # key-format reports the pattern
        out.update(c for c, hit in zip(unknown, hits) if hit)
    return out


class Lazy:
    """The universe of one snapshot's check (the hooks), read record by
    record only as far as a question needs: references that name keys of
    their own record are settled by that record's files alone, and the
    others are parsed only for names still unknown.  ``known`` is the same
    universe as UTF-8 bytes (`_Bad`: ``spans - known``)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.keys: set[str] = set()
        self.left = list(ctx.cfg.records)
        self.known = _LazyBytes(self)

    def unknown(self, names) -> set:
        """The ``names`` (str) no record defines."""
        out = {n for n in names if n not in self.keys}
        if out and self.left:  # first the records whose key pattern one of them matches
            for record in sorted(self.left, key=lambda r: not self._may_hold(r, out)):
                if not out:
                    break
                self.left.remove(record)
                found = record_keys(self.ctx, [record])
                self.keys |= found
                out -= found
        return out

    def _may_hold(self, record, names: set) -> bool:
        pattern = model.any_pattern(record.key_pattern)
        if not pattern:
            return True
        try:
            return any(self.ctx.matching(pattern, sorted(names)))
        except patterns.PatternError:
            return True

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and not self.unknown({name})


class _LazyBytes:
    """`Lazy` as the UTF-8 keys a set of spans is taken from (``spans - known``)."""

    def __init__(self, universe: Lazy) -> None:
        self.universe = universe

    def __rsub__(self, spans) -> frozenset:
        names = {s.decode("utf-8", "surrogateescape"): s for s in spans}
        return frozenset(names[n] for n in self.universe.unknown(set(names)))


def _missing(ctx: Context, key: str) -> str:
    from .ratchet import retired_in

    where = retired_in(ctx, key)
    return f"{key} names no key of any record" + (f" (it is retired in {where})" if where else "")


def _columns(ctx: Context, record, files: list[str], key_patterns: list[str], universe) -> None:
    """Reference columns: each ID a cell names must be a key."""
    wanted = {model.normalize_name(c) for c in record.refs}
    found: list[tuple[str, int, str, list[str]]] = []  # path, line, column, ids
    for path in files:
        _cells_of(ctx, record, path, wanted, key_patterns, found)
    if key_patterns:
        bad = _named([i for *_, ids in found for i in ids], key_patterns, universe, ctx.matching)
    else:
        bad = {i for *_, ids in found for i in ids if i not in universe}
    for path, line, column, ids in found:
        for key in ids:
            if key in bad:
                ctx.add(path, line, "refs", f"{record.name}: column {column}: {_missing(ctx, key)}")


def _cells_of(ctx: Context, record, path: str, wanted: set[str], key_patterns: list[str], found: list) -> None:
    """(path, line, column, ids) of each reference cell of ``path``."""
    doc = ctx.doc(path, record.key, key_pattern=record.key_pattern)
    if doc is None:
        return
    settled = _parent_rows(ctx, record, path)
    for table in doc.tables:
        cols = [i for i, c in enumerate(table.columns) if c in wanted]
        if not cols:
            continue
        shown = [c.decode("utf-8", "replace").strip().strip("*`") for c in model.split_cells(table.header, table.column).cells]
        memo = ctx.shared("ref_cells", table.column, tuple(cols), bool(key_patterns))  # range mode: a line's ids, once
        for n in range(table.body, table.end):
            line = doc.lines[n]
            if (table.header, table.column, line) in settled:
                continue  # (its references name what they named in the parent, read under the same header)
            got = memo.get(line) if memo is not None else None
            if got is None:
                got = _line_ids(line, table.column, cols, key_patterns)
                if memo is not None:
                    memo[line] = got
            for i, ids in got:
                found.append((path, n + 1, shown[i] if i < len(shown) else table.columns[i], ids))


def _fresh_spans(ctx: Context, path: str) -> set[bytes]:
    """The code spans (stripped, none empty) on the lines of reference file
    ``path`` its parent lacks, once per check (`Context.settled`: a change
    that removed no key; a span never crosses a line, and what it names
    needs nothing around it)."""
    k = ("fresh", path)
    if k not in ctx.spans:
        held = set(model.split_lines(ctx.read(path, ctx.parent) or b""))
        fresh = b"".join(line for line in model.split_lines(ctx.read(path) or b"") if line not in held)
        ctx.spans[k] = {s for s in map(patterns.stripped, _SPAN.findall(fresh)) if s}
    return ctx.spans[k]


def _parent_rows(ctx: Context, record, path: str) -> set[tuple[bytes, int, bytes]] | frozenset:
    """(header, indent, line) of each table body line of ``path`` in the
    parent, whose reference cells are settled (`Context.settled`): the same
    line under the same header is read as it was (which cells are
    references, the column its message names); none where the parent's
    file is absent or unreadable."""
    if not ctx.settled:
        return frozenset()
    doc = ctx.doc(path, record.key, snap=ctx.parent, key_pattern=record.key_pattern)
    if doc is None:
        return frozenset()
    return {(t.header, t.column, doc.lines[n]) for t in doc.tables for n in range(t.body, t.end)}


def _line_ids(line: bytes, column: int, cols: list[int], key_patterns: list[str]) -> list[tuple[int, list[str]]]:
    """(column index, the ids it names) of each reference cell of a table line."""
    if b"|" not in line[column:]:
        return []
    cells = model.split_cells(line, column).cells
    out = []
    for i in cols:
        if i >= len(cells):
            continue
        raw = cells[i].decode("utf-8", "replace")
        if key_patterns:
            ids = _candidates(raw)
        else:
            key = model.clean_key(cells[i])
            ids = [] if key.casefold() in _EMPTY else [key]
        out.append((i, ids))
    return out


_SPAN = re.compile(rb"`([^`\n]+)`")


class _Bad:
    """The candidate spans that name no key (``key``: what the answer depends
    on): those that match the key pattern (`matched`, the same for every
    universe) less the keys ``known``."""

    def __init__(self, pattern: str, known: frozenset[bytes] | _LazyBytes, matching=patterns.matching) -> None:
        self.pattern, self.known, self.matching = pattern, known, matching
        self.key = (pattern, known)

    def __call__(self, candidates) -> set:
        return set(self.matched(candidates) - self.known)

    def matched(self, candidates) -> frozenset:
        """The ``candidates`` (UTF-8 bytes) that match the pattern (none for a pattern RE2 refuses: key-format reports it)."""
        candidates = list(candidates)
        try:
            hits = self.matching(self.pattern, candidates)
        except patterns.PatternError:
            return frozenset()
        return frozenset(c for c, hit in zip(candidates, hits) if hit)


def _ref_files(ctx: Context, record, universe, memo_key: tuple | None = None) -> None:
    """Backticked words of a reference file that match the key pattern must be keys.

    Whether a span is bad depends on the span alone (it looks like a key and
    names none), so each file is judged on its own spans.  A file the snapshot
    holds as a prefix of a longer version (``span_source``: a log over a
    range) is scanned once for every version of it; the others' findings are
    kept in ``ctx.memo`` by their blob ids, the keys and the retired files'
    (``memo_key``: what the universe depends on; None keeps nothing).
    """
    indexed = getattr(ctx.snap, "span_source", None)
    paths = [path for glob in record.ref_files for path in ctx.files(glob) if ctx.paths is None or path in ctx.paths]
    held = {p: found for p in paths if indexed is not None and (found := indexed(p)) is not None}
    memo = ctx.memo if memo_key is not None else None  # a memo key is made only with a memo
    known = memo.get(("known", memo_key)) if memo is not None else None  # the universe as UTF-8, once per universe
    if isinstance(universe, Lazy):
        known = universe.known  # (taken from a set of spans: `spans - known`)
    if known is None:
        known = frozenset(k.encode("utf-8") for k in universe)
        if memo is not None:
            memo[("known", memo_key)] = known
    pattern = model.any_pattern(record.key_pattern) or ""
    prefix = patterns.required_prefix(pattern).encode("utf-8")
    bad_of = _Bad(pattern, known, ctx.matching)
    rest = [p for p in paths if p not in held]
    key = ctx.blob_key(rest) if memo is not None else None
    if key is not None:  # what the findings depend on: these files, the keys, the retired files (for the messages)
        key = ("ref_files", record.name, known, ctx.blob_key([r.retired for r in ctx.cfg.records if r.retired]), key)
    if memo is not None and key is not None and key in memo:
        ctx.findings.extend(memo[key])
    else:
        before = len(ctx.findings)
        _unheld(ctx, record, rest, prefix, bad_of)
        if memo is not None and key is not None:
            memo[key] = ctx.findings[before:]
    for path, (src, size) in held.items():
        for span, ats in src.bad(size, prefix, bad_of).items():
            key_text = span.decode("utf-8")
            for at in ats:
                ctx.add(path, src.line_count(at + 1), "refs", f"{record.name}: {_missing(ctx, key_text)}")


def _spans(ctx: Context, path: str, data: bytes, prefix: bytes) -> set[bytes]:
    """The candidate spans of a file (stripped, those holding ``prefix``): once
    per blob and prefix in a process whose checks share parses (a file that
    is a reference file of several records, the check after `--fix`)."""
    ids = getattr(ctx.snap, "blob_id", None)
    blob = ids(path) if ids is not None else None
    store = ctx.parses.spans if ctx.parses is not None and blob is not None else ctx.spans
    found = store.get((path, blob, prefix))
    if found is None:
        every = store.get((path, blob, None))
        if every is None:  # the distinct spans, one a line (a span holds no newline)
            every = store[(path, blob, None)] = {b"\n".join(set(_SPAN.findall(data)))}
        joined = next(iter(every))
        # most code spans are not IDs: drop those that cannot match
        held = _holding(joined, prefix) if prefix else joined.split(b"\n")
        found = store[(path, blob, prefix)] = {patterns.stripped(s) for s in held if s}
    return found


def _holding(joined: bytes, prefix: bytes) -> list[bytes]:
    """The lines of ``joined`` that hold ``prefix`` (found by `bytes.find`, not line by line)."""
    out = []
    at = joined.find(prefix)
    while at >= 0:
        start = joined.rfind(b"\n", 0, at) + 1
        end = joined.find(b"\n", at)
        end = len(joined) if end < 0 else end
        out.append(joined[start:end])
        at = joined.find(prefix, end)
    return out


def _unheld(ctx: Context, record, paths: list[str], prefix: bytes, bad_of: _Bad) -> None:
    for path in paths:
        bad = _matched(ctx, path, prefix, bad_of) - bad_of.known
        if not bad:
            continue
        data = ctx.read(path) or b""
        for m in _SPAN.finditer(data):
            span = patterns.stripped(m.group(1))
            if span in bad:
                ctx.add(path, data.count(b"\n", 0, m.start()) + 1, "refs", f"{record.name}: {_missing(ctx, span.decode('utf-8'))}")


def _matched(ctx: Context, path: str, prefix: bytes, bad_of: _Bad) -> frozenset:
    """The code spans of ``path`` (stripped) that match the key pattern
    (each holds ``prefix``): once per blob and pattern (range mode; a
    single check keeps the spans per blob, `_spans`)."""
    blobs = ctx.blob_key([path])
    memo = ctx.shared("span_matched") if blobs is not None else None  # a blob key is made only with a memo
    if memo is None and ctx.settled:  # the hooks, no key removed: only the spans on lines the parent lacks
        return bad_of.matched({s for s in _fresh_spans(ctx, path) if prefix in s})
    if memo is None:  # one snapshot's check (the hooks): its spans kept per blob in the process (`_spans`)
        return bad_of.matched(_spans(ctx, path, ctx.read(path) or b"", prefix))
    kept = (bad_of.pattern, prefix, blobs)
    if kept in memo:
        return memo[kept]
    if len(memo) > 32768:
        memo.clear()  # (bounded: a range's reference files have a few thousand versions)
    every = memo.get(("", b"", blobs))
    if every is None:
        every = memo[("", b"", blobs)] = _every(memo, path, ctx.read(path) or b"")
    last = memo.get(("last", bad_of.pattern, prefix, path))  # the file's version matched before
    old, known = last if last is not None else (frozenset(), frozenset())
    if every is old:  # (the same spans: `_every` kept the set)
        found = memo[kept] = known
    else:
        found = memo[kept] = (known & every) | bad_of.matched(s for s in every - old if prefix in s)  # only the spans it lacked
    memo[("last", bad_of.pattern, prefix, path)] = (every, found)
    return found


def _every(memo: dict, path: str, data: bytes) -> frozenset:
    """The code spans of ``data``, ``path``'s version (stripped, none empty):
    from the version of it read before (kept in ``memo`` with the count of
    each span and their set), only the lines one holds more often than the
    other between what both begin and end with are scanned (a span holds no
    newline, so a line holds the same spans wherever it stands); the counts
    are updated in place, and the set is the one before when no span came
    or went."""
    from collections import Counter

    stripped = patterns.stripped
    before = memo.get(("spans", path))
    if before is None:
        counts = Counter(map(stripped, _SPAN.findall(data)))
        every = frozenset(counts) - {b""}
    else:
        old, counts, every = before
        start, old_end, new_end = changed_lines(old, data)
        was, now = Counter(old[start:old_end].split(b"\n")), Counter(data[start:new_end].split(b"\n"))
        gone, came = set(), set()  # (the lines between that both versions hold, as often, cancel out)
        for span, n in Counter(map(stripped, _SPAN.findall(b"\n".join((was - now).elements())))).items():
            left = counts[span] - n
            if left:
                counts[span] = left
            else:
                del counts[span]
                gone.add(span)
        for span, n in Counter(map(stripped, _SPAN.findall(b"\n".join((now - was).elements())))).items():
            if span not in counts:
                came.add(span)
            counts[span] += n
        gone -= came  # (removed and written again: still a span of the file)
        came = {s for s in came if s and s not in every}
        gone.discard(b"")
        if gone or came:
            every = (every - gone) | came
    memo[("spans", path)] = (data, counts, every)
    return every


def key_universe(ctx: Context) -> set[str]:
    """Every key of every record of the snapshot (and the keys of its conflicted files' sides), as shown."""
    return record_keys(ctx, ctx.cfg.records)


def record_keys(ctx: Context, records) -> set[str]:
    """The keys of ``records`` in the snapshot (and of their conflicted files' sides), as shown."""
    universe: set[str] = set()
    for record in records:
        universe.update(model.shown(k) for k in ctx.keys(record))
        universe.update(model.shown(k) for k in conflict_keys(ctx, record))
    return universe


def _universe_key(ctx: Context) -> tuple | None:
    """What the universe and the messages depend on: the records' and retired files."""
    return ctx.blob_key(list(dict.fromkeys(
        [p for r in ctx.cfg.records for p in ctx.files(r.path)] + [r.retired for r in ctx.cfg.records if r.retired])))


def same_universe(ctx: Context, parent: Context) -> None:
    """Range mode: ``ctx``'s records hold the keys ``parent``'s do (rows edited
    in place, no key changed; no file conflicted or unreadable): the universe
    kept for the parent is this one's."""
    old, new = _universe_key(parent), _universe_key(ctx)
    memo = ctx.memo
    if old is not None and new is not None and memo is not None and ("universe", old) in memo:
        for name in ("universe", "known"):
            if (name, old) in memo:
                memo.setdefault((name, new), memo[(name, old)])


def refs(ctx: Context) -> None:
    # Kept in ctx.memo (range mode) only when reading the records' and retired files reported nothing.
    memo_key = _universe_key(ctx)
    memo = ctx.memo if memo_key is not None else None  # a memo key is made only with a memo
    universe: set[str] | Lazy
    if memo is not None and ("universe", memo_key) in memo:
        universe = memo[("universe", memo_key)]
    elif ctx.memo is None:
        universe = Lazy(ctx)  # one snapshot: each record's keys read when a reference needs them
    else:
        universe = key_universe(ctx)
        files = [p for r in ctx.cfg.records for p in ctx.files(r.path)]
        if memo is not None and not any(ctx.conflicted(p) or p in ctx._unmodelable for p in files):
            memo[("universe", memo_key)] = universe
        else:
            memo_key = memo = None  # a conflicted or unreadable record reports itself in each run: nothing is kept
    key_patterns = [p for r in ctx.cfg.records if (p := model.any_pattern(r.key_pattern))]
    for record in ctx.cfg.records:
        if ctx.paths is not None and not any(p in ctx.paths for p in [*ctx.files(record.path), *(p for g in record.ref_files for p in ctx.files(g))]):
            continue  # (none of its files is examined)
        if record.refs:
            key = ("columns", record.name, memo_key)
            if memo is not None and key in memo:
                ctx.findings.extend(memo[key])
            else:
                before = len(ctx.findings)
                _columns(ctx, record, ctx.files(record.path), key_patterns, universe)
                if memo is not None:
                    memo[key] = ctx.findings[before:]
        if not record.ref_files:
            continue
        if not record.key_pattern:
            ctx.add(ctx.config_path, record.line, "refs", f"{record.name}: ref_files needs key_pattern to tell which backticked words are IDs")
            continue
        _ref_files(ctx, record, universe, memo_key)
