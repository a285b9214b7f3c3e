"""Line edit scripts between two versions of a file: the greedy script the
incremental parse and the shifted structures take, with the next equal
line found from an index of every line or by scanning for it (in C)."""

from __future__ import annotations

from bisect import bisect_left
from itertools import compress, count
from operator import ne

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

Edit = tuple[int, int, int, int]  # old[i1:i2] -> new[j1:j2]


def same_run(old: list[bytes], i: int, new: list[bytes], j: int, limit: int) -> int:
    """How many lines are equal from ``old[i]``, ``new[j]`` on (<= ``limit``): in C, in growing chunks."""
    run, step, d = 0, 8, 1
    while run < limit and d:
        step = min(2 * step, limit - run)
        a, b = old[i + run : i + run + step], new[j + run : j + run + step]
        d = step if a == b else next(compress(count(), map(ne, a, b)), step)  # (list ==: the lines two versions share are one object)
        run, d = run + d, d == step
    return run


def shared_bytes(a: bytes, b: bytes, limit: int, end: bool) -> int:
    """How many bytes ``a`` and ``b`` share from their start (``end``: from their
    end), at most ``limit``; it may say up to 63 fewer: slices compared in C,
    in growing chunks."""
    at, step, la, lb = 0, 4096, len(a), len(b)
    view = memoryview(b)
    while step >= 64:
        if at + step <= limit and (a.endswith(view[lb - at - step : lb - at], 0, la - at) if end else
                                   a.startswith(view[at : at + step], at)):
            at += step
            step *= 2
        else:
            step //= 2
    return at


def changed_lines(old: bytes, new: bytes) -> tuple[int, int, int]:
    """(where the first line that differs starts, where the last line that
    differs ends in ``old``, and in ``new``): outside, the bytes of both are
    the same whole lines."""
    limit = min(len(old), len(new))
    head = shared_bytes(old, new, limit, False)
    tail = shared_bytes(old, new, limit - head, True)
    start = old.rfind(b"\n", 0, head) + 1
    end = old.find(b"\n", len(old) - tail)  # (the shared tail's first line may have begun in the middle)
    end = len(old) if end < 0 else end + 1
    return start, end, len(new) - (len(old) - end)


def lines_after(old: bytes, old_lines: list[bytes], new: bytes, split_lines: Callable[[bytes], list[bytes]]) -> tuple[list[bytes], list[bytes]]:
    """``new``'s lines (as ``split_lines``, `model.split_lines`, splits them)
    and those of them ``old`` lacks: ``old_lines`` (``old``'s) kept above and
    below the changed lines, only those between split (a version of a long
    file read after the last)."""
    lines, _, _, middle = split_changed(old, old_lines, new, split_lines)
    return lines, middle


def split_changed(old: bytes, old_lines: list[bytes], new: bytes,
                  split_lines: Callable[[bytes], list[bytes]]) -> tuple[list[bytes], int, int, list[bytes]]:
    """`lines_after`, with where the changed lines stand: (``new``'s lines,
    the first changed line, the line of ``old_lines`` the shared tail starts
    at, the changed lines of ``new``)."""
    start, old_end, new_end = changed_lines(old, new)
    i, k = _lines_before(old, len(old_lines), start), _lines_before(old, len(old_lines), old_end)
    middle = split_lines(new[start:new_end])
    return old_lines[:i] + middle + old_lines[k:], i, k, middle


def _lines_before(data: bytes, lines: int, at: int) -> int:
    """How many of ``data``'s ``lines`` lines lie before ``at`` (0 or a line's
    start): the newlines counted on the shorter side (a log grows at its end)."""
    if at == len(data):
        return lines
    if at <= len(data) // 2:
        return data.count(b"\n", 0, at)
    return lines - data.count(b"\n", at) - (not data.endswith(b"\n"))


def common_ends(old: list[bytes], new: list[bytes]) -> tuple[int, int, int]:
    """The common head's length and where the common tail starts in each."""
    n, m = len(old), len(new)
    lo = same_run(old, 0, new, 0, min(n, m))
    back = next(compress(count(), map(ne, reversed(old), reversed(new))), min(n, m))  # (in C)
    return lo, n - min(back, min(n, m) - lo), m - min(back, min(n, m) - lo)


def _where(seq: list[bytes], lo: int, hi: int) -> dict[bytes, Any]:
    """Each line of ``seq[lo:hi]``: its index, or all of them in order when it repeats."""
    out: dict[bytes, Any] = dict(zip(seq[lo:hi], range(lo, hi)))
    if len(out) < hi - lo:
        out = {}
        [out.setdefault(seq[i], []).append(i) for i in range(lo, hi)]
    return out


def line_edits(old: list[bytes], new: list[bytes]) -> list[Edit]:
    """A valid edit script (old[i1:i2] -> new[j1:j2] blocks, ascending) found greedily in about
    linear time.  It need not be minimal: it only tells tree-sitter which bytes changed, so a
    longer script costs time, never correctness."""
    lo, hi_o, hi_n = common_ends(old, new)
    where_old, where_new = _where(old, lo, hi_o), _where(new, lo, hi_n)

    def next_at(where: dict[bytes, Any], line: bytes, at: int) -> int:
        spots = where.get(line, -1)
        if type(spots) is int:
            return spots if spots >= at else -1
        k = bisect_left(spots, at)
        return spots[k] if k < len(spots) else -1

    out = _greedy(old, new, (lo, hi_o, hi_n), lambda line, j: next_at(where_new, line, j), lambda line, i: next_at(where_old, line, i))
    assert out is not None
    return out


def scanned_edits(old: list[bytes], new: list[bytes]) -> list[Edit] | None:
    """`line_edits`' script, found by scanning for the next equal line (in
    C) instead of indexing every line (two dicts of a million entries for a
    large file changed in a few places); None once the scans grow long (or
    the versions are equal)."""
    lo, hi_o, hi_n = common_ends(old, new)
    budget = [4 * (len(old) + len(new)) + 64]

    def next_at(seq: list[bytes], line: bytes, at: int, hi: int) -> int:
        try:
            found = seq.index(line, at, hi)
        except ValueError:
            budget[0] -= hi - at
            return -1
        budget[0] -= found - at
        return found

    out = _greedy(old, new, (lo, hi_o, hi_n), lambda line, j: next_at(new, line, j, hi_n), lambda line, i: next_at(old, line, i, hi_o),
                  lambda: budget[0] < 0)
    return out or None


def _greedy(old: list[bytes], new: list[bytes], ends: tuple[int, int, int], in_new: Callable[[bytes, int], int],
            in_old: Callable[[bytes, int], int], over: Callable[[], bool] = lambda: False) -> list[Edit] | None:
    """The greedy walk both take: equal lines are skipped in runs; at a
    difference, the nearer of "old's line comes later in new" (an insertion)
    and "new's line comes later in old" (a deletion) is taken, else both
    lines are a change.  None if ``over()`` says to stop."""
    lo, hi_o, hi_n = ends
    out = []
    i, j = lo, lo
    start = None
    while i < hi_o and j < hi_n:
        if old[i] == new[j]:
            if start is not None:
                out.append((start[0], i, start[1], j))
                start = None
            run = same_run(old, i, new, j, min(hi_o - i, hi_n - j))
            i += run
            j += run
            continue
        if start is None:
            start = (i, j)
        jn = in_new(old[i], j)  # old[i] reappears later in new: insertion
        io = in_old(new[j], i)  # new[j] reappears later in old: deletion
        if over():
            return None
        if jn >= 0 and (io < 0 or jn - j <= io - i):
            j = jn
        elif io >= 0:
            i = io
        else:
            i += 1
            j += 1
    if start is None:
        start = (i, j)
    if start != (hi_o, hi_n):
        out.append((start[0], hi_o, start[1], hi_n))
    return [e for e in out if e[0] != e[1] or e[2] != e[3]]
