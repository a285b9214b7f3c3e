"""Record checks (docs/checks.md): one pass over a snapshot of the repository.

`run_checks` is what `mergedrv check`, the hooks and the range mode call.
Each check is a function of a `Context`, which reads and parses every file
once and shares the parsed Document across checks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .. import config as cfgmod
from .. import model
from ..findings import Finding
from ..git import Snapshot
from .deltas import Deltas

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..derived import Derived

CHECK_IDS = (
    "config-matches",
    "keys-unique",
    "key-format",
    "column-format",
    "table-shape",
    "detached-row",
    "refs",
    "ratchet",
    "rollup",
    "log-append-only",
    "pin-claims",
    "sequence",
)


_GLOB: dict[str, bool] = {}  # configured path -> whether it is a glob


def listed(kept: dict[int, list[str]], snap: Snapshot, prefix: str) -> list[str]:
    """The snapshot's paths that start with ``prefix``: its listing is read
    once (kept by id) and searched, so thousands of record globs cost
    neither a `git ls-files` nor a scan each."""
    import bisect

    every = kept.get(id(snap))
    if every is None:
        every = kept[id(snap)] = sorted(snap.paths())
    if not prefix:
        return every
    return every[bisect.bisect_left(every, prefix):bisect.bisect_left(every, prefix + "\U0010ffff")]


class Parses:
    """The Documents of one process's checks kept by blob id (the staged check:
    a file the change did not touch is the same blob in the index and HEAD,
    and the fix and the check after it read the same blobs): each blob parsed
    once, each path's versions sharing one `model.ParseCache`."""

    def __init__(self) -> None:
        self.docs: dict[tuple, model.Document | model.Unmodelable] = {}
        self.caches: dict[str, model.ParseCache] = {}
        self.spans: dict[tuple, set[bytes]] = {}  # refs: a reference file's code spans, by blob (and key prefix)
        self.derived: dict[tuple, list] = {}  # a file's derived numbers, by its Document and its record's
        self.pure: dict[tuple, dict] = {}  # pure answers by a line's bytes (cells, matches), as range mode's memo keeps them

    def parse(self, snap: Snapshot, path: str, data: bytes, key: model.KeySpec, log: bool,
              key_pattern: model.PatternSpec) -> model.Document:
        """``snap``'s ``path`` (its bytes ``data``) parsed, or the Document of the same blob parsed before."""
        ids = getattr(snap, "blob_id", None)
        blob = ids(path) if ids is not None else None
        return self.parse_blob(path, blob, data, key, log, key_pattern)

    def parse_blob(self, path: str, blob: str | None, data: bytes, key: model.KeySpec, log: bool,
                   key_pattern: model.PatternSpec) -> model.Document:
        k = (path, blob, key, log, key_pattern)
        found = self.docs.get(k) if blob is not None else None
        if found is None:
            cache = self.caches.get(path)
            if cache is None:
                cache = self.caches[path] = model.ParseCache()
            try:
                found = model.parse(data, key, log, key_pattern, cache)
            except model.Unmodelable as exc:
                found = exc
            if blob is not None:
                self.docs[k] = found
        if isinstance(found, model.Unmodelable):
            raise found
        return found


class Context(Deltas):
    """What the checks read: the snapshot, its parent, the message; parsed once."""

    def __init__(
        self,
        cfg: cfgmod.Config,
        snap: Snapshot,
        parent: Snapshot | None = None,
        message: str | None = None,
        paths: Iterable[str] | None = None,
        parent_cfg: cfgmod.Config | None = None,
        sides: list[Snapshot] | None = None,
        base: Snapshot | None = None,
        config_path: str = cfgmod.CONFIG_NAME,
        message_path: str = "COMMIT_EDITMSG",
        config_data: bytes | None = None,
        notes: list[Finding] | None = None,
        shapes: str = "all",
        memo: dict | None = None,
        parses: Parses | None = None,
        settled: bool = False,
    ) -> None:
        self.cfg = cfg
        # the hooks' check of a change that removed no key (`changed.Scope`): a reference on a line the
        # parent's file holds as it is names what it named there, so only the other lines' are read (refs)
        self.settled = settled and parent is not None
        self.parses = parses  # Documents shared with other Contexts of the process, by blob id
        self.shapes = shapes  # table-shape on "all", or only the "records" or the "logs" (range mode splits the run)
        self.memo = memo  # findings by the blob ids they depend on, shared by a range's commits (see `blob_key`)
        self.snap = snap
        self.parent = parent
        self.message = message
        self.paths = set(paths) if paths is not None else None
        self.sides = sides or []
        self.base = base
        self.config_path = config_path
        self.message_path = message_path
        self.config_data = config_data if config_data is not None else snap.read(cfgmod.CONFIG_NAME)
        self.findings: list[Finding] = []
        self.notes = notes if notes is not None else []  # said, never blocking (a caller's list, to print)
        self._parent_cfg = parent_cfg
        self._parent_cfg_read = parent_cfg is not None
        self._files: dict[tuple[int, str], list[str]] = {}
        self._sorted: dict[int, list[str]] = {}  # id(snapshot) -> its paths, sorted
        self._data: dict[tuple[int, str], bytes | None] = {}
        self._docs: dict[tuple[int, str, str | None, bool, str | None], model.Document | None] = {}
        self.parse_cache = model.ParseCache()  # the versions it reads share their parse (a file's index version and its parent)
        self._unmodelable: set[str] = set()
        self._regions: dict[str, list[tuple[int, int]]] = {}
        self._cells: dict[int, list[bytes]] = {}
        self._same: dict[str, bool] = {}
        self._appended: dict = {}
        self.spans: dict[tuple, set[bytes]] = {}  # a reference file's code spans (refs), once per run

    # --- reporting ---------------------------------------------------------

    def add(self, path: str, line: int, check: str, message: str) -> None:
        self.findings.append(Finding(path, line, check, message))

    def note(self, path: str, line: int, check: str, message: str) -> None:
        self.notes.append(Finding(path, line, check, message))

    # --- files -------------------------------------------------------------

    def read(self, path: str, snap: Snapshot | None = None) -> bytes | None:
        snap = snap or self.snap
        k = (id(snap), path)
        if k not in self._data:
            self._data[k] = snap.read(path)
        return self._data[k]

    def files(self, pattern: str, snap: Snapshot | None = None) -> list[str]:
        """Files of ``snap`` that a configured path or glob names."""
        snap = snap or self.snap
        kept = getattr(snap, "found", None)  # a snapshot of an immutable tree keeps its answers (range mode)
        if kept is not None and pattern in kept:
            return kept[pattern]
        k = (id(snap), pattern)
        if k not in self._files:
            glob = _GLOB.get(pattern)
            if glob is None:
                glob = _GLOB[pattern] = cfgmod.is_glob(pattern)
            if glob:
                found = [p for p in listed(self._sorted, snap, cfgmod.literal_prefix(pattern)) if cfgmod.glob_match(pattern, p)]
            else:
                path = pattern.lstrip("/")
                has = getattr(snap, "has", None)  # a snapshot that lists its files without reading them
                found = [path] if (has(path) if has is not None else self.read(path, snap) is not None) else []
            self._files[k] = found
            if kept is not None:
                kept[pattern] = found
        return self._files[k]

    def examined(self, pattern: str) -> bool:
        """Whether the files of ``pattern`` are in the ``paths`` restriction."""
        return self.paths is None or any(p in self.paths for p in self.files(pattern))

    def doc(self, path: str, key: str | None = None, log: bool = False, snap: Snapshot | None = None,
            key_pattern: str | None = None) -> model.Document | None:
        """The parsed file (None if absent or not modelable; reported once)."""
        snap = snap or self.snap
        k = (id(snap), path, key, log, key_pattern)
        if k not in self._docs:
            data = self.read(path, snap)
            doc = None
            if data is not None and snap is self.snap and self.conflicted(path):
                pass  # reported once by `conflicted`; nothing else in the file is judged
            elif data is not None:
                try:
                    shared = getattr(snap, "parse", None)  # range mode reuses parses across commits (by blob id)
                    if shared is not None:
                        doc = shared(path, key, log, key_pattern)
                    elif self.parses is not None:
                        doc = self.parses.parse(snap, path, data, key, log, key_pattern)
                    else:
                        doc = model.parse(data, key, log, key_pattern, self.parse_cache)
                except model.Unmodelable as exc:
                    if snap is self.snap and path not in self._unmodelable:
                        self._unmodelable.add(path)
                        self.add(path, getattr(exc, "line", 0), "table-shape", f"cannot be read as markdown tables: {exc}")
            self._docs[k] = doc
        return self._docs[k]

    def conflicted(self, path: str) -> list[tuple[int, int]]:
        """The conflict regions (first and last 1-based line) a merge left in
        ``path`` of the snapshot checked; each is reported once, at its line."""
        if path not in self._regions:
            kept = self.blob_key([path])  # range mode: a blob's regions, found once
            memo = self.memo if kept is not None else None  # a blob key is made only with a memo
            found = memo.get(("regions", path, kept)) if memo is not None else None
            if found is None:
                data = self.read(path)
                found = conflict_regions(data) if data is not None and b"<<<<<<<" in data else []
                if memo is not None:
                    memo[("regions", path, kept)] = found
            self._regions[path] = found
            for start, end in found:
                self.add(path, start, "table-shape", f"a conflict region from a merge (lines {start}-{end}): resolve it; nothing else in this file is checked until then, and `mergedrv fix` sets its derived numbers after")
        return self._regions[path]

    def cells(self, table: model.Table, row: model.Row) -> list[bytes]:
        """A row's raw cells, split once per run."""
        k = id(row)
        if k not in self._cells:
            memo = self.shared("cells", row.column)
            if memo is None:
                self._cells[k] = row.cells().cells
            else:
                line = row.lines[0]
                if line not in memo:
                    memo[line] = row.cells().cells
                self._cells[k] = memo[line]
        return self._cells[k]

    def rows(self, record: cfgmod.Record):
        """The record's keyed rows across its files, for derived counts."""
        from ..derived import Rows

        rows = Rows.of([doc for _, doc in self.record_docs(record)], self.cells, self.matching)
        rows.memo = self.shared("derived")
        return rows

    def derive(self, record: cfgmod.Record, doc: model.Document, rows):
        """`derived.derive` of ``doc`` for ``record`` (``rows``: `rows(record)`),
        once per process for the same Documents where parses are shared (the
        rollup check, `--fix`'s look for stale numbers, the check after it)."""
        from .. import derived

        if self.parses is None:
            return derived.derive(doc, record, rows)
        k = (id(doc), tuple(id(d) for _, d in self.record_docs(record)))  # the Documents, kept alive by the parses
        kept = self.parses.derived.setdefault(k, [])
        for r, found in kept:
            if (r.rollups, r.grids, r.counts) == (record.rollups, record.grids, record.counts):
                return found
        found = derived.derive(doc, record, rows)
        kept.append((record, found))
        return found

    def counted(self, record: cfgmod.Record, rows) -> list[tuple[str, bytes | None, Derived | None]]:
        """(path, bytes, `derived.Derived`) of each file ``record``'s counts name
        (``[[record.count]] file``): None and None where the snapshot has no such
        file, bytes and None where it holds a merge's conflict regions (counted
        once they are resolved)."""
        from .. import derived

        out: list[tuple[str, bytes | None, Derived | None]] = []
        for path in record.counted_files():
            data = self.read(path)
            if data is None or (b"<<<<<<<" in data and conflict_regions(data)):
                out.append((path, data, None))
            else:
                out.append((path, data, derived.derive_file(data, path, record, rows, self._file_starts(path, data))))
        return out

    def _file_starts(self, path: str, data: bytes) -> list[int] | None:
        """`derived.file_starts` of a counted file, once per blob (range mode: it seldom changes); None without a memo."""
        key = self.blob_key([path])
        memo = self.shared("file_starts") if key is not None else None
        if memo is None:
            return None
        if key not in memo:
            from .. import derived

            memo[key] = derived.file_starts(data)
        return memo[key]

    # --- records -----------------------------------------------------------

    def records(self) -> list[cfgmod.Record]:
        """The records examined (one of its files, or a file its counts name,
        in ``paths``); a record a file of which holds a merge's conflict
        regions is judged after they are resolved."""
        return [r for r in self.cfg.records if (self.examined(r.path) or self._counts_examined(r))
                and not any(self.conflicted(p) for p in self.files(r.path))]

    def _counts_examined(self, record: cfgmod.Record) -> bool:
        return self.paths is not None and any(c.file is not None and c.path() in self.paths for c in record.counts)

    def record_docs(self, record: cfgmod.Record, snap: Snapshot | None = None) -> list[tuple[str, model.Document]]:
        out = []
        for path in self.files(record.path, snap):
            # a record's key may be a tuple of columns: `doc` and the model say str until their KeySpec type lands
            doc = self.doc(path, record.key, snap=snap, key_pattern=record.key_pattern)  # type: ignore[arg-type]
            if doc is not None:
                out.append((path, doc))
        return out

    def keys(self, record: cfgmod.Record, snap: Snapshot | None = None) -> dict[str, tuple[str, int]]:
        """Key -> (path, 1-based line) of its first definition (range mode:
        once per set of blobs; the caller does not change it)."""
        docs = self.record_docs(record, snap)
        k = self.keys_key(record, snap)
        if k is None:
            return _keys(docs)
        memo = self.shared("keys")
        assert memo is not None  # a keys_key is made only with a memo
        if len(memo) > 32:
            memo.clear()
        if k not in memo:
            memo[k] = _keys(docs)
        return memo[k]

    def keys_key(self, record: cfgmod.Record, snap: Snapshot | None = None) -> tuple | None:
        """What `keys` depends on (range mode): the blob ids of the record's files read."""
        ids = getattr(snap or self.snap, "blob_id", None)
        if self.memo is None or ids is None:
            return None
        return (record.key, record.key_pattern, tuple((path, ids(path)) for path, _ in self.record_docs(record, snap)))  # a blob's document is one parse

    def parent_cfg(self) -> cfgmod.Config | None:
        """The parent's configuration (None if it has none or it is broken)."""
        if not self._parent_cfg_read:
            self._parent_cfg_read = True
            data = self.parent.read(cfgmod.CONFIG_NAME) if self.parent is not None else None
            if data is not None:
                try:
                    self._parent_cfg = cfgmod.load_bytes(data)
                except cfgmod.ConfigError:
                    self._parent_cfg = None
        return self._parent_cfg


def _keys(docs: list[tuple[str, model.Document]]) -> dict[str, tuple[str, int]]:
    out: dict[str, tuple[str, int]] = {}
    for path, doc in docs:
        for row in doc.rows():
            out.setdefault(row.key, (path, row.line + 1))  # type: ignore[arg-type] # the rows of keyed tables have keys
    return out


_MARK = (b"<<<<<<<", b"|||||||", b"=======", b">>>>>>>")


def conflict_keys(ctx: Context, record: cfgmod.Record) -> set[str]:
    """Keys of the record's conflicted files, read as ours' and as theirs' side."""
    out: set[str] = set()
    for path in ctx.files(record.path):
        data = ctx.read(path)
        if data is None or not ctx.conflicted(path):
            continue
        for side in (0, 1):
            try:
                rows = model.parse(one_side(data, side), record.key, key_pattern=record.key_pattern).rows()
                out.update(r.key for r in rows)  # type: ignore[misc] # the rows of keyed tables have keys
            except model.Unmodelable:
                pass
    return out


def _marker(line: bytes, i: int) -> bool:
    rest = line[7:].rstrip(b"\r\n")
    return line.startswith(_MARK[i]) and (not rest or (i != 2 and rest[:1] == b" "))


def conflict_regions(data: bytes) -> list[tuple[int, int]]:
    """Each `<<<<<<<` ... `>>>>>>>` region of git's markers: (first, last) 1-based line."""
    out, start = [], 0
    for n, line in enumerate(data.split(b"\n"), 1):
        if not start and _marker(line, 0):
            start = n
        elif start and _marker(line, 3):
            out.append((start, n))
            start = 0
    return out


def one_side(data: bytes, side: int) -> bytes:
    """``data`` with each conflict region read as ours' (0) or theirs' (1) part."""
    keep, state = [], None
    for line in data.split(b"\n"):
        if state is None and _marker(line, 0):
            state = 0
        elif state is not None and (_marker(line, 1) or _marker(line, 2) or _marker(line, 3)):
            state = None if _marker(line, 3) else (1 if _marker(line, 2) else -1)
        elif state is None or state == side:
            keep.append(line)
    return b"\n".join(keep)


_REGISTRY: list[dict[str, Callable[[Context], None]]] = []  # made once (a range runs the checks thousands of times)


def registry() -> dict[str, Callable[[Context], None]]:
    if not _REGISTRY:
        _REGISTRY.append(_made())
    return _REGISTRY[0]


def _made() -> dict[str, Callable[[Context], None]]:
    from . import configured, logs, ratchet, refs, rollup, rows, sequence

    return {
        "config-matches": configured.config_matches,
        "keys-unique": rows.keys_unique,
        "key-format": rows.key_format,
        "column-format": rows.column_format,
        "table-shape": rows.table_shape,
        "detached-row": rows.detached_row,
        "refs": refs.refs,
        "ratchet": ratchet.ratchet,
        "rollup": rollup.rollup,
        "log-append-only": logs.log_append_only,
        "pin-claims": ratchet.pin_claims,
        "sequence": sequence.sequence,
    }


def run_checks(
    cfg: cfgmod.Config,
    snap: Snapshot,
    parent: Snapshot | None = None,
    message: str | None = None,
    only: Iterable[str] | None = None,
    paths: Iterable[str] | None = None,
    **context,
) -> list[Finding]:
    """Run the per-snapshot checks; findings sorted by path and line.

    ``parent`` enables the deltas (ratchet, log-append-only, pin moves);
    ``message`` enables pin-claims; ``only`` restricts to those check ids;
    ``paths`` restricts which record, log and reference files are examined.  Further
    keywords go to `Context` (``parent_cfg``, ``sides`` and ``base`` for a
    merge commit, ``config_path``, ``message_path``, ``config_data``; ``notes``,
    a list that receives what is said but blocks nothing; ``settled``, the
    hooks' scoped check of a change that removed no key).
    """
    wanted = set(CHECK_IDS if only is None else only)
    unknown = wanted - set(CHECK_IDS)
    if unknown:
        raise ValueError(f"unknown check id {sorted(unknown)[0]!r}; use one of: {', '.join(CHECK_IDS)}")
    ctx = Context(cfg, snap, parent, message, paths, **context)
    for check_id, check in registry().items():
        if check_id in wanted:
            check(ctx)
    found = ctx.findings
    if "config-matches" in wanted and any(f.check == "config-matches" for f in found):
        from .configured import without_consequences

        found = without_consequences(cfg, found)
    return ordered(found, wanted)


def ordered(findings: Iterable[Finding], wanted: set[str]) -> list[Finding]:
    """The findings of the ``wanted`` checks (and table-shape: an unreadable
    file), sorted by path and line, each once."""
    seen = set()
    out = []
    for f in sorted(findings, key=lambda f: (f.path, f.line, CHECK_IDS.index(f.check) if f.check in CHECK_IDS else 99, f.message)):
        if (f.check in wanted or f.check == "table-shape") and (f.path, f.line, f.check, f.message) not in seen:
            seen.add((f.path, f.line, f.check, f.message))
            out.append(f)
    return out
