"""Keyed rows of a version: Entry, the parsed-record cache (Parsed, Lru) and the
Reader that lists a tree's keys per record.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

from .. import config as _config
from ..values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (~4 ms of a CI step's start)
if TYPE_CHECKING:  # the record model (tree-sitter) is imported only when a record is read
    from .. import model
    from . import chains, packs


class Entry(Value):
    """One keyed row: where it is and its content, cell by cell (padding stripped)."""

    __slots__ = ("path", "line", "cells")

    def __init__(self, path: str, line: int, cells: tuple[tuple[str, bytes], ...]) -> None:
        self.path = path
        self.line = line  # 1-based
        self.cells = cells

    def __hash__(self) -> int:  # type: ignore[override]  # a Value is unhashable; an Entry, never changed, is hashed by its fields
        return hash(self._fields())

    def cell(self, column: str) -> bytes | None:
        for name, value in self.cells:
            if name == column:
                return value
        return None


Keys = dict[tuple[str, str], list[Entry]]  # (record name, key) -> its rows (`scope`: the name and path per file)


def scope(record: _config.Record, path: str) -> str:
    """What a key of ``record`` in ``path`` is unique within: the record, or
    under ``key_scope = "file"`` the record's file (``NAME:path``)."""
    return f"{record.name}:{path}" if record.per_file() else record.name


def _entry(path: str, table: model.Table, row: model.Row) -> Entry:
    names: list[str] = []
    for i, name in enumerate(table.columns):
        names.append(name if name not in names else f"{name}#{i}")
    cells = [c.strip() for c in row.cells().cells]
    pairs = [(names[i] if i < len(names) else f"#{i}", value) for i, value in enumerate(cells)]
    if len(row.lines) > 1:
        pairs.append(("", b"\n".join(line.strip() for line in row.lines[1:])))
    return Entry(path, row.line + 1, tuple(pairs))


class Lru(OrderedDict):
    """A dict that keeps only its ``size`` most recently used entries."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def __getitem__(self, key):
        value = super().__getitem__(key)
        self.move_to_end(key)
        return value

    def get(self, key, default=None):
        return self[key] if key in self else default  # (OrderedDict.get would not make it the most recent)

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        if len(self) > self.size:
            self.popitem(last=False)


class Parsed:
    """Parsed documents by blob id, shared by the commits of a range.

    A range reads each version of a record as one commit's file and again as
    the next commit's parent; a 250 KB record takes ~20 ms to parse.  Only the
    most recent versions are kept, so memory stays flat over long ranges.
    """

    def __init__(self, repo, size: int = 48) -> None:
        self.repo = repo
        self._docs: Lru = Lru(size)
        self._data: Lru = Lru(size)
        self.chains: chains.Chains | None = None  # a range's log versions as prefixes of one another (chains.Chains)
        self.blobs: packs.Blobs | None = None  # blobs rebuilt from their pack deltas onto versions read before (packs.Blobs)
        self.trees: Lru = Lru(8)  # commit id -> its snapshot (`parsed_tree`)
        self.parse_cache: model.ParseCache | None = None  # the `model.ParseCache` its parses of no named file share
        self._caches: Lru = Lru(64)  # path -> the `model.ParseCache` its versions share (a commit's file and its parent's)

    def data(self, oid) -> bytes:
        """A blob's bytes (read once: a delta-compressed blob costs milliseconds to rebuild)."""
        if oid not in self._data:
            found = self.chains.data(oid) if self.chains is not None else None
            if found is None and self.blobs is not None:
                found = self.blobs.read(str(oid))
            self._data[oid] = found if found is not None else self.repo.get(oid).data
        return self._data[oid]

    def get(self, oid, key: str | None, log: bool = False, key_pattern: str | None = None, path: str | None = None) -> model.Document:
        """The parsed blob; raises model.Unmodelable as model.parse does.
        ``path``: the file it is a version of (its versions share a `model.ParseCache`)."""
        from .. import model

        k = (oid, key, log, key_pattern)
        if k not in self._docs:
            try:
                if path is None:
                    if self.parse_cache is None:
                        self.parse_cache = model.ParseCache()
                    cache = self.parse_cache
                else:
                    cache = self._caches.get(path)
                    if cache is None:
                        cache = self._caches[path] = model.ParseCache()
                self._docs[k] = model.parse(self.data(oid), key, log, key_pattern, cache)
            except model.Unmodelable as exc:
                self._docs[k] = exc
        doc = self._docs[k]
        if isinstance(doc, model.Unmodelable):
            raise doc
        return doc

    def put(self, oid, key: str | None, log: bool, key_pattern: str | None, doc: model.Document) -> None:
        """Keep ``doc`` as the blob's parse (range mode builds an edited version from its parent's: `rowedits`)."""
        self._docs[(oid, key, log, key_pattern)] = doc


def parsed_tree(repo, commit, parsed: Parsed):
    """A commit's files as a snapshot whose documents come from ``parsed``
    (the same one for the commit's few recent uses: as itself, as a parent)."""
    if not _PARSED_TREE:
        _PARSED_TREE.append(_parsed_tree_class())
    k = commit.id
    tree = parsed.trees.get(k)
    if tree is None or tree.repo is not repo:
        tree = _PARSED_TREE[0](repo, commit.tree, commit.short_id)
        tree.parsed = parsed
        tree._ids = {}
        tree._spans = {}
        tree.found = {}  # configured path -> its files (`checks.Context.files`)
        parsed.trees[k] = tree
    return tree


_PARSED_TREE: list = []  # the class, made once (it subclasses git.Tree, imported lazily)


def _parsed_tree_class():
    from ..git import Tree

    class ParsedTree(Tree):
        parsed: Parsed
        _ids: dict[str, str | None]  # path -> its blob id (None: absent), set by `parsed_tree`
        _spans: dict[str, object]  # path -> `span_source`'s answer, set by `parsed_tree`
        found: dict[str, list[str]]

        def read(self, path: str) -> bytes | None:
            try:
                entry = self.tree[path]
            except KeyError:
                return None
            return self.parsed.data(entry.id) if entry.type_str == "blob" else None

        def parse(self, path: str, key: str | None, log: bool = False, key_pattern: str | None = None) -> model.Document:
            return self.parsed.get(self.tree[path].id, key, log, key_pattern, path)

        def has(self, path: str) -> bool:
            return self.blob_id(path) is not None

        def blob_id(self, path: str) -> str | None:
            ids = self._ids
            if path not in ids:
                try:
                    entry = self.tree[path]
                except KeyError:
                    ids[path] = None
                else:
                    ids[path] = str(entry.id) if entry.type_str == "blob" else None
            return ids[path]

        def appended(self, path: str, parent) -> chains.Appended | None:
            """What this version of a log appended to ``parent``'s, if that is all it did."""
            return self._chained("appended", path, parent)

        def extension(self, path: str, parent) -> bytes | None:
            """The bytes this version of a log appended to ``parent``'s, whole
            lines, when the chains prove that one a prefix of this one (else None)."""
            return self._chained("extension", path, parent)

        def _chained(self, ask: str, path: str, parent):
            """The chains' answer ``ask`` about ``parent``'s version of ``path`` and this one."""
            if self.parsed.chains is None or getattr(parent, "tree", None) is None:
                return None
            try:
                return getattr(self.parsed.chains, ask)(parent.tree[path].id, self.tree[path].id)
            except KeyError:
                return None

        def span_source(self, path: str):
            """(chains.Source, size) holding this version of ``path``, or None (kept per path: each record's refs asks)."""
            if path not in self._spans:
                chains = self.parsed.chains
                self._spans[path] = chains.spans(self.tree[path].id) if chains is not None and self.blob_id(path) is not None else None
            return self._spans[path]  # type: ignore[return-value] # (what `spans` gave)

    return ParsedTree


class Reader:
    """Keyed rows of record files at given trees, parsed once per blob."""

    def __init__(self, repo, cfg: _config.Config, parsed: Parsed | None = None) -> None:
        self.repo = repo
        self.cfg = cfg
        self.parsed = parsed or Parsed(repo)
        self._parsed: Lru = Lru(256)
        self._keys: Lru = Lru(256)
        self._entries: Lru = Lru(256)  # (blob id, key, key pattern, path) -> its rows as (key, Entry), made once

    def rows(self, tree, path: str) -> list[tuple[model.Table, model.Row]] | str | None:
        """The keyed rows of ``path`` in ``tree``; None if absent, a reason if unreadable."""
        from .. import model

        record = self.cfg.record_for(path)
        if record is None or tree is None:
            return None
        try:
            oid = tree[path].id
        except KeyError:
            return None
        cache_key = (oid, record.key, record.key_pattern)
        if cache_key not in self._parsed:
            if tree[path].type_str != "blob":
                return None
            try:
                # a record's key may be a tuple of columns: `get` and the model say str until their KeySpec type lands
                doc = self.parsed.get(oid, record.key, key_pattern=record.key_pattern, path=path)  # type: ignore[arg-type]
                self._parsed[cache_key] = [(t, r) for t in doc.keyed_tables() for r in t.rows if r.key]
            except model.Unmodelable as exc:
                self._parsed[cache_key] = str(exc) or "cannot be read as a record"
        return self._parsed[cache_key]

    def keys(self, tree, paths: Iterable[str]) -> Keys:
        """(record, key) -> rows, over the record files among ``paths`` in ``tree``."""
        wanted = tuple(sorted(paths))
        memo = (tree.id if tree is not None else None, wanted)
        if memo not in self._keys:
            self._keys[memo] = self._collect(tree, wanted)
        return self._keys[memo]

    def _collect(self, tree, paths: tuple[str, ...]) -> Keys:
        out: Keys = {}
        for path in paths:
            rows = self.rows(tree, path)
            record = self.cfg.record_for(path)
            if not isinstance(rows, list) or record is None:  # (a list: the rows of a record's file)
                continue
            owner = scope(record, path)
            for key, entry in self._made(tree, path, record, rows):
                out.setdefault((owner, key), []).append(entry)
        return out

    def _made(self, tree, path: str, record: _config.Record, rows: list) -> list[tuple[str, Entry]]:
        """(key, Entry) of each keyed row of ``path`` in ``tree`` (``rows``: `rows`'),
        once per blob (an Entry is never changed: the trees that share the blob share them)."""
        k = (tree[path].id, record.key, record.key_pattern, path)
        made = self._entries.get(k)
        if made is None:
            made = self._entries[k] = [(row.key, _entry(path, table, row)) for table, row in rows if row.key]  # (always a key)
        return made


def duplicates(entries: list[Entry]) -> dict[str, list[Entry]]:
    """Path -> the entries of one key defined more than once in that file."""
    by_path: dict[str, list[Entry]] = {}
    for e in entries:
        by_path.setdefault(e.path, []).append(e)
    return {p: es for p, es in by_path.items() if len(es) > 1}


def line_numbers(entries: list[Entry]) -> str:
    return " and ".join(str(e.line) for e in entries)


def same_entry(a: Entry | None, b: Entry | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and a.cells == b.cells)
