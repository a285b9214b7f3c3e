"""Prose: the text around the tables, merged by `git merge-file` with each
table stood in for by one placeholder line, and read back; where both sides
added whole sections or reference definitions at one place, both are kept."""

from __future__ import annotations

import os
from .. import rx

from ..model import Document, Table
from .fallback import Hunk, hunks, merge_text
from .match import Group, table_text
from .values import Fallback, Markers
from .sides import SIDES, Side

PLACEHOLDER = b"\x1emergedrv-table:"  # a line standing in for a table in the prose merge
# ends a version's last line that has no LF, in the prose merge: as for git,
# ``end`` (no LF) is another line than ``end\n``, and ``end\r`` than ``end\r\n``
NO_EOL = b"\x1emergedrv-eof\x1e"


class Placeholders:
    """The placeholder lines of one merge: a random token, then the table group's id."""

    __slots__ = ("token", "by_gid")

    def __init__(self, groups: list[Group]) -> None:
        self.token = PLACEHOLDER + os.urandom(6).hex().encode() + b":"
        self.by_gid = {g.gid: g for g in groups}

    def line(self, g: Group, side: Side) -> bytes:
        """A side's stand-in for ``g``; starred when the other side deleted
        the table and this side changed it (it must then stand somewhere)."""
        star = b""
        if side is not Side.BASE and g[Side.BASE] is not None and g[side.other] is None and table_text(g[side]) != table_text(g[Side.BASE]):
            star = b"*"
        return self.token + str(g.gid).encode() + star + b"\n"

    def gid(self, line: bytes) -> int | None:
        if not line.startswith(self.token):
            return None
        return int(line[len(self.token) :].rstrip(b"*\r\n"))

    def skeleton(self, doc: Document, side: Side) -> bytes:
        """``doc`` with each of its matched tables replaced by its placeholder."""
        where = {id(g[side]): g for g in self.by_gid.values() if g[side] is not None}
        out = []
        for block in doc.blocks:
            g = where.get(id(block))
            if g is not None:
                out.append(self.line(g, side))
            elif isinstance(block, Table):
                out.extend(block.lines())
            else:
                out.extend(doc.lines[block.start : block.end])
        if out and not out[-1].endswith(b"\n"):
            out[-1] += NO_EOL + b"\n"  # the last line has no LF; restored in render.assemble
        return b"".join(out)


class Prose:
    """The merged prose: its hunks, the table groups it places cleanly (in
    order) and the placeholders that stand for them."""

    __slots__ = ("parts", "tables", "placeholders")

    def __init__(self, parts: list[Hunk], tables: list[int], placeholders: Placeholders) -> None:
        self.parts = parts
        self.tables = tables
        self.placeholders = placeholders


def merge_prose(docs: tuple[Document, Document, Document], groups: list[Group], markers: Markers, eol: bytes) -> Prose:
    """The prose merge; raises `Fallback` when git's output cannot be read back."""
    ph = Placeholders(groups)
    sk = [ph.skeleton(docs[side], side) for side in Side]
    # git's markers are read back below, so the prose merge uses markers
    # longer than any run of < | = > the text itself holds (a setext
    # underline is a run of =); they are re-drawn at the size git asked for
    size = max(markers.size, _longest_marker_run(markers.size, *sk) + 1)
    inner = Markers(size, markers.base, markers.ours, markers.theirs)
    merged = merge_text(sk[0], sk[1], sk[2], inner)
    parts = hunks(merged.data, size)
    if merged.conflicts and all(h.clean is not None for h in parts):
        raise Fallback("the prose merge could not be read back")
    parts = [_entries(h, parts[i + 1 :], ph, eol) or _slid(h, parts[i - 1] if i else None, ph) or h for i, h in enumerate(parts)]
    clean_gids: list[int] = []
    found: tuple[set[int], set[int]] = (set(), set())  # tables of ours, theirs in the merged prose
    for h in parts:
        if h.clean is not None:
            for line in h.clean:
                gid = ph.gid(line)
                if gid is not None and gid not in clean_gids:
                    clean_gids.append(gid)
        else:
            for n, section in enumerate((h.ours, h.theirs)):
                found[n].update(gid for gid in map(ph.gid, section) if gid is not None)
    _every_table_placed(sk, ph, found, set(clean_gids))
    return Prose(parts, clean_gids, ph)


def added_apart(prose: Prose, groups: list[Group]) -> list[int]:
    """The tables both sides added (none in the base) that the prose merge
    puts at two places: each side added its own where git keeps both."""
    both = {g.gid for g in groups if g[Side.BASE] is None and g[Side.OURS] is not None and g[Side.THEIRS] is not None}
    seen: dict[int, int] = {}
    for h in prose.parts:
        lines = h.clean if h.clean is not None else [*h.ours, *h.theirs]
        gids = [prose.placeholders.gid(line) for line in lines]
        for gid in set(gids) if h.clean is None else gids:
            if gid in both:
                seen[gid] = seen.get(gid, 0) + 1
    return sorted(gid for gid, n in seen.items() if n > 1)


def _every_table_placed(sk: list[bytes], ph: Placeholders, found: tuple[set[int], set[int]], clean: set[int]) -> None:
    placed = [{line.rstrip(b"\r"): ph.gid(line) for line in sk[side].split(b"\n") if line.startswith(ph.token)} for side in SIDES]
    for n, side in enumerate(SIDES):
        # git's sections of mixed CRLF/LF text need not reproduce a side:
        # each of its tables must still stand somewhere, unless the other
        # side deleted it and this side left it alone (no star)
        other = set(placed[1 - n].values())
        mine = {gid for line, gid in placed[n].items() if gid in other or line.endswith(b"*")}
        if not mine <= found[n] | clean:
            raise Fallback(f"the prose merge lost the place of a table of {side.label} (mixed line endings?)")


def _entries(h: Hunk, after: list[Hunk], ph: Placeholders, eol: bytes) -> Hunk | None:
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
        lines = _new_sections(h.base, h.ours, h.theirs, ph, eol)
    if lines is None:
        lines = _merge_definitions(h.base, h.ours, h.theirs)
    return None if lines is None else Hunk(lines, [], [], [])


def _slid(h: Hunk, before: Hunk | None, ph: Placeholders) -> Hunk | None:
    """Both sides inserted lines at one place right after a table and the
    blank line below it, where one side also changed the table's last row
    and its insertion ends with that blank line: in the whole text, git
    reads that side's insertion as the row's change plus lines before the
    blank one (clean); the placeholder hid the row's change.  Both kept,
    that side's first, as git keeps them."""
    if h.clean is not None or h.base or not h.ours or not h.theirs or before is None or not before.clean or len(before.clean) < 2:
        return None
    blank, above = before.clean[-1], before.clean[-2]
    gid = ph.gid(above)
    if blank.strip() or gid is None:
        return None
    g = ph.by_gid[gid]
    o = g[Side.BASE]
    for side, mine, other in ((Side.OURS, h.ours, h.theirs), (Side.THEIRS, h.theirs, h.ours)):
        t = g[side]
        if mine[-1] == blank and o is not None and t is not None and t.lines()[-1:] != o.lines()[-1:]:
            return Hunk(mine + other, [], [], [])
    return None


def _new_sections(base: list[bytes], ours: list[bytes], theirs: list[bytes], ph: Placeholders, eol: bytes) -> list[bytes] | None:
    if any(ln.strip() for ln in base):
        return None
    heads = []
    for side, lines in zip(SIDES, (ours, theirs)):
        body = [ln for ln in lines if ln.strip()]
        if not body or not _ATX.match(body[0]):
            return None
        for ln in body:
            gid = ph.gid(ln)
            if gid is not None:  # only tables new in this side's new sections
                g = ph.by_gid[gid]
                if g[Side.BASE] is not None or g[side.other] is not None:
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
        out.append(eol)
    return out + rest


_ATX = rx.compile(rb"[ \t]{0,3}#{1,6}(?:[ \t]|\r?\n|$)")
_DEFINITION = rx.compile(rb"[ \t]{0,3}\[((?:[^\[\]\\]|\\.)+)\]:[ \t]*\S")


def _merge_definitions(base: list[bytes], ours: list[bytes], theirs: list[bytes]) -> list[bytes] | None:
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


def _longest_marker_run(size: int, *texts: bytes) -> int:
    """The longest run of one marker character starting a line, among runs
    of at least ``size`` (shorter ones cannot read as markers of that size;
    0 if none)."""
    longest = 0
    for text in texts:
        for c in (b"<", b"|", b"=", b">"):
            if c * size in text:
                run = rx.compile(rb"^" + rx.escape(c) + rb"{%d,}" % size, rx.M)
                longest = max([longest, *(len(m.group()) for m in run.finditer(text))])
    return longest
