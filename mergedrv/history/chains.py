"""The versions of a log file over a range as prefixes of one another.

A log only grows at its end, so over a range most of its versions are
prefixes of its newest one.  Reading a 1.2 MB blob costs milliseconds (zlib,
delta chains); checking that a version is a prefix costs one SHA-1 of that
prefix against its blob id (git's own proof of content).  So a range reads
each chain's longest version once, serves every other version as a slice of
it, and tells the checks what a commit appended (`Appended`) so they look at
the new lines only.  Anything the chain cannot prove (an edit, a removed row,
a line that could start a new table) is read and checked whole, as before.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_left

_SPAN = re.compile(rb"`([^`\n]+)`")  # refs._SPAN
MAX_SOURCES = 32  # versions of one log held whole in memory
FEW_SPANS = 16  # spans whose offsets are found from the lines holding them (more: one scan of every span)
_DELIMITER = re.compile(rb"^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-*:?[ \t]*)*\|?[ \t]*\r?\n?$")


class Source:
    """One version read whole; the versions proven to be its prefixes."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.sizes: list[int] = []  # the member versions' sizes
        self._starts: list[int] | None = None
        self._log: tuple | None = None
        self._bad: dict = {}
        self._index: dict[bytes | None, frozenset[bytes]] = {}  # prefix -> the spans holding it (`_where`; None: every span, stripped)
        self._at: dict[bytes, list[int]] = {}  # a span -> the offsets of its occurrences (`_offsets`: those asked about)
        self.ids: dict[int, object] = {}  # a member version's size -> its blob id
        self.path: str | None = None  # the file it is a version of
        self.owner: Chains | None = None  # the Chains that proved its members (`Chains.parse`)

    def starts(self) -> list[int]:
        """The offset of each line's start."""
        if self._starts is None:
            data = self.data
            out, i = [0], data.find(b"\n")
            while i >= 0:
                out.append(i + 1)
                i = data.find(b"\n", i + 1)
            if out[-1] == len(data):
                out.pop()
            self._starts = out
        return self._starts

    def line_count(self, size: int) -> int:
        """Lines of the version of ``size`` bytes (it ends at a line end)."""
        return bisect_left(self.starts(), size)

    # --- a log table growing at the end -------------------------------------

    def log(self):
        """(root size, safe end, table start, header cells, column, first line of each row text),
        or None when the shortest version does not end in its last table."""
        if self._log is None:
            self._log = (self._read_log(),)
        return self._log[0]

    def _read_log(self):
        from .. import model

        data = self.data
        root = min(self.sizes)
        if root and data[root - 1] != 0x0A:
            return None
        try:
            doc = self._root_doc(root)  # checks its own bytes (UTF-8, markers: line by line)
            model.check_modelable(data, 7, model.split_lines(data[root:]))  # and the lines after them, alone
        except model.Unmodelable:
            return None
        if not doc.tables:
            return None
        table = doc.tables[-1]
        if any(line.strip() for line in doc.lines[table.end :]):
            return None  # prose after the last table: appended lines are not its rows
        first: dict[bytes, int] = {}
        for t in doc.tables:
            for row in t.rows:
                first.setdefault(row.lines[0].rstrip(), row.line)
        lead = b" " * table.column + b"|"
        starts = self.starts()
        n = bisect_left(starts, root)
        safe = len(data)
        while n < len(starts):
            begin = starts[n]
            end = starts[n + 1] if n + 1 < len(starts) else len(data)
            line = data[begin:end]
            if not line.endswith(b"\n"):
                safe = begin
                break
            if line.strip():
                if not line.startswith(lead) or _DELIMITER.match(line):
                    safe = begin  # could start a table or a block of its own
                    break
                first.setdefault(line.rstrip(), n)
            n += 1
        want = len(model.split_cells(table.header, table.column).cells)
        return root, safe, table.start, want, table.column, first

    def _root_doc(self, root: int):
        """The shortest member version parsed as a log: by the owner's `Chains.parse`
        (range mode's parses by blob id: the commit that wrote it was parsed
        whole, an edit), else here."""
        from .. import model

        parse = self.owner.parse if self.owner is not None else None
        oid = self.ids.get(root)
        if parse is not None and oid is not None and self.path is not None:
            return parse(oid, self.path)
        return model.parse(self.data[:root], None, True)

    def appended(self, old: int, new: int) -> Appended | None:
        log = self.log()
        if log is None:
            return None
        root, safe, start, want, column, first = log
        if not (root <= old <= new <= safe):
            return None
        return Appended(self, self.line_count(old), self.line_count(new), start, want, column, first)

    # --- code spans, for refs -------------------------------------------------

    def bad(self, size: int, prefix: bytes, bad_of) -> dict[bytes, list[int]]:
        """Span -> the offsets of its occurrences below ``size``, for the spans
        ``bad_of`` (`refs._Bad`: the spans that match the key pattern, less the keys known) calls bad."""
        k = (prefix, bad_of.pattern)
        if k not in self._bad:
            self._bad[k] = bad_of.matched(self._where(prefix))  # the same for every universe
        out: dict[bytes, list[int]] = {}
        bad = self._bad[k] - bad_of.known
        if not bad:
            return out
        at = self._offsets(bad)
        for s in bad:
            ats = at[s]
            n = bisect_left(ats, size)
            if n:
                out[s] = ats[:n]
        return out

    def _where(self, prefix: bytes) -> frozenset[bytes]:
        """The candidate spans (stripped, holding ``prefix``), once per prefix,
        from one scan of the source for every prefix (the distinct spans alone:
        where they stand is found for those `bad` calls bad, `_offsets`)."""
        if prefix not in self._index:
            every = self._index.get(None)
            if every is None:
                from .. import patterns

                every = self._index[None] = frozenset(map(patterns.stripped, set(_SPAN.findall(self.data)))) - {b""}
            # (a span that holds the prefix only in what stripping drops cannot match a pattern that starts with it)
            self._index[prefix] = every if not prefix else frozenset(s for s in every if prefix in s)
        return self._index[prefix]

    def _offsets(self, spans) -> dict[bytes, list[int]]:
        """Each of ``spans`` (stripped) -> the offsets of its occurrences, in
        order: one scan for those not asked about before (of the lines that
        hold one, when they are few, ASCII and not empty: such a span stands
        in the span as written, and a span never crosses a line)."""
        todo: dict[bytes, list[int]] = {s: [] for s in spans if s not in self._at}
        if todo:
            data = self.data
            if len(todo) <= FEW_SPANS and all(s and s.isascii() for s in todo):
                for start, end in self._lines_holding(todo):
                    _scan(data, start, end, todo)
            else:
                _scan(data, 0, len(data), todo)
            self._at.update(todo)
        return self._at

    def _lines_holding(self, spans) -> list[tuple[int, int]]:
        """(start, end) of each line of the data that holds one of ``spans``, in order (found by `bytes.find`)."""
        data, found = self.data, set()
        for s in spans:
            at = data.find(s)
            while at >= 0:
                end = data.find(b"\n", at)
                end = len(data) if end < 0 else end
                found.add((data.rfind(b"\n", 0, at) + 1, end))
                at = data.find(s, end)
        return sorted(found)


def _scan(data: bytes, start: int, end: int, todo: dict[bytes, list[int]]) -> None:
    """Append to ``todo`` (stripped span -> offsets) the offset of each of its
    spans between ``start`` and ``end`` (a line's or the data's bounds)."""
    from .. import patterns

    stripped: dict[bytes, bytes] = {}  # a span as written -> stripped
    for m in _SPAN.finditer(data, start, end):
        raw = m.group(1)
        s = stripped.get(raw)
        if s is None:
            s = stripped[raw] = patterns.stripped(raw)
        ats = todo.get(s)
        if ats is not None:
            ats.append(m.start())


class Appended:
    """What a commit appended to a log: whole lines after the parent's last
    line, each blank or a row of the log's last table."""

    __slots__ = ("source", "old_lines", "new_lines", "table_start", "want", "column", "_first")

    def __init__(self, source: Source, old_lines: int, new_lines: int, table_start: int, want: int, column: int,
                 first: dict[bytes, int]) -> None:
        self.source = source
        self.old_lines = old_lines
        self.new_lines = new_lines
        self.table_start = table_start  # 0-based line of the last table's header
        self.want = want  # the header's cell count
        self.column = column
        self._first = first

    def new_rows(self):
        """(0-based line, bytes) of each appended row whose text the parent had in no row."""
        starts, data = self.source.starts(), self.source.data
        for n in range(self.old_lines, self.new_lines):
            end = starts[n + 1] if n + 1 < len(starts) else len(data)
            line = data[starts[n] : end]
            if line.strip() and self._first[line.rstrip()] >= self.old_lines:
                yield n, line


class Chains:
    """oid -> (Source, size) for the versions of the range's log files."""

    def __init__(self) -> None:
        self.members: dict = {}
        self.parse = None  # (blob id, path) -> that version's log Document, shared with the checks' (set by range mode)

    def add_versions(self, repo, oids, path: str | None = None) -> None:
        """Prove which of ``oids`` (one log file's versions, of ``path``) are
        prefixes of which; read only those that are not.  A version stored in
        a pack as a delta of another is compared through that delta with the
        bytes of its base, once the base is placed (`packs.rebuilds`), not hashed."""
        todo = {str(oid): oid for oid in oids if oid not in self.members and len(str(oid)) == 40}  # SHA-1 ids only
        sized = [(size, hexid, todo[hexid]) for hexid, size in blob_sizes(repo, list(todo)).items()]
        sized.sort(reverse=True)
        if not sized:
            return
        longest = repo.get(sized[0][2]).data
        if len(longest) != sized[0][0]:
            return
        sources = [Source(longest)]
        from .packs import proven as by_deltas

        deltas: dict[str, tuple[str, bytes]] = {}  # hex id -> (its base's, the delta), for the versions stored so
        told = by_deltas(repo, longest, sized[0][1], sized[1:], lambda some: _prefixes(longest, [(size, h, None) for size, h in some]), deltas)
        later = {h for _, h, _ in sized[1:] if h not in told and h in deltas}  # resting on a base that is no prefix: compared below
        proven = {h for h, yes in told.items() if yes} | _prefixes(longest, [v for v in sized[1:] if v[1] not in told and v[1] not in later])
        placed: dict[str, tuple[Source, int]] = {sized[0][1]: (sources[0], sized[0][0])}  # hex id -> where a version of this call stands
        for n, (size, hexid, oid) in enumerate(sized):
            if n == 0 or hexid in proven:
                src = sources[0]
            else:  # an edited version: read it, and try it for the shorter ones
                tries = ([sources[0]] if hexid in later else []) + sources[1:][-2:][::-1]
                src = next((s for s in tries if _holds(s, size, hexid, deltas.get(hexid), placed)), None)
                if src is None and len(sources) >= MAX_SOURCES:
                    continue  # a log rewritten again and again: read as any file, a few versions in memory at a time
                if src is None:
                    data = _rebuilt(deltas.get(hexid), placed, size)
                    data = data if data is not None else repo.get(oid).data
                    if len(data) != size:
                        continue
                    src = Source(data)
                    sources.append(src)
            src.sizes.append(size)
            src.ids.setdefault(size, oid)
            src.path, src.owner = path, self
            self.members[oid] = (src, size)
            placed[hexid] = (src, size)

    def data(self, oid) -> bytes | None:
        found = self.members.get(oid)
        if found is None:
            return None
        src, size = found
        return src.data if size == len(src.data) else src.data[:size]

    def appended(self, old_oid, new_oid) -> Appended | None:
        a, b = self.members.get(old_oid), self.members.get(new_oid)
        if a is None or b is None or a[0] is not b[0]:
            return None
        return a[0].appended(a[1], b[1])

    def extension(self, old_oid, new_oid) -> bytes | None:
        """What version ``new_oid`` appended to ``old_oid``, when both are of one
        Source (proven prefixes of it) and the old one ends at a line's end."""
        a, b = self.members.get(old_oid), self.members.get(new_oid)
        if a is None or b is None or a[0] is not b[0] or a[1] > b[1]:
            return None
        data = a[0].data
        if a[1] and data[a[1] - 1] != 0x0A:
            return None
        return data[a[1] : b[1]]

    def spans(self, oid):
        """(Source, size) of a version, for its code spans."""
        return self.members.get(oid)


def _prefixes(data: bytes, sized: list) -> set[str]:
    """The hex ids of the versions (size, hex id, oid) proven prefixes of
    ``data``: hashed on two threads (hashlib lets go of the GIL), as SHA-1 is
    most of a long log's cost."""
    import threading

    found: list[set[str]] = [set(), set()]

    def work(i: int) -> None:
        found[i].update(h for size, h, _ in sized[i::2] if _prefix(data, size, h))

    helper = threading.Thread(target=work, args=(1,))
    helper.start()
    work(0)
    helper.join()
    return found[0] | found[1]


def _holds(src: Source, size: int, hexid: str, delta: tuple[str, bytes] | None, placed: dict) -> bool:
    """Is the version (``size`` bytes, ``hexid``) ``src``'s first ``size`` bytes?
    By its ``delta`` (base hex id, delta) onto a base already ``placed`` (hex
    id -> (Source, size)), or by its SHA-1."""
    data = src.data
    if size > len(data) or (size and data[size - 1] != 0x0A):
        return False
    base = placed.get(delta[0]) if delta is not None else None
    if base is not None:
        from .packs import rebuilds

        ok = rebuilds(delta[1], base[0].data, base[1], data, size)  # type: ignore[index] # (a base: a delta)
        if ok is not None:
            return ok
    return _prefix(data, size, hexid)


def _rebuilt(delta: tuple[str, bytes] | None, placed: dict, size: int) -> bytes | None:
    """The version's bytes from its pack ``delta`` (base hex id, delta) onto a
    base already ``placed`` (whose bytes are proven), as git rebuilds them;
    None when it has no such base or the delta does not fit."""
    base = placed.get(delta[0]) if delta is not None else None
    if base is None:
        return None
    from .packs import apply_delta

    src, n = base
    data = apply_delta(src.data if n == len(src.data) else src.data[:n], delta[1])  # type: ignore[index] # (a base: a delta)
    return data if data is not None and len(data) == size else None


def _prefix(data: bytes, size: int, hexid: str) -> bool:
    if size > len(data) or (size and data[size - 1] != 0x0A):
        return False
    h = hashlib.sha1(b"blob %d\0" % size)
    h.update(memoryview(data)[:size])
    return h.hexdigest() == hexid


def blob_sizes(repo, hexids: list[str]) -> dict[str, int]:
    """Blob id -> size, from the object headers (one `git cat-file` for all:
    pygit2's core alone cannot read a header)."""
    from ..git import GitError, git

    if not hexids:
        return {}
    try:
        out = git(repo.workdir or repo.path, "cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)",
                  input=("\n".join(hexids) + "\n").encode())
    except GitError:
        return {}
    sizes = {}
    for line in out.decode("ascii", "replace").splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "blob" and parts[2].isdigit():
            sizes[parts[0]] = int(parts[2])
    return sizes
