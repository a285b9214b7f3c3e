"""Numbers that count: a record's derived counts kept out of the row merge
and recomputed after it (`merge_counted`, `recount`), and `.mergedrv.toml`
pins merged as counters (`merge_config`: 326 -> 327 on each side is 328)."""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported on the driver's path (it costs a few ms)
if TYPE_CHECKING:
    from typing import Any, Callable

from ..pins import pin_lines, set_pin
from .fallback import text_result
from .options import Markers, Options, Result


def recount(data: bytes, record: Any) -> bytes:
    """``data`` with the record's rollups and prose counts set from its rows."""
    from ..derived import recompute_bytes  # only for records that declare counts

    return recompute_bytes(data, record)


def merge_counted(base: bytes, ours: bytes, theirs: bytes, opts: Options, merge: Callable[..., Result]) -> Result:
    """``merge`` with the declared numbers kept out of the text merge.

    Both sides' numbers are set back to the base's values (`align`), the rows
    are merged, and the merge recounts them from the merged rows
    (``opts.counts``): two branches that bump different counts in one
    sentence do not conflict.  If the aligned merge still conflicts, the
    sides are merged as they are, so the conflict shows each side's own text.
    """
    record = opts.counts
    if record is None:
        return merge(base, ours, theirs, opts)
    from ..derived import align_sides

    a, b = align_sides(base, [ours, theirs], record)
    if (a, b) == (ours, theirs):
        return merge(base, ours, theirs, opts)
    result = merge(base, a, b, opts)
    if result.conflicts or result.fallback:
        return merge(base, ours, theirs, opts)
    return result


def merged_pins(base: bytes, ours: bytes, theirs: bytes) -> dict[str, int]:
    """Names whose pin both sides moved, with base + both moves."""
    po, pa, pb = pin_lines(base), pin_lines(ours), pin_lines(theirs)
    out = {}
    for name, (_, vo) in po.items():
        if name in pa and name in pb:
            va, vb = pa[name][1], pb[name][1]
            if va != vo and vb != vo:
                out[name] = vo + (va - vo) + (vb - vo)
    return out


def merge_config(base: bytes, ours: bytes, theirs: bytes, markers: Markers) -> Result:
    """Merge the configuration file with pins added up as counters."""
    sums = merged_pins(base, ours, theirs)
    notes = []
    if sums:
        pa, pb = pin_lines(ours), pin_lines(theirs)
        for name, value in sums.items():
            ours = set_pin(ours, pa[name][0], value)
            theirs = set_pin(theirs, pb[name][0], value)
            notes.append(f"{pa[name][0] + 1}: note: {name}: both sides moved the pin; merged as a counter: {value}")
    result = text_result(base, ours, theirs, markers, None)
    result.notes.extend(notes)
    return result
