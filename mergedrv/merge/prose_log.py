"""Prose logs: a file declared as a log that grows at its end in prose
(dated bullets, dated ``## ...`` sections with tables inside) merges as the
base, then what ours appended, then what theirs appended, each side's
entries whole; what a side changed above its tail is merged as text
(`git merge-file`, conflicting where git would).  Byte operations only: no
parse, so the 1.6 MB state log merges in a few milliseconds."""

from __future__ import annotations

from .fallback import text_result
from .values import Markers, Result

NL = b"\n"
_ANCHOR = 256  # bytes of the base's end looked for in a side that changed above its tail


def _first_line(data: bytes) -> bytes:
    for line in data.split(b"\n"):
        if line.strip():
            return line.lstrip()
    return b""


def split_tail(base: bytes, side: bytes) -> tuple[bytes, bytes] | None:
    """(head, tail) of ``side``: the tail is what it appended after the
    base's last line; None if the base's end is not found in it."""
    if side.startswith(base):
        return base, side[len(base) :]
    anchor = base[-_ANCHOR:]
    cut = anchor.find(b"\n") + 1 if len(base) > _ANCHOR else 0  # whole lines only
    anchor = anchor[cut:]
    if not anchor.strip():
        return None
    at = side.rfind(anchor)
    if at < 0 or (at and side[at - 1 : at] != b"\n"):
        return None
    end = at + len(anchor)
    return side[:end], side[end:]


def _separated(base: bytes, ours_tail: bytes, theirs_tail: bytes) -> bytes:
    """Theirs' entries after ours', separated as the log separates entries:
    by a blank line where the base ends with one or ours' tail starts with
    one (unless theirs' tail brings its own), else line after line."""
    if not ours_tail.endswith(b"\n"):
        ours_tail += b"\n"
    blank_separated = base.endswith((b"\n\n", b"\n\r\n")) or ours_tail.startswith((b"\n", b"\r\n"))
    if blank_separated and not ours_tail.endswith((b"\n\n", b"\n\r\n")) and not theirs_tail.startswith((b"\n", b"\r\n")):
        return ours_tail + (b"\r\n" if ours_tail.endswith(b"\r\n") else b"\n") + theirs_tail
    return ours_tail + theirs_tail


def merge_prose_log(base: bytes, ours: bytes, theirs: bytes, markers: Markers) -> Result | None:
    """The prose log merge; None if it does not apply (a tail continues a
    table, as in a ledger: the log-table merge takes it; or a side's tail
    cannot be told from its head)."""
    if base and not base.endswith(b"\n"):
        return None
    a, b = split_tail(base, ours), split_tail(base, theirs)
    if a is None or b is None:
        return None
    (head_a, tail_a), (head_b, tail_b) = a, b
    if _first_line(tail_a).startswith(b"|") or _first_line(tail_b).startswith(b"|"):
        return None
    if head_a == base and head_b == base:
        head = Result(base)
    else:
        head = text_result(base, head_a, head_b, markers, None)
    notes: list[str] = []
    if tail_a == tail_b or not tail_b:
        tail = tail_a
        if tail_a and tail_b:
            notes.append(f"{base.count(NL) + 1}: note: -: both sides appended the same entries; kept once")
    elif not tail_a or tail_a.startswith(tail_b):
        tail = tail_a or tail_b
    elif tail_b.startswith(tail_a):
        tail = tail_b
    else:
        tail = _separated(base, tail_a, tail_b)
    head.data += tail
    head.notes.extend(notes)
    return head
