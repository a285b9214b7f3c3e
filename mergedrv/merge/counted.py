"""Numbers that count: a record's derived counts kept out of the row merge
and recomputed after it (`merge_counted`: the one wrapper, aligned before,
recounted after), `.mergedrv.toml` pins merged as counters (`merge_config`:
326 -> 327 on each side is 328), and so the numbers records' counts find in
another file, a checker's constant (`merge_counted_file`)."""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported on the driver's path (it costs a few ms)
if TYPE_CHECKING:
    from typing import Any, Callable

from ..pins import pin_lines, set_pin
from .fallback import text_result
from .values import Markers, Options, Result


def recount(data: bytes, record: Any) -> bytes:
    """``data`` with the record's rollups and prose counts set from its rows."""
    from ..derived import recompute_bytes  # only for records that declare counts

    return recompute_bytes(data, record)


def recount_conflicted(data: bytes, record: Any, size: int) -> tuple[bytes, int]:
    """``data``, which holds conflict regions, with its declared numbers set
    from the merged rows, each conflicted key counted once with ours' cells
    (the regions read as their ours part); and how many numbers it holds.
    A number inside a region's ours part is set too; nothing else moves."""
    from .. import derived, model
    from .fallback import hunks

    out: list[bytes] = []
    where: list[int] = []  # for each line of the ours reading, its index in ``out``
    for h in hunks(data, size):
        if h.clean is not None:
            where.extend(range(len(out), len(out) + len(h.clean)))
            out.extend(h.clean)
            continue
        out.append(h.ours_marker)
        where.extend(range(len(out), len(out) + len(h.ours)))
        out.extend(h.ours)
        out.extend([h.base_marker, *h.base] if h.base_marker else [])
        out.extend([h.sep_marker, *h.theirs, h.theirs_marker])
    reading = [out[i] for i in where]
    try:
        found = derived.derive(model.parse(b"".join(reading), record.key, key_pattern=record.key_pattern), record).numbers
    except Exception:  # a merge must not fail for a derived number
        return data, 0
    starts = [0]
    for line in reading:
        starts.append(starts[-1] + len(line))
    for n in sorted(found, key=lambda n: n.start, reverse=True):
        i, at = n.line - 1, n.start - starts[n.line - 1]
        if n.want != n.found and n.want >= 0 and n.end - starts[i] <= len(reading[i]):
            line = out[where[i]]
            out[where[i]] = line[:at] + str(n.want).encode() + line[n.end - starts[i] :]
    return b"".join(out), len(found)


NOTE_BESIDE = (
    "note: derived numbers (rollups, grids, counts) are written from the merged rows, each conflicted key counted once "
    "with ours' cells; after resolving, run `mergedrv fix` to set them from your resolution"
)


def merge_counted(base: bytes, ours: bytes, theirs: bytes, opts: Options, merge: Callable[..., Result]) -> Result:
    """``merge`` (the stages: ``merge(base, ours, theirs, opts, then)``) with
    the declared numbers kept out of the text merge.

    Before: both sides' numbers are set back to the base's values (`align`).
    After: the keyed merge's result is recounted from the merged rows
    (`recounted`, as ``then``): two branches that bump different counts in
    one sentence do not conflict, and a number never gets a conflict region
    of its own; beside a row conflict it is counted with ours' cells.  If
    the aligned merge falls back to text, the sides are merged as they are.
    """
    record = opts.counts
    if record is None:
        return merge(base, ours, theirs, opts)
    from ..derived import align_sides

    def then(result: Result) -> Result:
        return recounted(result, record, opts.markers.size)

    a, b = align_sides(base, [ours, theirs], record)
    if (a, b) != (ours, theirs):
        result = merge(base, a, b, opts, then)
        if not result.fallback:
            return result
    return merge(base, ours, theirs, opts, then)


def recounted(result: Result, record: Any, size: int) -> Result:
    """A keyed merge's ``result`` with the record's numbers set from its
    rows (`recount`); beside conflicts, each conflicted key counted with
    ours' cells and a note saying so (`recount_conflicted`)."""
    if not result.conflicts:
        result.data = recount(result.data, record)
        return result
    result.data, held = recount_conflicted(result.data, record, size)
    if held:
        result.notes.append(f"{result.conflicts[0].line or 1}: {NOTE_BESIDE}")
    return result


def merged_pins(base: bytes, ours: bytes, theirs: bytes, added_twice: Callable[[str], int | None] | None = None,
                unknown: list[str] | None = None) -> dict[str, int]:
    """Names whose pin both sides moved, with base + both moves, less the
    keys both sides added (``added_twice(name)``: one key in the merge, a
    double definition too, so counted once; None when the revisions are not
    known: nothing is taken off, and the name is added to ``unknown``)."""
    po, pa, pb = pin_lines(base), pin_lines(ours), pin_lines(theirs)
    out = {}
    for name, (_, vo) in po.items():
        if name in pa and name in pb:
            va, vb = pa[name][1], pb[name][1]
            if va != vo and vb != vo:
                twice = added_twice(name) if added_twice is not None else 0
                if twice is None and unknown is not None:
                    unknown.append(name)
                out[name] = vo + (va - vo) + (vb - vo) - (twice or 0)
    return out


UNCOUNTED = ("{name}: counted without the record's keys: git names no revisions to read them from (a cherry-pick or revert "
             "of one commit, `git am`); if both sides added the same key it counts twice: `mergedrv check` then reports the pin, "
             "and `mergedrv fix` sets it")


def merge_config(base: bytes, ours: bytes, theirs: bytes, markers: Markers, added_twice: Callable[[str], int | None] | None = None) -> Result:
    """Merge the configuration file with pins added up as counters
    (``added_twice``: as for `merged_pins`; where it cannot tell, a note says so)."""
    unknown: list[str] = []
    sums = merged_pins(base, ours, theirs, added_twice, unknown)
    notes = []
    if sums:
        pa, pb = pin_lines(ours), pin_lines(theirs)
        for name, value in sums.items():
            ours = set_pin(ours, pa[name][0], value)
            theirs = set_pin(theirs, pb[name][0], value)
            notes.append(f"{pa[name][0] + 1}: note: {name}: both sides moved the pin; merged as a counter: {value}")
            if name in unknown:
                notes.append(f"{pa[name][0] + 1}: note: " + UNCOUNTED.format(name=name))
    result = text_result(base, ours, theirs, markers, None)
    result.notes.extend(notes)
    return result


def _counted_numbers(data: bytes, path: str, records: list[Any]) -> dict[tuple[str, int], list[Any]]:
    """(record name, count index) -> the numbers that count finds in ``data``;
    a number two counts find is the first's alone (as `mergedrv fix` sets it once)."""
    from ..derived import Rows, derive_file

    out: dict[tuple[str, int], list[Any]] = {}
    taken: set[int] = set()
    for record in records:
        for n in derive_file(data, path, record, Rows([])).numbers:
            if n.start not in taken:
                taken.add(n.start)
                out.setdefault((record.name, n.source[1]), []).append(n)
    return out


def merge_counted_file(path: str, base: bytes, ours: bytes, theirs: bytes, records: list[Any], markers: Markers,
                       added_twice: Callable[[str], int | None] | None = None) -> Result:
    """A file ``records``' counts name (`[[record.count]] file`: any text),
    merged as git merges text, but each number a count of every row finds
    (no ``where``), once in each version, that both sides moved is first set
    on both sides to the base plus both moves less the keys both sides added
    (``added_twice(name)``, read from the commits git is combining: 326 ->
    327 and 326 -> 328 is 329), so it merges clean where git conflicts or
    keeps one move.  Where the keys both added cannot be known, a filtered
    count, or a total below zero: git's text merge alone."""
    from ..derived import rewrite

    by_name = {r.name: r for r in records}
    found = [_counted_numbers(d, path, records) for d in (base, ours, theirs)]
    notes: list[str] = []
    set_ours: list[tuple[Any, int]] = []
    set_theirs: list[tuple[Any, int]] = []
    for source, was in found[0].items():
        a, b = found[1].get(source, []), found[2].get(source, [])
        if len(was) != 1 or len(a) != 1 or len(b) != 1 or by_name[source[0]].counts[source[1]].where:
            continue  # (found more than once or not on a side, or counting some rows only: git's text merge decides)
        vo, va, vb = was[0].found, a[0].found, b[0].found
        if va == vo or vb == vo:
            continue  # one side's move: the text merge takes it
        twice = added_twice(source[0]) if added_twice is not None else None
        value = vo + (va - vo) + (vb - vo) - (twice or 0)
        if twice is None or value < 0:
            continue
        set_ours.append((a[0], value))
        set_theirs.append((b[0], value))
        notes.append(f"{a[0].line}: note: {source[0]}: both sides moved {a[0].what}; merged as a counter: {value}")
    if notes:
        ours = rewrite(ours, [n for n, _ in set_ours], _valued(set_ours))
        theirs = rewrite(theirs, [n for n, _ in set_theirs], _valued(set_theirs))
    result = text_result(base, ours, theirs, markers, None)
    result.notes.extend(notes)
    return result


def _valued(pairs: list[tuple[Any, int]]) -> Callable[[Any], int]:
    """``value(number)`` for `derived.rewrite`, from (number, value) pairs."""
    by = {id(n): v for n, v in pairs}
    return lambda n: by[id(n)]
