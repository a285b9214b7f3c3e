"""Where a derived count's pattern is searched (`derived._count`).

A count pattern's numbers are those it captures outside the keyed tables.
A pattern whose matches cannot hold a newline is searched on the runs of
lines between the keyed tables alone: the same captures as a search of the
whole file (`tests/test_derived.py` compares the two), without scanning the
rows, which are most of a record's bytes.
"""

from __future__ import annotations


_ESCAPES = frozenset("dwSbB.*+?()[]{}|^$\\-/`#<>!@%&,;:='\" ~_")


def one_line(pattern: str) -> bool:
    """Whether no match of ``pattern`` (RE2, default options) can hold a
    newline or depend on what lies beyond its line, told from its text alone
    and on the safe side: no flags, anchors, negated or named classes, or
    escapes but ``\\d \\w \\S \\b \\B`` and escaped punctuation; no control character."""
    if "(?" in pattern or "[^" in pattern or "[:" in pattern or any(c < " " or c == "\x7f" for c in pattern):
        return False
    escaped = False
    for c in pattern:
        if escaped:
            if c not in _ESCAPES:
                return False
            escaped = False
        elif c == "\\":
            escaped = True
        elif c in "^$":
            return False
    return not escaped


def captures(compiled, pattern: str, data: bytes, starts: list[int], keyed: list[tuple[int, int]]):
    """(start, end, bytes) of group 1 of each match of ``compiled`` in ``data``,
    in order (group 1 unset: left out).  A pattern whose matches stay on one
    line (`one_line`) is run on the lines outside the keyed tables alone
    (what a keyed table holds is not counted, and cannot reach another line):
    the same captures there, without scanning the rows."""
    if not one_line(pattern) or not keyed or any(s > e for s, e in keyed) or any(a[1] > b[0] for a, b in zip(keyed, keyed[1:])):
        for m in compiled.finditer(data):
            if m.start(1) >= 0:
                yield m.start(1), m.end(1), m.group(1)
        return
    bounds = [0] + [x for s, e in keyed for x in (starts[s], starts[e])] + [len(data)]
    for a, b in zip(bounds[::2], bounds[1::2]):  # each run of lines between two keyed tables
        if a >= b and b < len(data):
            continue
        for m in compiled.finditer(data[a:b]):
            if m.start() >= b - a and b < len(data):
                break  # the keyed table's first line: not counted
            if m.start(1) >= 0:
                yield a + m.start(1), a + m.end(1), m.group(1)
