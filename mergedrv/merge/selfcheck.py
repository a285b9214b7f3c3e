"""The self-check: the keyed merge's result read back (as mergiraf re-parses
its own output) - every line a side kept is there, and outside conflict
regions every key once and only keys a side has; else the file falls back.
The result's lines are split and unpadded with plain bytes methods here,
sharing no pattern with the merge it checks."""

from __future__ import annotations

from collections import Counter

from itertools import filterfalse

from .. import model
from ..model import Document, Row, Table
from .fallback import Hunk, hunks
from .keyless import KEYLESS
from .values import Options, Result
from .sides import SIDES, Side

_ENDS = (b"\n", b"\r\n", b"", b"\r")
_BLANKS = b" \t\r\n\x0b\x0c"  # what bytes.strip() removes (and _unpadded the spaces and tabs of)


def _bare(line: bytes) -> bytes:
    """A line without its ending (the merge may write a side's LF as CRLF,
    and a last line without LF its CR as CRLF)."""
    return line.rstrip(b"\r\n")


def _exact(line: bytes) -> bytes:
    """A line as the result must hold it, but for its ending: a line with LF
    without it (the merge may write LF as CRLF); a last line without LF as
    it is, a CR it ends with being a byte of the line."""
    return line.rstrip(b"\r\n") if line.endswith(b"\n") else line


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
        after_clean = parts[i + 1].clean if i + 1 < len(parts) else None
        after = after_clean[0] if after_clean else b""
        if not (rowish(before) and rowish(after)):
            out.append(b"\n")
    return b"".join(out)


def _unpadded(line: bytes) -> bytes:
    """A table line without the padding around its cells (the spaces and
    tabs beside each ``|``) and without its closing pipe: re-aligning a
    table changes no content, nor does the closing pipe it may add."""
    return _unclosed(b"|".join(cell.strip(b" \t") for cell in line.strip().split(b"|")))


def _unclosed(line: bytes) -> bytes:
    """A stripped table line without its closing ``|`` (an escaped ``\\|`` is text and stays)."""
    return line[:-1] if line.endswith(b"|") and not line.endswith(b"\\|") and len(line) > 1 else line


def _lines(data: bytes) -> list[bytes]:
    """``data``'s lines, each with its LF (the last one without, if it has none)."""
    parts = data.split(b"\n")
    out = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _rows_by_key_all(doc: Document) -> dict[str, list[Row]]:
    """key -> its rows over every keyed table of ``doc``."""
    out: dict[str, list[Row]] = {}
    for t in doc.keyed_tables():
        for r in t.rows:
            if r.key is not None:
                out.setdefault(r.key, []).append(r)
    return out


def self_check(docs: list[Document], ours: bytes, theirs: bytes, result: Result, opts: Options, occ: list[dict[str, list[Row]]] | None = None) -> str | None:
    """Read the keyed merge's result back; None if it holds every line of
    ours and theirs that the other side did not delete or change, and,
    outside conflict regions, every key once and only keys a side has; else
    why not.  ``occ``: each version's rows by key, if the merge has them."""
    missing = _missing(docs, _lines(result.data))  # (the lines are freed before the read-back parses them again)
    if missing:
        if occ is None:
            occ = [_rows_by_key_all(d) for d in docs]
        why = _lost(docs, missing, occ)
        if why is not None:
            return why
    if opts.log:
        return None
    return _keys_read_back(docs, result, opts, occ)


def _missing(docs: list[Document], out_lines: list[bytes]) -> set[bytes]:
    """Lines of a side (without their endings) that the result lacks, even
    re-padded to the other side's alignment."""
    sides = [docs[Side.OURS].lines, docs[Side.THEIRS].lines]
    raw = set(out_lines)
    # the lines of a side the result lacks byte for byte, then without their
    # endings (the merge may write a side's LF as CRLF)
    gone = set(filterfalse(raw.__contains__, sides[0]))  # (in C, without a set of every line of a side)
    gone.update(filterfalse(raw.__contains__, sides[1]))
    candidates = {_exact(x) for x in gone if x.strip()}
    # a side's last line without LF is compared byte for byte (a CR it ends with is its own), even blank
    candidates.update(x for x in (s[-1] for s in sides if s) if not x.endswith(b"\n") and x not in raw)
    missing = {x for x in candidates if not any(x + e in raw for e in _ENDS)}
    if missing and len(missing) * 4 > len(out_lines):  # many: compare without endings in one pass
        have = {x.rstrip(b"\r\n") for x in out_lines} | {x[:-1] for x in out_lines if x.endswith(b"\n")} | raw
        missing -= have
    if missing and any(b"|" in x for x in missing):  # a row re-padded to the other side's alignment
        # only result lines equal to a missing one once all blanks are gone
        # can equal it unpadded (padding is blanks): one C pass over the result
        squeezed = {_unclosed(x.translate(None, _BLANKS)) for x in missing if b"|" in x}
        padded = {_unpadded(x) for x in out_lines if b"|" in x and _unclosed(x.translate(None, _BLANKS)) in squeezed}
        missing = {x for x in missing if b"|" not in x or _unpadded(x) not in padded}
    return missing


def _lost(docs: list[Document], missing: set[bytes], occ: list[dict[str, list[Row]]]) -> str | None:
    """Why a missing line is lost (a side kept it and the other did not
    delete or change it), or None if every one was deleted or changed."""
    wanted = {x + e for x in missing for e in _ENDS}
    counted = []
    for d in docs:
        c: dict[bytes, int] = {}
        for x in d.lines:
            if x in wanted:
                c[x] = c.get(x, 0) + 1
        counted.append(c)

    def count(n: int, line: bytes) -> int:
        return sum(counted[n].get(line + e, 0) for e in _ENDS)

    key_of: list[dict[bytes, str] | None] = [None, None, None]
    for line in sorted(missing):
        for side in SIDES:
            if not count(side, line):
                continue
            base_copies = count(Side.BASE, line)
            if base_copies:
                if count(Side.OURS, line) + count(Side.THEIRS, line) - base_copies < 1:
                    continue  # deleted or changed (each copy of it) by a side
            else:
                side_keys = key_of[side]
                if side_keys is None:
                    side_keys = key_of[side] = {r.lines[0]: k for k, rows in occ[side].items() for r in rows if k[:1] != KEYLESS}
                k = next((side_keys[line + end] for end in _ENDS if line + end in side_keys), None)
                if k is not None and k in occ[Side.BASE]:
                    was = {_bare(r.lines[0]) for r in occ[Side.BASE][k]}
                    if {_bare(r.lines[0]) for r in occ[side.other].get(k, [])} != was:
                        continue  # the other side changed or deleted this row
            return f"a line of {side.label} is missing from the merged result: {line[:80].decode('utf-8', 'replace')!r}"
    return None


def counts_agree(docs: list[Document], data: bytes, opts: Options) -> bool:
    """Does the merged ``data`` hold each key as often as the three versions'
    counts merged three-way say (a side that changed a key's count wins)?
    Each version read again row by row (the merge's parse folds untouched
    stretches into runs)."""
    try:
        read = model.parse_many([b"".join(d.lines) for d in docs] + [data], opts.key, False, opts.key_pattern, opts.markers.size,
                                ragged_keyless=True)
    except model.Unmodelable:
        return False
    return _key_counts(read[3]) == _merged_counts(*(_key_counts(d) for d in read[:3]))


def _key_counts(doc: model.Document) -> dict[str, int]:
    """How many rows of ``doc``'s keyed tables hold each key (not the names `keyless.prepare` gives lines)."""
    out: dict[str, int] = {}
    for t in doc.keyed_tables():
        for r in t.rows:
            if r.key is not None and r.key[:1] != KEYLESS:
                out[r.key] = out.get(r.key, 0) + 1
    return out


def _merged_counts(o: dict[str, int], a: dict[str, int], b: dict[str, int]) -> dict[str, int] | None:
    """Each key's count merged three-way (a side that changed it wins; both
    changing it alike agree), or None where both changed it differently."""
    out: dict[str, int] = {}
    for k in {*o, *a, *b}:
        x, y, z = o.get(k, 0), a.get(k, 0), b.get(k, 0)
        n = z if x == y else y if x == z or y == z else None
        if n is None:
            return None
        if n:
            out[k] = n
    return out


def _per_table(docs: list[Document], tables: list[Table], occ: list[dict[str, list[Row]]] | None) -> str | None:
    """`_keys_read_back` where keys are per table (`key_scope = "table"`):
    a key in no side, or in one table of the result more often than any
    side holds it in one table."""
    if occ is None:
        occ = [_rows_by_key_all(d) for d in docs]
    most: dict[str, int] = {}  # a key -> the most rows of one table of a side that hold it
    for d in docs[1:]:
        for t in d.keyed_tables():
            for k, n in Counter(r.key for r in t.rows if r.key is not None).items():
                most[k] = max(most.get(k, 0), n)
    folded = docs[0].elided or set()
    for t in tables:
        for k, n in Counter(r.key for r in t.rows if r.key is not None).items():
            if k not in occ[1] and k not in occ[2] and k not in folded:
                return f"key {k} is in the merged result but on neither side"
            if n > max(1, most.get(k, 0)):
                return f"key {k} is defined {n} times in one table outside conflict regions"
    return None


def _keys_read_back(docs: list[Document], result: Result, opts: Options, occ: list[dict[str, list[Row]]] | None) -> str | None:
    """The result parsed again: every key outside conflict regions once
    (or as often as a side has it) and only keys a side has."""
    data = result.data
    if result.conflicts:
        data = _without_conflicts(hunks(data, opts.markers.size))
    try:
        grouped = docs[Side.BASE].grouped  # keys repeated across groups: keyed by group, as in the sides
        if opts.key_pattern is None and not grouped[0] and not opts.per_table:  # only the keys are wanted: no rows made
            keys = model.keys_after(data, opts.key, docs[Side.BASE].cache or model.ParseCache())
        else:
            doc = model.parse_many([data], opts.key, False, opts.key_pattern, opts.markers.size, after=True, grouped=grouped if grouped[0] else None,
                                   cache=docs[Side.BASE].cache, ragged_keyless=True)[0]
            if opts.per_table:
                return _per_table(docs, doc.keyed_tables(), occ)
            keys = [r.key for t in doc.keyed_tables() for r in t.rows if r.key is not None]
    except model.Unmodelable as exc:
        if result.conflicts:
            return None  # the text between conflicts need not parse on its own
        return f"the merged result does not parse: {exc}"
    if occ is None:
        occ = [_rows_by_key_all(d) for d in docs]
    folded = docs[Side.BASE].elided or set()  # the keys inside runs: each once on both sides
    once = set(keys)
    if len(once) == len(keys) and not once.difference(occ[Side.OURS], occ[Side.THEIRS], folded):
        return None  # (the common case, in C: every key once, each on a side)
    seen: dict[str, int] = {}
    for k in keys:
        seen[k] = seen.get(k, 0) + 1
    for k, n in seen.items():
        if k not in occ[Side.OURS] and k not in occ[Side.THEIRS] and k not in folded:
            return f"key {k} is in the merged result but on neither side"
        if n > 1 and n > max(len(occ[Side.OURS].get(k, ())), len(occ[Side.THEIRS].get(k, ()))):  # a side's own duplicate may stay
            return f"key {k} is defined {n} times outside conflict regions"
    return None
