"""refs in range mode: a reference file's code spans found from the version
of it read before (`refs._every`: only the lines that changed are scanned)
are those a scan of the whole version finds."""

from __future__ import annotations

import random

from mergedrv import patterns
from mergedrv.checks.refs import _SPAN, _every
from mergedrv.model.edits import changed_lines

WORDS = [b"`K-1`", b"`K-2`", b"` K-3 `", b"`", b"``", b"text", b"`K-1", b"K-2`", b" ", b"`\xc3\xa9`", b"` `", b"|"]


def _line(rng: random.Random) -> bytes:
    return b" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 5))) + rng.choice([b"\n", b"\n", b"\r\n"])


def _whole(data: bytes) -> frozenset:
    return frozenset(patterns.stripped(s) for s in _SPAN.findall(data)) - {b""}


def test_spans_found_from_the_version_before_are_those_of_a_whole_scan() -> None:
    rng = random.Random(5)
    for _ in range(300):
        lines = [_line(rng) for _ in range(rng.randint(0, 12))]
        memo: dict = {}
        for _ in range(6):
            data = b"".join(lines)
            if rng.random() < 0.2 and data:
                data = data[: rng.randrange(len(data))]  # a last line without its newline, or cut inside one
            assert _every(memo, "f.md", data) == _whole(data), data
            i = rng.randint(0, len(lines))
            lines[i:i + rng.randint(0, 2)] = [_line(rng) for _ in range(rng.randint(0, 3))]


def test_the_changed_lines_are_whole_lines_and_the_rest_is_shared() -> None:
    rng = random.Random(6)
    for _ in range(500):
        old = b"".join(_line(rng) for _ in range(rng.randint(0, 8)))
        new = bytearray(old)
        for _ in range(rng.randint(1, 3)):
            at = rng.randint(0, len(new))
            new[at:at + rng.randint(0, 4)] = rng.choice(WORDS) * rng.randint(0, 70)  # (long runs: the 64-byte chunks)
        new = bytes(new)
        start, old_end, new_end = changed_lines(old, new)
        assert old[:start] == new[:start] and old[old_end:] == new[new_end:]
        assert start == 0 or old[start - 1:start] == b"\n"
        assert old_end == len(old) or old[old_end - 1:old_end] == b"\n"
        assert new_end == len(new) or new[new_end - 1:new_end] == b"\n"


def test_spans_of_versions_read_back_and_forth_with_lines_moved_are_those_of_a_whole_scan() -> None:
    """The counts are updated in place and the set kept when no span came or
    went: versions read in any order (a range's runs, a merge's sides), with
    lines moved, doubled and dropped between the first and last change, find
    what a whole scan finds."""
    rng = random.Random(7)
    for _ in range(200):
        base = [_line(rng) for _ in range(rng.randint(2, 14))]
        versions = []
        for _ in range(4):
            lines = list(base)
            rng.shuffle(lines)
            if rng.random() < 0.5:
                lines.append(rng.choice(base))  # a line doubled
            if rng.random() < 0.5 and lines:
                lines.pop(rng.randrange(len(lines)))  # and one dropped
            versions.append(b"".join(lines))
        memo: dict = {}
        for _ in range(10):
            data = rng.choice(versions)
            assert _every(memo, "f.md", data) == _whole(data), data
