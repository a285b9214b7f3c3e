"""The three-way keyed merge of one record file (SPEC: "Merging a keyed table").

Stages, each a function: parse the three versions into the record model,
match tables across versions, merge prose as text with every keyed table
stood in for by a placeholder line, merge each table row by row and cell by
cell, then render.  Pure: bytes in, bytes and conflicts out; nothing here
touches the file system or git's config.
"""

from __future__ import annotations

import operator
import os
import re

from . import model
from .model import Document, Row, Table
from .textmerge import Hunk, Markers, hunks, merge_text, trivial


class Conflict:
    """One conflict: ``kind`` (double-definition, same-cell, same-row,
    modify-delete, duplicate-key, header, table, log, text), the key ("-" if
    none), why, and the 1-based line of its first marker in the result."""

    __slots__ = ("kind", "key", "why", "line")

    def __init__(self, kind: str, key: str, why: str, line: int = 0) -> None:
        self.kind = kind
        self.key = key
        self.why = why
        self.line = line

    def __repr__(self) -> str:
        return f"Conflict({self.kind!r}, {self.key!r}, {self.why!r}, line={self.line})"


class Options:
    """How to merge one file: markers, the key column (None: plain text), log
    mode, strict additions, cell merging, a post-merge ``recompute`` (derived
    counts: bytes -> bytes) and the record's ``key_pattern`` (a row whose key
    cell does not match it and whose other cells are empty is a group
    divider, not a key)."""

    __slots__ = ("markers", "key", "log", "strict_additions", "cell_merge", "recompute", "key_pattern")

    def __init__(
        self,
        markers: Markers | None = None,
        key: str | None = None,
        log: bool = False,
        strict_additions: bool = False,
        cell_merge: bool = True,
        recompute=None,
        key_pattern: str | None = None,
    ) -> None:
        self.markers = markers or Markers()
        self.key = key
        self.log = log
        self.strict_additions = strict_additions
        self.cell_merge = cell_merge
        self.recompute = recompute
        self.key_pattern = key_pattern


class Result:
    """Merged bytes, conflicts, notes (``line: message`` for stderr) and, when
    the whole file was merged as text, why."""

    __slots__ = ("data", "conflicts", "notes", "fallback")

    def __init__(self, data: bytes, conflicts: list[Conflict] | None = None, notes: list[str] | None = None, fallback: str | None = None) -> None:
        self.data = data
        self.conflicts = conflicts or []
        self.notes = notes or []
        self.fallback = fallback


# --- entry point ---------------------------------------------------------------


def merge(base: bytes, ours: bytes, theirs: bytes, opts: Options) -> Result:
    """Merge three versions of one file; never loses either side's content."""
    quick = trivial(ours, base, theirs)
    if quick is not None and not (opts.strict_additions and ours == theirs != base):
        return Result(quick)
    if opts.key is None and not opts.log:
        return text_result(ours, base, theirs, opts.markers, None)
    if b"<<<<<<<" in base and _MARKER_LINE.search(base) and not any(_MARKER_LINE.search(x) for x in (ours, theirs)):
        base = virtual_base(base)
    if any(PLACEHOLDER in x for x in (base, ours, theirs)):
        return text_result(ours, base, theirs, opts.markers, "the file contains mergedrv's placeholder text")
    try:
        docs = model.parse_many([base, ours, theirs], opts.key, opts.log, opts.key_pattern, opts.markers.size)
    except model.Unmodelable as exc:
        return text_result(ours, base, theirs, opts.markers, str(exc))
    try:
        km = _KeyedMerge(docs[0], docs[1], docs[2], opts)
        result = km.run()
    except _Fallback as exc:
        return text_result(ours, base, theirs, opts.markers, str(exc))
    why = self_check(docs, ours, theirs, result, opts, None if opts.log else km.occ)
    if why is not None:
        return text_result(ours, base, theirs, opts.markers, f"self-check: {why}")
    if opts.recompute is not None and not result.conflicts:
        result.data = opts.recompute(result.data)
    return result


def text_result(ours: bytes, base: bytes, theirs: bytes, markers: Markers, why: str | None) -> Result:
    """git's text merge of the whole file, each conflict hunk reported."""
    merged = merge_text(ours, base, theirs, markers)
    conflicts = []
    line = 1
    # git's exit code says whether it wrote conflicts: a clean merge may hold
    # markers a side committed, or prose that reads as markers of a small size
    if merged.conflicts == 0:
        return Result(merged.data, [], [], why)
    for hunk in hunks(merged.data, markers.size):
        if hunk.clean is None:
            conflicts.append(Conflict("text", "-", "both sides changed the same lines", line))
            line += 4 + len(hunk.ours) + len(hunk.base) + len(hunk.theirs)
        else:
            line += len(hunk.clean)
    if merged.conflicts and not conflicts:  # binary: one whole-file conflict
        conflicts.append(Conflict("text", "-", "git cannot merge this content; both sides kept", 1))
    return Result(merged.data, conflicts, [], why)


def _bare(line: bytes) -> bytes:
    """A line without its ending (the merge may write a side's LF as CRLF,
    and a last line without LF its CR as CRLF)."""
    return line.rstrip(b"\r\n")


def _without_conflicts(parts: list[Hunk]) -> bytes:
    """The clean text of a merge result: a conflict region between two table
    rows is dropped (the rows stay one table), any other is read as a blank
    line (what is around it stays apart)."""

    def rowish(line: bytes) -> bool:
        return line.lstrip(b" \t>-*+").startswith(b"|")

    out: list[bytes] = []
    for i, h in enumerate(parts):
        if h.clean is not None:
            out.extend(h.clean)
            continue
        before = out[-1] if out else b""
        after = parts[i + 1].clean[0] if i + 1 < len(parts) and parts[i + 1].clean else b""
        if not (rowish(before) and rowish(after)):
            out.append(b"\n")
    return b"".join(out)


def _unpadded(line: bytes) -> bytes:
    """A table line without the padding around its cells: re-aligning a
    table changes no content."""
    return _PAD.sub(b"|", line.strip())


_PAD = re.compile(rb"[ \t]*\|[ \t]*")


def _rows_by_key_all(doc: Document) -> dict[str, list[Row]]:
    """key -> its rows over every keyed table of ``doc``."""
    out: dict[str, list[Row]] = {}
    for t in doc.keyed_tables():
        for r in t.rows:
            if r.key is not None:
                out.setdefault(r.key, []).append(r)
    return out


def self_check(docs: list[Document], ours: bytes, theirs: bytes, result: Result, opts: Options, occ: list | None = None) -> str | None:
    """Read the keyed merge's result back (mergiraf re-parses its own
    output); None if it holds every line of ours and theirs that the other
    side did not delete or change, and, outside conflict regions, every key
    once and only keys a side has; else why not.
    """
    out_lines = model.split_lines(result.data)
    sides = [docs[1].lines, docs[2].lines]
    ends = (b"\n", b"\r\n", b"", b"\r")
    raw = set(out_lines)
    # the lines of a side the result lacks byte for byte, then without their
    # endings (the merge may write a side's LF as CRLF)
    candidates = {x.rstrip(b"\r\n") for x in (set(sides[0]) | set(sides[1])) - raw if x.strip()}
    missing = {x for x in candidates if not any(x + e in raw for e in ends)}
    if missing and len(missing) * 4 > len(out_lines):  # many: compare without endings in one pass
        have = {x.rstrip(b"\r\n") for x in out_lines}
        missing -= have
    if missing and any(b"|" in x for x in missing):  # a row re-padded to the other side's alignment
        padded = {_unpadded(x) for x in out_lines if b"|" in x}
        missing = {x for x in missing if b"|" not in x or _unpadded(x) not in padded}
    if missing:
        wanted = {x + e for x in missing for e in ends}
        counted = []
        for d in docs:
            c: dict[bytes, int] = {}
            for x in d.lines:
                if x in wanted:
                    c[x] = c.get(x, 0) + 1
            counted.append(c)

        def count(n: int, line: bytes) -> int:
            return sum(counted[n].get(line + e, 0) for e in ends)

        if occ is None:
            occ = [_rows_by_key_all(d) for d in docs]
        key_of: list[dict[bytes, str] | None] = [None, None, None]
        for line in sorted(missing):
            for n in (1, 2):
                if not count(n, line):
                    continue
                other = 3 - n
                base_copies = count(0, line)
                if base_copies:
                    if count(1, line) + count(2, line) - base_copies < 1:
                        continue  # deleted or changed (each copy of it) by a side
                else:
                    if key_of[n] is None:
                        key_of[n] = {r.lines[0]: k for k, rows in occ[n].items() for r in rows if k[:1] != KEYLESS}
                    k = next((key_of[n][line + end] for end in (b"\n", b"\r\n", b"", b"\r") if line + end in key_of[n]), None)
                    if k is not None and k in occ[0]:
                        was = {_bare(r.lines[0]) for r in occ[0][k]}
                        if {_bare(r.lines[0]) for r in occ[other].get(k, [])} != was:
                            continue  # the other side changed or deleted this row
                side = "ours" if n == 1 else "theirs"
                return f"a line of {side} is missing from the merged result: {line[:80].decode('utf-8', 'replace')!r}"
    if opts.log:
        return None
    data = result.data
    if result.conflicts:
        data = _without_conflicts(hunks(data, opts.markers.size))
    try:
        doc = model.parse_many([data], opts.key, False, opts.key_pattern, opts.markers.size, after=True)[0]
    except model.Unmodelable as exc:
        if result.conflicts:
            return None  # the text between conflicts need not parse on its own
        return f"the merged result does not parse: {exc}"
    seen: dict[str, int] = {}
    for t in doc.keyed_tables():
        for r in t.rows:
            if r.key is not None:
                seen[r.key] = seen.get(r.key, 0) + 1
    if occ is None:
        occ = [_rows_by_key_all(d) for d in docs]
    for k, n in seen.items():
        if k not in occ[1] and k not in occ[2]:
            return f"key {k} is in the merged result but on neither side"
        if n > 1 and n > max(len(occ[1].get(k, ())), len(occ[2].get(k, ()))):  # a side's own duplicate may stay
            return f"key {k} is defined {n} times outside conflict regions"
    return None


_MARKER_LINE = re.compile(rb"^(<{7,})(?: |\r?$)", re.M)


def virtual_base(base: bytes) -> bytes:
    """A base without the conflicts of an inner merge.

    In a criss-cross merge git first merges the two merge bases into a
    virtual ancestor, conflicts and all (with longer markers), and passes it
    as %O.  Each conflict there is replaced by its own base section (empty
    if it has none): an older state both sides descend from, so a key in
    the conflict counts as added by the sides that have it; a double
    definition still conflicts and nothing is taken for deleted.
    """
    for _ in range(4):  # nested inner merges use longer markers each
        m = _MARKER_LINE.search(base)
        if m is None:
            break
        out = []
        for h in hunks(base, len(m.group(1))):
            out.extend(h.clean if h.clean is not None else h.base)
        base = b"".join(out)
    return base


PLACEHOLDER = b"\x1emergedrv-table:"  # a line standing in for a table in the prose merge


class _Fallback(Exception):
    pass


# --- items: what a table merge emits -------------------------------------------


class _Item:
    """Lines a table merge emits: a clean row (``side`` a, b or both says
    where it came from) or, with ``conflict`` set, a conflict block."""

    __slots__ = ("lines", "key", "side", "conflict", "inside")

    def __init__(self, lines: list[bytes], key: str | None = None, side: str = "both", conflict: Conflict | None = None) -> None:
        self.lines = lines
        self.key = key
        self.side = side
        self.conflict = conflict
        self.inside: tuple[set[str], set[str], set[str]] | None = None  # keys of a whole-table conflict (base, ours, theirs)


class _Group:
    """One table as it stands in base, ours and theirs (None: absent)."""

    __slots__ = ("gid", "o", "a", "b")

    def __init__(self, gid: int, o: Table | None, a: Table | None, b: Table | None) -> None:
        self.gid = gid
        self.o = o
        self.a = a
        self.b = b


def _identity(tables: list[Table]) -> list[tuple[tuple[str, ...], int]]:
    """Each table's heading path and its position among tables under it."""
    seen: dict[tuple[str, ...], int] = {}
    out = []
    for t in tables:
        n = seen.get(t.path, 0)
        seen[t.path] = n + 1
        out.append((t.path, n))
    return out


def match_tables(o: list[Table], a: list[Table], b: list[Table]) -> list[_Group]:
    """Match each side's tables to the base's.

    1. A heading path (every heading above the table) that holds exactly one
       table on both sides names the same table, wherever it moved.
    2. Tables left over (several under one heading, or a renamed heading)
       match by the keys they share, the most shared first.
    3. Then by heading path and position under it; what is left is new, and
       tables new on both sides match by heading path.
    """
    groups = [_Group(i, t, None, None) for i, t in enumerate(o)]
    o_ident = _identity(o)
    o_paths: dict[tuple[str, ...], list[int]] = {}
    for gi, t in enumerate(o):
        o_paths.setdefault(t.path, []).append(gi)
    o_keys = [set(t.keys()) for t in o]
    new: dict[tuple, _Group] = {}
    for side, tables in (("a", a), ("b", b)):
        idents = _identity(tables)
        t_paths: dict[tuple[str, ...], int] = {}
        for t in tables:
            t_paths[t.path] = t_paths.get(t.path, 0) + 1
        taken: set[int] = set()
        free = set(range(len(o)))
        for ti, t in enumerate(tables):
            home = o_paths.get(t.path, [])
            if t_paths[t.path] == 1 and len(home) == 1:
                setattr(groups[home[0]], side, t)
                taken.add(ti)
                free.discard(home[0])
        key_index: dict[str, list[int]] = {}
        for gi in sorted(free):
            for k in o_keys[gi]:
                key_index.setdefault(k, []).append(gi)
        scores = _shared_scores(tables, taken, free, key_index, lambda t: set(t.keys()), idents, o_ident)
        for _, _, ti, gi in sorted(scores):
            if ti not in taken and gi in free:
                setattr(groups[gi], side, tables[ti])
                taken.add(ti)
                free.discard(gi)
        # tables that share no key (logs, tables of keyless rows) match by
        # the row lines they share before position does: matching by
        # position alone pairs a side's table with another one of the base
        line_index: dict[bytes, list[int]] = {}
        for gi in sorted(free):
            for ln in _row_line_set(o[gi]):
                line_index.setdefault(ln, []).append(gi)
        scores = _shared_scores(tables, taken, free, line_index, _row_line_set, idents, o_ident)
        for _, _, ti, gi in sorted(scores):
            if ti not in taken and gi in free:
                setattr(groups[gi], side, tables[ti])
                taken.add(ti)
                free.discard(gi)
        by_ident = {o_ident[gi]: gi for gi in free}
        for ti, t in enumerate(tables):
            if ti in taken:
                continue
            gi = by_ident.pop(idents[ti], None)
            if gi is not None:
                setattr(groups[gi], side, t)
                continue
            g = new.get(idents[ti])
            if g is None or getattr(g, side) is not None:
                g = _Group(len(groups), None, None, None)
                groups.append(g)
                new[idents[ti]] = g
            setattr(g, side, t)
    return groups


def _row_line_set(t: Table) -> set[bytes]:
    return {ln for r in t.rows for ln in r.lines if ln.strip()}


def _shared_scores(tables, taken, free, index, items_of, idents, o_ident) -> list[tuple]:
    """(-shared, not the same place, side table, base table) for each pair
    of a side's table left over and a free base table that share items
    (keys or row lines), found through ``index`` (item -> base tables):
    linear in the items, not in the product of the table counts."""
    scores = []
    if not index:
        return scores
    for ti, t in enumerate(tables):
        if ti in taken:
            continue
        shared: dict[int, int] = {}
        for item in items_of(t):
            for gi in index.get(item, ()):
                if gi in free:
                    shared[gi] = shared.get(gi, 0) + 1
        for gi, n in shared.items():
            scores.append((-n, idents[ti] != o_ident[gi], ti, gi))
    return scores


def _table_text(t: Table | None) -> bytes | None:
    return None if t is None else b"".join(t.lines())


# --- the document merge --------------------------------------------------------


class _KeyedMerge:
    def __init__(self, o: Document, a: Document, b: Document, opts: Options) -> None:
        self.docs = (o, a, b)
        self.opts = opts
        self.mk = opts.markers
        pick = (lambda d: d.tables) if opts.log else (lambda d: d.keyed_tables())
        self.groups = match_tables(pick(o), pick(a), pick(b))
        if not opts.log:
            for d in self.docs:
                for t in d.keyed_tables():
                    _split_keyless(t)
            for g in self.groups:
                if g.o is not None and g.o.key_col is not None:
                    for t in (g.a, g.b):
                        if t is not None and t.key_col is not None:
                            _pair_keyless(g.o, t)
        # key -> the table group holding it, per side (moves between tables)
        self.where: list[dict[str, int]] = [{}, {}, {}]
        for g in self.groups:
            for n, t in enumerate((g.o, g.a, g.b)):
                if t is not None and t.key_col is not None:
                    self.where[n].update((r.key, g.gid) for r in t.rows if r.key[:1] != KEYLESS)
        self.eol = b"\r\n" if a.lines and a.lines[0].endswith(b"\r\n") else b"\n"
        self.token = PLACEHOLDER + os.urandom(6).hex().encode() + b":"
        self.conflicts: list[Conflict] = []
        self.notes: list[str] = []
        self.dup_keys: set[str] = set()
        self.by_table: dict[int, dict[str, list[Row]]] = {}
        self.occ = [self._occurrences(d) for d in self.docs]
        self.dup_plan = self._plan_duplicates()
        self.dup_emitted: set[str] = set()
        # (table, key, base lines, edited lines, editing side) of rows one side
        # edited where the other side moved them away from
        self.moved_edits: list[tuple[int, str, list[bytes], list[bytes], str]] = []
        self.cur_gid = -1

    # -- skeletons with placeholders
    def _placeholder(self, g: _Group, side: str) -> bytes:
        star = b""
        mine = getattr(g, side)
        other = g.b if side == "a" else g.a
        if side in ("a", "b") and g.o is not None and other is None and _table_text(mine) != _table_text(g.o):
            star = b"*"
        return self.token + str(g.gid).encode() + star + b"\n"

    def _skeleton(self, side: str) -> bytes:
        doc = self.docs["oab".index(side)]
        where = {id(getattr(g, side)): g for g in self.groups if getattr(g, side) is not None}
        out = []
        for block in doc.blocks:
            g = where.get(id(block))
            if g is not None:
                out.append(self._placeholder(g, side))
            elif isinstance(block, Table):
                out.extend(block.lines())
            else:
                out.extend(doc.lines[block.start : block.end])
        if out and not out[-1].endswith(b"\n"):
            out[-1] += b"\n"  # a table may follow; restored below
        return b"".join(out)

    def _gid(self, line: bytes) -> int | None:
        if not line.startswith(self.token):
            return None
        return int(line[len(self.token) :].rstrip(b"*\r\n"))

    # -- prose conflicts that are entries: new sections, reference definitions
    def _entries(self, h: Hunk, after: list[Hunk]) -> Hunk | None:
        """A prose conflict both sides made by adding entries at one place,
        as a clean stretch: whole new sections (a heading and everything
        under it, under headings only one side added; ours first, each table
        merged as usual), or reference-link definitions keyed by their label
        (ours first; a label changed differently is still a conflict)."""
        if h.clean is not None:
            return None
        lines = None
        nxt = next((ln for ln in (after[0].clean or [b"<"]) if ln.strip()), None) if after else None
        if nxt is None or _ATX.match(nxt):  # what follows is the next section: theirs are whole
            lines = self._new_sections(h.ours, h.base, h.theirs)
        if lines is None:
            lines = _merge_definitions(h.ours, h.base, h.theirs)
        return None if lines is None else Hunk(lines, [], [], [])

    def _new_sections(self, ours: list[bytes], base: list[bytes], theirs: list[bytes]) -> list[bytes] | None:
        if any(ln.strip() for ln in base):
            return None
        heads = []
        for side, lines in (("a", ours), ("b", theirs)):
            body = [ln for ln in lines if ln.strip()]
            if not body or not _ATX.match(body[0]):
                return None
            for ln in body:
                gid = self._gid(ln)
                if gid is not None:  # only tables new in this side's new sections
                    g = next(x for x in self.groups if x.gid == gid)
                    if g.o is not None or getattr(g, "b" if side == "a" else "a") is not None:
                        return None
            heads.append({ln.strip().lstrip(b"#").strip() for ln in body if _ATX.match(ln)})
        if heads[0] & heads[1]:
            return None  # a section both added under one heading: the conflict shows both
        out = list(ours)
        rest = list(theirs)
        if out and not out[-1].strip():
            while rest and not rest[0].strip():
                rest.pop(0)
        elif rest and rest[0].strip():
            out.append(self.eol)
        return out + rest

    # -- run
    def run(self) -> Result:
        o_sk, a_sk, b_sk = (self._skeleton(s) for s in "oab")
        # git's markers are read back below, so the prose merge uses markers
        # longer than any run of < | = > the text itself holds (a setext
        # underline is a run of =); they are re-drawn at the size git asked for
        size = max(self.mk.size, _longest_marker_run(self.mk.size, o_sk, a_sk, b_sk) + 1)
        inner = Markers(size, self.mk.ours, self.mk.base, self.mk.theirs)
        merged = merge_text(a_sk, o_sk, b_sk, inner)
        parts = hunks(merged.data, size)
        if merged.conflicts and all(h.clean is not None for h in parts):
            raise _Fallback("the prose merge could not be read back")
        parts = [self._entries(h, parts[i + 1 :]) or h for i, h in enumerate(parts)]
        clean_gids: list[int] = []
        found: tuple[set[int], set[int]] = (set(), set())  # tables of ours, theirs in the merged prose
        for h in parts:
            if h.clean is not None:
                for line in h.clean:
                    gid = self._gid(line)
                    if gid is not None and gid not in clean_gids:
                        clean_gids.append(gid)
            else:
                for n, section in enumerate((h.ours, h.theirs)):
                    found[n].update(gid for gid in map(self._gid, section) if gid is not None)
        placed = [
            {line.rstrip(b"\r"): self._gid(line) for line in sk.split(b"\n") if line.startswith(self.token)} for sk in (a_sk, b_sk)
        ]
        for n, side in enumerate(("ours", "theirs")):
            # git's sections of mixed CRLF/LF text need not reproduce a side:
            # each of its tables must still stand somewhere, unless the other
            # side deleted it and this side left it alone (no star)
            other = set(placed[1 - n].values())
            mine = {gid for line, gid in placed[n].items() if gid in other or line.endswith(b"*")}
            if not mine <= found[n] | set(clean_gids):
                raise _Fallback(f"the prose merge lost the place of a table of {side} (mixed line endings?)")
        by_gid = {g.gid: g for g in self.groups}
        rendered: dict[int, list[_Item]] = {}
        for gid in clean_gids:
            rendered[gid] = self._merge_group(by_gid[gid])
        self._cross_table_duplicates(rendered)
        self._edits_landed(rendered)
        return self._assemble(parts, rendered, by_gid)

    def _edits_landed(self, rendered: dict[int, list[_Item]]) -> None:
        """A row one side edited where the other moved it away from is merged
        where it moved to; if that table came out as a whole-table or prose
        conflict (the row not merged there), the edit is kept here instead, as
        a conflict."""
        for gid, k, base_lines, edited, side in self.moved_edits:
            there = self.where[1 if side == "b" else 2].get(k)
            if there is not None and any(it.key == k and it.inside is None for it in rendered.get(there, [])):
                continue
            mover = "ours" if side == "b" else "theirs"
            why = f"{mover} moved this row into a table that conflicts; the other side's edit of it is kept here"
            lines = self.mk.block([], base_lines, edited, self.eol) if side == "b" else self.mk.block(edited, base_lines, [], self.eol)
            rendered.setdefault(gid, []).append(_Item(lines, k, "both", Conflict("modify-delete", k, why)))

    def _assemble(self, parts: list[Hunk], rendered: dict[int, list[_Item]], by_gid: dict[int, _Group]) -> Result:
        out: list[bytes] = []
        conflicts: list[Conflict] = []
        used: set[int] = set()

        def side_lines(lines: list[bytes], side: str) -> tuple[list[bytes], bool]:
            res, had_table = [], False
            for line in lines:
                gid = self._gid(line)
                if gid is None:
                    res.append(line)
                else:
                    had_table = True
                    res.extend(getattr(by_gid[gid], side).lines())
            return res, had_table

        for h in parts:
            if h.clean is not None:
                for line in h.clean:
                    gid = self._gid(line)
                    if gid is None:
                        out.append(line)
                    elif gid not in used:
                        used.add(gid)
                        for item in rendered[gid]:
                            if item.conflict is not None:
                                item.conflict.line = len(out) + 1
                                conflicts.append(item.conflict)
                            out.extend(item.lines)
                continue
            ours, t1 = side_lines(h.ours, "a")
            base, t2 = side_lines(h.base, "o")
            theirs, t3 = side_lines(h.theirs, "b")
            if t1 or t2 or t3:
                c = Conflict("table", "-", "both sides changed the lines around a table, or where it stands", len(out) + 1)
            else:
                c = Conflict("text", "-", "both sides changed the same lines of prose", len(out) + 1)
            conflicts.append(c)
            out.extend(self.mk.block(ours, base, theirs, self.eol))
        for i in range(len(out) - 1):
            if not out[i].endswith(b"\n"):
                out[i] += self.eol
        # whether the file ends with a newline is merged three-way as well
        if out and out[-1].endswith(b"\n"):
            ends = [not d.lines or d.lines[-1].endswith(b"\n") for d in self.docs]
            if not _three(ends[0], ends[1], ends[2]):
                out[-1] = out[-1].rstrip(b"\r\n")
        for c in conflicts:  # a keyless line's internal name is not for people
            if c.key[:1] == KEYLESS:
                c.why = f"{c.why} (the line without a key: {_keyless_parts(c.key)[1]!r})"
                c.key = "-"
        conflicts.sort(key=lambda c: c.line)
        return Result(b"".join(out), conflicts, self.notes)

    # -- duplicates within one input
    def _occurrences(self, doc: Document) -> dict[str, list[Row]]:
        """Key -> rows over the whole file; per-table maps kept for the merge."""
        occ: dict[str, list[Row]] = {}
        if self.opts.log:
            return occ
        tables = doc.keyed_tables()
        for table in tables:
            per = self.by_table[id(table)] = _rows_by_key(table)
            keyless = any(r.key[:1] == KEYLESS for r in table.rows)
            if len(tables) == 1 and not keyless:
                occ = per  # one table: the same map serves both
            else:
                for k, rows in per.items():
                    if k[:1] != KEYLESS:
                        occ.setdefault(k, []).extend(rows)
        self.dup_keys.update(k for k, rows in occ.items() if len(rows) > 1)
        return occ

    def _plan_duplicates(self) -> dict[str, str]:
        """Keys defined twice in some input: 'keep' when all three versions
        hold the same rows (an old duplicate nobody touched, noted on stderr);
        'a' or 'b' when only that side touched the key (the other left its
        rows exactly as the base has them): that side's rows, as they are
        (`mergedrv check` reports the duplicate); else 'conflict': which row
        the other side's edit belongs to is never guessed at."""
        o, a, b = self.occ
        plan = {}

        def placed(n: int, k: str) -> list[tuple[int, bytes]]:  # (table, row) of each copy: a move is a change
            out = []
            for g in self.groups:
                t = (g.o, g.a, g.b)[n]
                if t is not None:
                    out.extend((g.gid, r.text) for r in self.by_table.get(id(t), {}).get(k, []))
            return out

        for k in self.dup_keys:
            to, ta, tb = (placed(n, k) for n in range(3))
            if to == ta == tb:
                plan[k] = "keep"
                first = a[k][0].line + 1
                self.notes.append(f"{first}: note: {k}: defined {len(ta)} times in all three versions; kept as is (see `mergedrv check`)")
            elif to == tb or to == ta:
                side = "b" if to == ta else "a"
                plan[k] = side
                rows = (a if side == "a" else b).get(k, [])
                if len(rows) > 1:
                    name = "ours" if side == "a" else "theirs"
                    self.notes.append(
                        f"{rows[0].line + 1}: note: {k}: defined {len(rows)} times in {name}, which alone changed it; {name}' rows kept (see `mergedrv check`)"
                    )
            else:
                plan[k] = "conflict"
        return plan

    def _duplicate_conflict(self, k: str) -> _Item:
        o, a, b = (x.get(k, []) for x in self.occ)
        where = []
        for name, rows in (("base", o), ("ours", a), ("theirs", b)):
            if len(rows) > 1:
                where.append(f"{name} defines it {len(rows)} times (lines {', '.join(str(r.line + 1) for r in rows)})")
        why = "; ".join(where) + "; not guessed at"
        lines = self.mk.block(
            [ln for r in a for ln in r.lines], [ln for r in o for ln in r.lines], [ln for r in b for ln in r.lines], self.eol
        )
        return _Item(lines, k, "both", Conflict("duplicate-key", k, why))

    # -- one table
    def _merge_group(self, g: _Group) -> list[_Item]:
        self.cur_gid = g.gid
        o, a, b = g.o, g.a, g.b
        present = [t for t in (a, b) if t is not None]
        if o is None and len(present) == 1:
            t = present[0]
            if self.opts.log:
                return [_Item(t.lines())]
            empty = Table(t.start, t.start, t.header, t.delimiter, t.column, t.heading, t.columns, t.key_col)
            return self._merge_keyed(empty, a or empty, b or empty, g)
        if a is None or b is None:
            # one side deleted the table; the other kept it where the text
            # merge put it (it may have moved it): deleted if the keeping side
            # left its content alone, else a conflict that shows both
            keep, side = (a, "a") if a is not None else (b, "b")
            if _table_text(keep) == _table_text(o):
                return []
            why = f"{'theirs' if side == 'a' else 'ours'} deleted the table that {'ours' if side == 'a' else 'theirs'} changed"
            c = Conflict("table", keep.heading or "-", why)
            ours, theirs = (keep.lines(), []) if side == "a" else ([], keep.lines())
            return [_Item(self.mk.block(ours, o.lines(), theirs, self.eol), None, "both", c)]
        if o is None:
            if [a.header, a.delimiter] != [b.header, b.delimiter]:
                # added on both sides with different headers: neither header
                # is the base's, so neither replaces the other
                return self._whole_table_conflict(None, a, b, "both sides added this table with different headers")
            o = Table(a.start, a.start, a.header, a.delimiter, a.column, a.heading, a.columns, a.key_col)
        if self.opts.log:
            return self._merge_log(o, a, b)
        return self._merge_keyed(o, a, b, g)

    @staticmethod
    def _items_of(t: Table, side: str) -> list[_Item]:
        """A whole table as items, each row with its key (so that the
        cross-table check still sees them)."""
        return [_Item(list(t.head_lines)), *(_Item(r.lines, r.key, side) for r in t.rows)]

    def _interleave_log(self, o: Table, a: Table, b: Table) -> list[_Item]:
        """Ours' rows in ours' order, with each row theirs added placed after
        its neighbour in theirs (after rows ours added there)."""
        in_o = {r.lines[0] for r in o.rows}
        in_a = {r.lines[0] for r in a.rows}
        anchored: dict[bytes | None, list[Row]] = {}
        prev: bytes | None = None
        for r in b.rows:
            line = r.lines[0]
            if line not in in_o and line not in in_a:
                anchored.setdefault(prev, []).append(r)
            prev = line
        out: list[_Item] = []

        def flush(anchor: bytes | None) -> None:
            stack = list(reversed(anchored.pop(anchor, [])))
            while stack:
                r = stack.pop()
                out.append(_Item(list(r.lines)))
                stack.extend(reversed(anchored.pop(r.lines[0], [])))

        due: bytes | None = None
        waiting = True
        for r in a.rows:
            line = r.lines[0]
            if waiting and line in in_o:  # theirs' rows come before the next base row
                flush(due)
                waiting = False
            out.append(_Item(list(r.lines)))
            if line in anchored or line in in_o:
                if waiting:
                    flush(due)
                due, waiting = line, True
        flush(due)
        for rest in list(anchored):
            flush(rest)
        return out

    def _whole_table_conflict(self, o: Table | None, a: Table, b: Table, why: str) -> list[_Item]:
        c = Conflict("header", a.heading or "-", why)
        item = _Item(self.mk.block(a.lines(), o.lines() if o is not None else [], b.lines(), self.eol), None, "both", c)
        item.inside = tuple({k for k in t.keys() if k[:1] != KEYLESS} if t is not None else set() for t in (o, a, b))  # type: ignore[assignment]
        return [item]

    def _merge_head(self, o: Table, a: Table, b: Table) -> tuple[list[_Item], bool] | None:
        """Merge header, delimiter and preamble.  None: the whole table conflicts."""
        ho, ha, hb = ([t.header, t.delimiter] for t in (o, a, b))
        # the same columns in the same places (names compared without markup;
        # a renamed column keeps its cells, a swapped or added one does not)
        same_shape = _same_columns(o, a) and _same_columns(o, b)
        items: list[_Item] = []
        if ha == ho:
            head = hb
        elif hb == ho or ha == hb:
            head = ha
        elif same_shape:
            head = None
        else:
            return None
        if not same_shape and not (ha == hb):
            # one side reshaped the table: fine only if the other changed no row
            other = b if hb == ho else a
            base_rows = {r.key: r.text for r in o.rows}
            kept = [r.key for r in other.rows]
            if other.preamble != o.preamble or any(base_rows.get(r.key) != r.text for r in other.rows):
                return None  # the other side added or changed rows: they would not fit
            if kept != [k for k in o.keys() if k in set(kept)]:
                return None  # ... or reordered them
            gone = set(base_rows) - set(kept)  # rows the other side deleted: deleted here too
            reshaped = a if other is b else b
            edited = _reshape_edits(o, reshaped, gone)
            if edited:  # ... unless the reshaping side changed them: modify/delete
                return None
            if any(self.dup_plan.get(k) == "conflict" for k in reshaped.keys()):
                return None  # a key defined twice is never guessed at, reshaped or not
            items = self._items_of(reshaped, "a" if other is b else "b")
            return [it for it in items if it.key not in gone], True
        if head is None:
            c = Conflict("header", a.heading or "-", "both sides changed the table header differently")
            items.append(_Item(self.mk.block(ha, ho, hb, self.eol), None, "both", c))
        else:
            items.append(_Item(list(head)))
        pre = _three(o.preamble, a.preamble, b.preamble)
        if pre is None:
            c = Conflict("same-row", "-", "both sides changed the lines under the table header differently")
            items.append(_Item(self.mk.block(a.preamble, o.preamble, b.preamble, self.eol), None, "both", c))
        elif pre:
            items.append(_Item(list(pre)))
        return items, False

    def _merge_keyed(self, o: Table, a: Table, b: Table, g: _Group) -> list[_Item]:
        head = self._merge_head(o, a, b)
        if head is None:
            return self._whole_table_conflict(o, a, b, "the columns changed on one side while the other changed rows")
        items, done = head
        if done:
            return items
        om, am, bm = (self.by_table.get(id(t)) or _rows_by_key(t) for t in (o, a, b))
        # the order of rows is ours, unless only theirs reordered the table
        first, second, names = a, b, ("a", "b")
        ko, ka, kb = o.keys(), a.keys(), b.keys()
        if not _reordered(ko, ka) and _reordered(ko, kb):
            first, second, names = b, a, ("b", "a")
        out: list[_Item] = []
        placed: set[str] = set()
        # 1. rows in the first side's order
        dup_plan = self.dup_plan
        for row in first.rows:
            k = row.key
            ro, rs = om.get(k), (bm if first is a else am).get(k)
            if ro is not None and rs is not None and len(ro) == 1 == len(rs) and k not in dup_plan and k not in placed:
                if ro[0].lines == row.lines == rs[0].lines:  # the common case: untouched
                    placed.add(k)
                    out.append(_Item(row.lines, k, "both"))
                    continue
            if dup_plan.get(k) == "keep":
                placed.add(k)  # untouched duplicates stay where they are
                out.append(_Item(row.lines, k, "both"))
                continue
            if dup_plan.get(k) in ("a", "b"):  # one side alone touched a duplicate: its rows
                if dup_plan[k] == names[0]:
                    placed.add(k)
                    out.append(_Item(row.lines, k, names[0]))
                continue
            if k in placed:
                continue
            placed.add(k)
            out.extend(self._decide(k, om.get(k), am.get(k), bm.get(k)))
        # 2. rows only the other side still has, after their neighbour there
        pending: list[tuple[int, list[_Item]]] = []
        for idx, row in enumerate(second.rows):
            k = row.key
            if dup_plan.get(k) in ("a", "b"):
                if dup_plan[k] == names[1]:  # each copy after its neighbour there
                    pending.append((idx, [_Item(row.lines, k, names[1])]))
                continue
            if k in placed:
                continue
            placed.add(k)
            if names[1] == "b":
                new = self._decide(k, om.get(k), None, bm.get(k))
            else:
                new = self._decide(k, om.get(k), am.get(k), None)
            if new:
                pending.append((idx, new))
        if pending:
            out = _insert_after_neighbours(out, pending, (ko, ka, kb), second, names[0])
        _realign(o, a, b, out)
        return items + out

    def _decide(self, k: str, o: list[Row] | None, a: list[Row] | None, b: list[Row] | None) -> list[_Item]:
        """SPEC's decision table for one key within one table."""
        plan = self.dup_plan.get(k)
        if plan is not None:
            return self._decide_duplicate(k, plan, a, b)
        to = o[0].text if o else None
        ta = a[0].text if a else None
        tb = b[0].text if b else None
        if to is None:
            elsewhere = self.occ[0].get(k)  # the base has it in another table
            if ta is None:
                if elsewhere:  # theirs moved it here
                    return self._moved_here(k, elsewhere[0], b[0], "theirs", 1)
                return [_Item(b[0].lines, k, "b")]
            if tb is None:
                if elsewhere:  # ours moved it here
                    return self._moved_here(k, elsewhere[0], a[0], "ours", 2)
                return [_Item(a[0].lines, k, "a")]
            if elsewhere and len(elsewhere) == 1:  # both moved it here: the base row is the one they moved
                o, to = elsewhere, elsewhere[0].text
        if to is None:
            if ta == tb:
                if self.opts.strict_additions:
                    c = Conflict("double-definition", k, "both sides added this key (identical rows; strict mode)")
                    return [_Item(self.mk.block(a[0].lines, [], b[0].lines, self.eol), k, "both", c)]
                if k[:1] != KEYLESS:
                    self.notes.append(f"{a[0].line + 1}: note: {k}: both sides added the same row; kept once")
                return [_Item(a[0].lines, k, "both")]
            c = Conflict(
                "double-definition", k, f"ours (line {a[0].line + 1}) and theirs (line {b[0].line + 1}) both add this key with different content"
            )
            return [_Item(self.mk.block(a[0].lines, [], b[0].lines, self.eol), k, "both", c)]
        if ta is None and tb is None:
            return []
        if ta is None:
            if tb == to:
                return []
            if self._moved_away(1, k):  # ours moved it: decided there (checked in _edits_landed)
                self.moved_edits.append((self.cur_gid, k, o[0].lines, b[0].lines, "b"))
                return []
            c = Conflict("modify-delete", k, f"ours deleted the row that theirs changed (theirs line {b[0].line + 1})")
            return [_Item(self.mk.block([], o[0].lines, b[0].lines, self.eol), k, "both", c)]
        if tb is None:
            if ta == to:
                return []
            if self._moved_away(2, k):  # theirs moved it: decided there (checked in _edits_landed)
                self.moved_edits.append((self.cur_gid, k, o[0].lines, a[0].lines, "a"))
                return []
            c = Conflict("modify-delete", k, f"theirs deleted the row that ours changed (ours line {a[0].line + 1})")
            return [_Item(self.mk.block(a[0].lines, o[0].lines, [], self.eol), k, "both", c)]
        if ta == to or ta == tb:
            return [_Item(b[0].lines, k, "both")]
        if tb == to:
            return [_Item(a[0].lines, k, "both")]
        return [self._merge_cells(k, o[0], a[0], b[0])]

    def _moved_away(self, side: int, k: str) -> bool:
        """Side 1 (ours) or 2 (theirs) holds ``k`` in another table than the base."""
        there, base = self.where[side].get(k), self.where[0].get(k)
        return there is not None and base is not None and there != base

    def _moved_here(self, k: str, o: Row, moved: Row, mover: str, other: int) -> list[_Item]:
        """One side moved ``k`` into this table: the row lands here, with the
        other side's edit (made where it was) merged in."""
        side = "b" if mover == "theirs" else "a"
        kept = self.occ[other].get(k)
        if kept is None:  # the other side deleted it
            if moved.text == o.text:
                return []
            c = Conflict("modify-delete", k, f"{'ours' if other == 1 else 'theirs'} deleted the row that {mover} moved to another table and changed (line {moved.line + 1})")
            lines = ([], o.lines, moved.lines) if side == "b" else (moved.lines, o.lines, [])
            return [_Item(self.mk.block(*lines, self.eol), k, "both", c)]
        if self._moved_away(other, k) or len(kept) != 1:
            return [_Item(moved.lines, k, side)]  # both moved it: the cross-table check decides
        edited = kept[0]
        if edited.text == o.text or edited.text == moved.text:
            return [_Item(moved.lines, k, side)]
        if moved.text == o.text:
            return [_Item(edited.lines, k, side)]
        a, b = (edited, moved) if side == "b" else (moved, edited)
        return [self._merge_cells(k, o, a, b)]

    def _merge_cells(self, k: str, o: Row, a: Row, b: Row) -> _Item:
        def conflict(kind: str, why: str) -> _Item:
            return _Item(self.mk.block(a.lines, o.lines, b.lines, self.eol), k, "both", Conflict(kind, k, why))

        if not self.opts.cell_merge:
            return conflict("same-row", "both sides changed this row (cell merging is off)")
        if k[:1] == KEYLESS:  # a line without a key has no cells to line up by
            return conflict("same-row", "both sides changed this line differently")
        co, ca, cb = o.cells(), a.cells(), b.cells()
        if not (len(co.cells) == len(ca.cells) == len(cb.cells)):
            return conflict("same-row", "both sides changed this row and their cell counts differ")
        cells = []
        clash = []
        for i, (x, y, z) in enumerate(zip(co.cells, ca.cells, cb.cells)):
            m = _three_cell(x, y, z)
            if m is None:
                clash.append(i)
                cells.append(y)
            else:
                cells.append(m)
        prefix = _three_cell(co.prefix, ca.prefix, cb.prefix)
        suffix = _three_cell(co.suffix, ca.suffix, cb.suffix)
        tail = _three(o.lines[1:], a.lines[1:], b.lines[1:])
        if clash or prefix is None or suffix is None or tail is None:
            names = [str(i + 1) for i in clash] or ["row edges"]
            return conflict("same-cell", f"both sides changed cell {', '.join(names)} differently")
        line = model.Cells(prefix, cells, suffix).render()
        return _Item([line, *tail], k, "both")

    def _decide_duplicate(self, k: str, plan: str, a: list[Row] | None, b: list[Row] | None) -> list[_Item]:
        if plan != "conflict":  # "keep": only reached for rows theirs has in this table and ours has not
            return []
        if k in self.dup_emitted:
            return []
        self.dup_emitted.add(k)
        return [self._duplicate_conflict(k)]

    def _cross_table_duplicates(self, rendered: dict[int, list[_Item]]) -> None:
        """A key added in two different tables by the two sides is a double definition."""
        count: dict[str, int] = {}
        for items in rendered.values():
            for item in items:
                if item.conflict is None and item.key is not None and item.key[:1] != KEYLESS:
                    count[item.key] = count.get(item.key, 0) + 1
        o, a, b = self.occ
        # keys a side adds inside a whole-table conflict count as defined there
        hidden: dict[str, set[str]] = {"a": set(), "b": set()}
        for items in rendered.values():
            for item in items:
                if item.inside is not None:
                    base_keys, ours_keys, theirs_keys = item.inside
                    hidden["a"] |= ours_keys - base_keys
                    hidden["b"] |= theirs_keys - base_keys
        for items in rendered.values():
            for i, item in enumerate(items):
                k = item.key
                if item.conflict is not None or k is None or k[:1] == KEYLESS or k in o:
                    continue
                other = "b" if item.side == "a" else "a" if item.side == "b" else None
                if other is not None and k in hidden[other]:
                    mine = "ours" if item.side == "a" else "theirs"
                    why = f"{mine} adds this key here and {'theirs' if mine == 'ours' else 'ours'} adds it inside a table that conflicts"
                    ours = item.lines if item.side == "a" else []
                    theirs = item.lines if item.side == "b" else []
                    items[i] = _Item(self.mk.block(ours, [], theirs, self.eol), k, "both", Conflict("double-definition", k, why))
        for k, n in count.items():
            if n <= 1 or k in self.dup_plan or n <= max(len(a.get(k, [])), len(b.get(k, []))):
                continue
            lines_a = ", ".join(str(r.line + 1) for r in a.get(k, []))
            lines_b = ", ".join(str(r.line + 1) for r in b.get(k, []))
            why = f"ours (line {lines_a}) and theirs (line {lines_b}) define this key in different tables"
            for items in rendered.values():
                for i, item in enumerate(items):
                    if item.key != k or item.conflict is not None:
                        continue
                    ours = item.lines if item.side in ("a", "both") else []
                    theirs = item.lines if item.side in ("b", "both") else []
                    items[i] = _Item(self.mk.block(ours, [], theirs, self.eol), k, "both", Conflict("double-definition", k, why))

    # -- logs
    def _merge_log(self, o: Table, a: Table, b: Table) -> list[_Item]:
        head = _three([o.header, o.delimiter, *o.preamble], [a.header, a.delimiter, *a.preamble], [b.header, b.delimiter, *b.preamble])
        if head is None:
            return self._whole_table_conflict(o, a, b, "both sides changed the ledger's header")
        ro, ra, rb = ([r.lines[0] for r in t.rows] for t in (o, a, b))
        n = len(ro)
        if (ra[:n] != ro or rb[:n] != ro) and _is_subsequence(ro, ra) and _is_subsequence(ro, rb):
            # no existing row changed or removed, but rows were added inside
            # the log, as a rebase does when it replays appends onto appends
            return [_Item(list(head)), *self._interleave_log(o, a, b)]
        if (ra[:n] != ro or rb[:n] != ro) and (len(ra) < n or len(rb) < n):
            pa = _common_prefix(ro, ra)
            pb = _common_prefix(ro, rb)
            p = min(pa, pb)
            side = "ours" if ra[:n] != ro else "theirs"
            row = o.rows[min(pa if side == "ours" else pb, n - 1)] if n else None
            where = f" (base line {row.line + 1})" if row is not None else ""
            c = Conflict("log", "-", f"{side} changed or removed a row that was already in the log{where}; a log only grows at the end")
            keep = [_Item(list(head))]
            for r in o.rows[:p]:
                keep.append(_Item(list(r.lines)))
            tail = lambda t: [ln for r in t.rows[p:] for ln in r.lines]  # noqa: E731
            keep.append(_Item(self.mk.block(tail(a), tail(o), tail(b), self.eol), None, "both", c))
            return keep
        appended_a = a.rows[n:]
        appended_b = b.rows[n:]
        items = [_Item(list(head))]
        for i in range(n):
            lo, la, lb = o.rows[i].lines, a.rows[i].lines, b.rows[i].lines
            if i == n - 1 and (appended_a or appended_b):
                # the blank lines before the appended rows are the appending
                # side's (ours' when both appended; theirs' come after ours)
                lines = la if appended_a else lb
            else:
                lines = _three(lo, la, lb) or la  # a change to the blank lines between rows
            # an existing row one side changed takes that change (`log-append-only`
            # reports it at commit time); changed differently on both: a conflict
            row = _three(lo[0], la[0], lb[0])
            if row is None:
                why = f"both sides changed a row that was already in the log (base line {o.rows[i].line + 1}) differently"
                items.append(_Item(self.mk.block(la[:1], lo[:1], lb[:1], self.eol), None, "both", Conflict("log", "-", why)))
                items.append(_Item(list(lines[1:])))
                continue
            items.append(_Item([row, *lines[1:]]))
        seen = {r.lines[0] for r in appended_a}
        for r in appended_a:
            items.append(_Item(list(r.lines)))
        extra = [r for r in appended_b if r.lines[0] not in seen]
        for r in appended_b:
            if r.lines[0] in seen:
                self.notes.append(f"{r.line + 1}: note: -: both sides appended the same log row; kept once")
        if extra and appended_a:
            # theirs' rows follow ours' the way theirs joined them to the log
            joint = b.rows[n - 1].lines[1:] if n else []
            last = items[-1].lines
            if joint and last and last[-1].strip():
                last.extend(joint)
        for r in extra:
            items.append(_Item(list(r.lines)))
        return items



# --- small pure helpers --------------------------------------------------------


_ATX = re.compile(rb"[ \t]{0,3}#{1,6}(?:[ \t]|\r?\n|$)")
_DEFINITION = re.compile(rb"[ \t]{0,3}\[((?:[^\[\]\\]|\\.)+)\]:[ \t]*\S")


def _merge_definitions(ours: list[bytes], base: list[bytes], theirs: list[bytes]) -> list[bytes] | None:
    """Reference-link definitions (``[label]: target``) merged by label:
    ours' in ours' order, then theirs' new ones; None unless every line is a
    definition or blank and no label changed differently on both sides."""
    maps = []
    for lines in (base, ours, theirs):
        defs: dict[bytes, bytes] = {}
        for ln in lines:
            if not ln.strip():
                continue
            m = _DEFINITION.match(ln)
            if m is None or PLACEHOLDER in ln:
                return None
            label = b" ".join(m.group(1).lower().split())
            if label in defs:
                return None
            defs[label] = ln
        maps.append(defs)
    o, a, b = maps
    if not a and not b:
        return None
    merged: dict[bytes, bytes | None] = {}
    for label in {**o, **a, **b}:
        vo, va, vb = o.get(label), a.get(label), b.get(label)
        if va == vo or va == vb:
            merged[label] = vb
        elif vb == vo:
            merged[label] = va
        else:
            return None  # changed differently, added differently, or changed and deleted
    out: list[bytes] = []
    last = -1
    for ln in ours:
        m = _DEFINITION.match(ln) if ln.strip() else None
        if m is None:
            out.append(ln)
            continue
        line = merged[b" ".join(m.group(1).lower().split())]
        if line is not None:
            out.append(line)
            last = len(out)
    new = [ln for label, ln in b.items() if label not in a and merged[label] is not None]
    at = last if last >= 0 else len(out)
    return out[:at] + new + out[at:]


KEYLESS = "\x00"  # keys of the keyless lines of a keyed table (see _split_keyless)


def _split_keyless(table: Table) -> None:
    """Give each keyless line of a keyed table (a group divider with an empty
    key cell, a group label in the key column (the model makes it keyless), a
    plain line under the table) a row of its own, as GitHub shows it.

    Its key names the keyed row above it and its text; `_pair_keyless` then
    follows a line that one side moved (rows added or deleted above it) or
    edited in place, so that such lines merge by the decision table like
    rows: never copied, never a false conflict, an edit on both sides a
    conflict.
    """
    if not table.preamble and all(len(r.lines) == 1 for r in table.rows):
        return  # nothing without a key: the common large table
    rows: list[Row] = []
    seen: dict[str, int] = {}
    prev = ""

    def keyless(line: bytes, n: int) -> Row:
        text = line.rstrip(b"\r\n").decode("utf-8", "replace")
        name = f"{KEYLESS}{prev}\x01{text}"
        count = seen.get(name, 0)
        seen[name] = count + 1
        return Row(n, [line], f"{name}\x01{count}" if count else name, table.column)

    for j, line in enumerate(table.preamble):  # keyless lines above the first keyed row
        rows.append(keyless(line, table.start + 2 + j))
    table.preamble = []
    for r in table.rows:
        rows.append(r if len(r.lines) == 1 else Row(r.line, [r.lines[0]], r.key, r.column))
        prev = r.key
        for j, line in enumerate(r.lines[1:], 1):
            rows.append(keyless(line, r.line + j))
    table.rows = rows


def _neighbours(t: Table) -> dict[str, tuple[str, str]]:
    """Each keyless row's nearest keyed rows: (the one above, the one below)."""
    out: dict[str, tuple[str, str]] = {}
    prev = ""
    pending: list[str] = []
    for r in t.rows:
        if r.key[:1] == KEYLESS:
            pending.append(r.key)
            continue
        for k in pending:
            out[k] = (prev, r.key)
        pending = []
        prev = r.key
    for k in pending:
        out[k] = (prev, "")
    return out


def _keyless_parts(key: str) -> tuple[str, str]:
    """(the keyed row above, the text) of a keyless row's key."""
    prev, _, rest = key[1:].partition("\x01")
    return prev, rest.split("\x01")[0]


def _pair_keyless(o: Table, x: Table) -> None:
    """Rename the keyless rows one side (``x``) moved or edited to the base's
    names: a line whose text is unchanged but which now follows another row
    (rows were added or deleted above it) is the same line; a new line right
    where a base line went missing is that line, edited."""
    base = {r.key: r for r in o.rows if r.key[:1] == KEYLESS}
    if not base:
        return
    have = {r.key for r in x.rows}
    missing = [k for k in base if k not in have]
    fresh = [r for r in x.rows if r.key[:1] == KEYLESS and r.key not in base]
    if not missing or not fresh:
        return
    claimed: set[int] = set()
    o_near, x_near = _neighbours(o), _neighbours(x)
    # indexes (text -> missing base lines, row above -> fresh lines) keep
    # this linear: thousands of renamed group dividers are common
    by_text: dict[str, list[str]] = {}
    for k in missing:
        by_text.setdefault(_keyless_parts(k)[1], []).append(k)
    gone: set[str] = set()
    for n, r in enumerate(fresh):  # moved: the same text, the base copy it sits nearest to
        copies = [c for c in by_text.get(_keyless_parts(r.key)[1], ()) if c not in gone]
        if not copies:
            continue
        prev, nxt = x_near[r.key]
        k = max(copies, key=lambda c: (o_near[c][1] == nxt) * 2 + (o_near[c][0] == prev))
        r.key = k
        claimed.add(n)
        gone.add(k)
    by_prev: dict[str, list[int]] = {}
    for n, r in enumerate(fresh):
        if n not in claimed:
            by_prev.setdefault(_keyless_parts(r.key)[0], []).append(n)
    for prev_list in by_prev.values():
        prev_list.reverse()  # popped from the end: the first fresh line first
    for k in missing:  # edited in place: a new line under the same row
        if k in gone:
            continue
        waiting = by_prev.get(_keyless_parts(k)[0])
        if waiting:
            n = waiting.pop()
            fresh[n].key = k
            claimed.add(n)


def _same_columns(o: Table, t: Table) -> bool:
    """``t`` has ``o``'s columns in ``o``'s order (renames allowed in place)."""
    if len(o.columns) != len(t.columns) or o.key_col != t.key_col:
        return False
    kept = set(o.columns) & set(t.columns)
    if not all(x == y for x, y in zip(o.columns, t.columns) if x in kept and y in kept):
        return False  # columns swapped or moved
    renamed = [i for i, (x, y) in enumerate(zip(o.columns, t.columns)) if x != y]
    if not renamed:
        return True
    # a column renamed and its cells rewritten too is a replaced column
    base = {r.key: r for r in o.rows}
    common = [(base[r.key], r) for r in t.rows if r.key in base]
    for i in renamed:
        changed = 0
        for ro, rt in common:
            co, ct = ro.cells().cells, rt.cells().cells
            if i < len(co) and i < len(ct) and co[i].strip() != ct[i].strip():
                changed += 1
        if common and changed * 2 > len(common):
            return False
    return True


def _reshape_edits(o: Table, t: Table, gone: set[str]) -> list[str]:
    """Keys in ``gone`` (deleted by the other side) whose row the reshaping
    side ``t`` changed beyond its new shape: a cell of a kept column edited,
    or a new column's cell holding more than the value that column holds in
    every row (a fill value such as ``-``)."""
    if not gone:
        return []
    base = {r.key: r for r in o.rows}
    o_index = {name: i for i, name in reversed(list(enumerate(o.columns)))}
    rows = [r for r in t.rows if r.key in gone and r.key in base]
    if not rows:
        return []
    cells_of = {id(r): [c.strip() for c in r.cells().cells] for r in t.rows}
    fill: dict[int, bytes | None] = {}
    for i, name in enumerate(t.columns):
        if name not in o_index:
            values = {cells[i] if i < len(cells) else b"" for cells in cells_of.values()}
            fill[i] = values.pop() if len(values) == 1 else None
    out = []
    for r in rows:
        old = [c.strip() for c in base[r.key].cells().cells]
        new = cells_of[id(r)]
        for i, name in enumerate(t.columns):
            cell = new[i] if i < len(new) else b""
            if name in o_index:
                j = o_index[name]
                if cell != (old[j] if j < len(old) else b""):
                    break
            elif cell and cell != fill.get(i):
                break
        else:
            continue
        out.append(r.key)
    return out


def _longest_marker_run(size: int, *texts: bytes) -> int:
    """The longest run of one marker character starting a line, among runs
    of at least ``size`` (shorter ones cannot read as markers of that size;
    0 if none)."""
    longest = 0
    for text in texts:
        for c in (b"<", b"|", b"=", b">"):
            if c * size in text:
                rx = re.compile(rb"^" + re.escape(c) + rb"{%d,}" % size, re.M)
                longest = max([longest, *(len(m.group()) for m in rx.finditer(text))])
    return longest


def _reordered(base: list[str], keys: list[str]) -> bool:
    """Did ``keys`` change the relative order of the keys it shares with ``base``?"""
    if keys == base:
        return False
    mine = set(keys)
    known = set(base)
    return [k for k in keys if k in known] != [k for k in base if k in mine]


def _natural(key: str) -> tuple:
    """``kind 7`` before ``kind 10``: runs of digits compare as numbers, the rest ignoring case."""
    parts = re.split(r"(\d+)", key.casefold())
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts))


_ORDERS = (str.casefold, str, _natural)  # ignoring case first: it is what people keep; str: as written


def _keeps(ks: list[str], order) -> bool:
    """Are ``ks`` sorted by ``order`` (a stable sort leaves them as they are)?"""
    if order is str:
        return ks == sorted(ks)
    if order is _natural:  # ruled out cheaply at the first step down ignoring case
        folded = list(map(str.casefold, ks))
        down = list(map(operator.gt, folded, folded[1:]))
        if True in down:
            i = down.index(True)
            if _natural(ks[i]) > _natural(ks[i + 1]):
                return False
    return ks == sorted(ks, key=order)


def _sort_order(keys: tuple[list[str], list[str], list[str]]):
    """The order all three versions of a table keep (ignoring case, as
    written, or with numbers compared as numbers), or None if not sorted (or
    the base has fewer than two rows).  A table with keyless rows, such as
    group dividers, is in groups, not sorted."""
    if len(keys[0]) < 2 or any(ks and ks[0][:1] == KEYLESS for ks in keys):
        return None  # (a side left with one row or none is in any order)
    for order in _ORDERS:
        if all(_keeps(ks, order) for ks in (keys[1], keys[2], keys[0])):  # the sides differ from the base
            return order
    return None


def _insert_after_neighbours(out: list[_Item], pending, keys: tuple[list[str], list[str], list[str]], second: Table, first_name: str) -> list[_Item]:
    """Place rows only ``second`` has: each right after its nearest preceding
    neighbour in ``second`` that survives (rows the first side added right
    there come first), or in key order when all three tables are sorted."""
    o_keys = set(keys[0])
    order = _sort_order(keys)
    if order is not None:
        news = sorted((new for _, new in pending), key=lambda n: order(n[0].key))
        merged: list[_Item] = []
        n = 0
        for item in out:
            while n < len(news) and item.key is not None and order(news[n][0].key) < order(item.key):
                merged.extend(news[n])
                n += 1
            merged.append(item)
        for rest in news[n:]:
            merged.extend(rest)
        return merged
    survivors = {item.key for item in out} | {new[0].key for _, new in pending}
    anchored: dict[str | None, list[list[_Item]]] = {}
    for idx, new in pending:
        anchor = None
        for j in range(idx - 1, -1, -1):
            if second.rows[j].key in survivors:
                anchor = second.rows[j].key
                break
        anchored.setdefault(anchor, []).append(new)
    result: list[_Item] = []

    def flush(key: str | None) -> None:
        # depth-first over "rows anchored to rows", without recursion: a side
        # may add thousands of rows in a row
        stack = list(reversed(anchored.pop(key, [])))
        while stack:
            new = stack.pop()
            result.extend(new)
            stack.extend(reversed(anchored.pop(new[0].key, [])))

    waiting: str | None = None  # whose anchored rows are due
    due = True
    for item in out:
        fresh = item.side == first_name and item.key not in o_keys
        if due and not fresh:
            flush(waiting)
            due = False
        result.append(item)
        if item.key is not None and item.key in anchored:
            if due:
                flush(waiting)
            waiting, due = item.key, True
    if due:
        flush(waiting)
    for rest in list(anchored):  # anchors that never showed up: keep, at the end
        flush(rest)
    return result


def _widths(t: Table) -> list[int] | None:
    """The column widths of an aligned table (each column's cells equally
    wide on every line, in characters), else None."""
    widths = None
    for line in (t.header, t.delimiter, *(r.lines[0] for r in t.rows if r.key[:1] != KEYLESS)):
        w = [len(c.decode("utf-8", "replace")) for c in model.split_cells(line, t.column).cells]
        if widths is None:
            widths = w
        elif w != widths:
            return None
    return widths


def _realign(o: Table, a: Table, b: Table, out: list[_Item]) -> None:
    """When one side re-aligned a table (padded its columns to new widths),
    the rows the merge took from elsewhere (the other side's additions and
    edits, merged rows) get the same padding, where their text fits."""
    ho, ha, hb = ((t.header, t.delimiter) for t in (o, a, b))
    if hb != ho and ha == ho:  # a re-alignment re-pads the header too
        aligned = b
    elif ha != ho and hb == ho:
        aligned = a
    else:
        return
    widths = _widths(aligned)
    if widths is None or widths == _widths(o):
        return
    right = [c.strip().endswith(b":") and not c.strip().startswith(b":") for c in model.split_cells(aligned.delimiter, aligned.column).cells]
    known = {r.lines[0] for r in aligned.rows}
    for item in out:
        if item.conflict is not None or item.key is None or item.key[:1] == KEYLESS or len(item.lines) != 1 or item.lines[0] in known:
            continue
        cells = model.split_cells(item.lines[0], aligned.column)
        if len(cells.cells) != len(widths):
            continue
        padded = []
        for cell, width, r in zip(cells.cells, widths, right):
            text = cell.strip()
            room = width - 2 - len(text.decode("utf-8", "replace"))
            if room < 0:
                break
            padded.append(b" " + (b" " * room + text if r else text + b" " * room) + b" ")
        else:
            item.lines = [model.Cells(cells.prefix, padded, cells.suffix).render()]


def _rows_by_key(t: Table) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for r in t.rows:
        out.setdefault(r.key, []).append(r)
    return out


def _three(o, a, b):
    """Three-way choice on whole values; None when both changed differently."""
    if a == o or a == b:
        return b
    if b == o:
        return a
    return None


def _three_cell(o: bytes, a: bytes, b: bytes) -> bytes | None:
    """Three-way choice on one cell; a change of padding alone yields."""
    if a == o or a == b:
        return b
    if b == o:
        return a
    if a.strip() == o.strip():
        return b
    if b.strip() == o.strip():
        return a
    if a.strip() == b.strip():
        return a
    return None


def _is_subsequence(short: list[bytes], long: list[bytes]) -> bool:
    """Does ``long`` hold every line of ``short``, in order?"""
    it = iter(long)
    return all(any(x == y for y in it) for x in short)


def _common_prefix(x: list[bytes], y: list[bytes]) -> int:
    n = 0
    for p, q in zip(x, y):
        if p != q:
            break
        n += 1
    return n
