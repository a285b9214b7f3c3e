"""A log Source's code spans for refs (`chains.Source.bad`): the distinct spans
found in one scan, the offsets only of those a check calls bad, found
when first asked; each answer must be what a scan of the version finds."""

from __future__ import annotations

import random

from mergedrv import patterns
from mergedrv.checks.refs import _SPAN, _Bad
from mergedrv.history.chains import Source

WORDS = [b"`K-1`", b"`K-2`", b"` K-3 `", b"`K-4`", b"`", b"``", b"text", b"`K-1", b"K-2`", b" ", b"`J-5`", b"` `", b"|"]
PATTERN = r"^K-[0-9]+$"


def _line(rng: random.Random) -> bytes:
    return b" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 5))) + b"\n"


def _scanned(data: bytes, size: int, prefix: bytes, known: frozenset) -> dict[bytes, list[int]]:
    """What `bad` must say, from a scan of the version's bytes alone."""
    out: dict[bytes, list[int]] = {}
    for m in _SPAN.finditer(data[:size]):
        s = patterns.stripped(m.group(1))
        if s and prefix in s and s.startswith(b"K-") and s[2:].isdigit() and s not in known:
            out.setdefault(s, []).append(m.start())
    return out


def test_bad_spans_and_their_offsets_are_those_a_scan_of_each_version_finds() -> None:
    rng = random.Random(11)
    keys = [b"K-1", b"K-2", b"K-3", b"K-4"]
    for _ in range(150):
        lines = [_line(rng) for _ in range(rng.randint(0, 30))]
        data = b"".join(lines)
        src = Source(data)
        ends = [0] + [len(b"".join(lines[: i + 1])) for i in range(len(lines))]
        for _ in range(8):  # one Source asked of several versions, universes and prefixes in turn
            known = frozenset(k for k in keys if rng.random() < 0.5)
            prefix = rng.choice([b"", b"K-"])
            size = rng.choice(ends)
            got = src.bad(size, prefix, _Bad(PATTERN, known))
            assert got == _scanned(data, size, prefix, known), (data, size, known)


ODD = [b"`K-1`", b"`\xc2\xa0K-1 `", b"`K-1\xff`", b"`K-12`", b"``K-1``", b"`K-1 K-2`", b"K-1", b"`", b"` K-2`", b"`\xe2\x80\x83K-2`", b"x"]


def test_offsets_found_from_the_lines_holding_a_span_are_those_of_a_whole_scan() -> None:
    # chains.Source._offsets: a few ASCII spans are looked for on the lines that hold them (bytes.find); the
    # offsets must be a scan of every span's, with spans padded by Unicode spaces, broken UTF-8 and no last newline
    from mergedrv.history import chains

    rng = random.Random(5)
    for _ in range(200):
        data = b"\n".join(b" ".join(rng.choice(ODD) for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(1, 12)))
        if rng.random() < 0.5:
            data += b"\n"
        every: dict[bytes, list[int]] = {}
        for m in _SPAN.finditer(data):
            every.setdefault(patterns.stripped(m.group(1)), []).append(m.start())
        asked = rng.sample(sorted(every) + [b"K-9"], min(len(every) + 1, rng.randint(1, 4)))
        got = Source(data)._offsets(asked)
        assert {s: got[s] for s in asked} == {s: every.get(s, []) for s in asked}, (data, asked)
        many = Source(data)
        saved, chains.FEW_SPANS = chains.FEW_SPANS, 0  # (every span by one scan: the same answer)
        try:
            assert {s: many._offsets(asked)[s] for s in asked} == {s: got[s] for s in asked}
        finally:
            chains.FEW_SPANS = saved
