"""mergedrv.model.edits: both ways of finding the greedy script give a valid one, and the same one."""

from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from mergedrv.model.edits import line_edits, scanned_edits
from tests.helpers import examples


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from([b"a\n", b"b\n", b"c\n", b"\n"]), max_size=20), st.lists(st.sampled_from([b"a\n", b"b\n", b"c\n", b"d\n", b"\n"]), max_size=20))
def test_line_edits_is_a_valid_edit_script(old, new):
    rebuilt = []
    pos = 0
    for i1, i2, j1, j2 in line_edits(old, new):
        assert i1 >= pos
        rebuilt += old[pos:i1] + new[j1:j2]
        pos = i2
    rebuilt += old[pos:]
    assert rebuilt == new



def test_the_scanned_edit_script_is_line_edits_script():
    rnd = random.Random(7)
    found = 0
    for _ in range(3000):
        old = [bytes([rnd.choice(b"abcdef")]) for _ in range(rnd.randint(0, 30))] if rnd.random() < 0.5 else [
            b"%d" % i for i in range(rnd.randint(0, 30))]
        new = list(old)
        for _ in range(rnd.randint(0, 5)):
            at = rnd.randint(0, len(new))
            what = rnd.random()
            if what < 0.4:
                new.insert(at, rnd.choice([b"a", b"z", b"%d" % rnd.randint(0, 40)]))
            elif new and at < len(new):
                if what < 0.7:
                    del new[at]
                else:
                    new[at] = b"x"
        got = scanned_edits(old, new)
        assert got is None or got == line_edits(old, new), (old, new)
        found += got is not None
    assert found > 1500


_PIECES = [b"a", b"| x |", b"\n", b"\r\n", b"bb\n", b"\xc3\xa9", b"" * 3, b"<<<<<<< ours\n"]


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30), st.lists(st.tuples(st.integers(0, 200), st.integers(0, 4), st.lists(st.sampled_from(_PIECES), max_size=4)), max_size=3))
def test_lines_after_splits_as_a_whole_split_does(old_parts, edits):
    """`lines_after`: the lines of a version read from the last one's are
    `split_lines`' own, and the new ones are what the last version lacks
    between the lines both share (the model checks only those)."""
    from mergedrv.model import split_lines
    from mergedrv.model.edits import lines_after

    old = b"".join(old_parts)
    new = bytearray(old)
    for at, cut, what in edits:
        at = min(at, len(new))
        new[at:at + cut] = b"".join(what)
    new = bytes(new)
    old_lines = split_lines(old)
    lines, fresh = lines_after(old, old_lines, new, split_lines)
    assert lines == split_lines(new)
    m = len(fresh)  # the lines not handed back as new are the old version's first and last lines, in place
    assert any(lines[:i] == old_lines[:i] and lines[i:i + m] == fresh and (len(lines) == i + m or old_lines[len(old_lines) - (len(lines) - i - m):] == lines[i + m:])
               for i in range(len(lines) - m + 1))


def test_a_version_read_after_the_last_is_the_parse_a_fresh_cache_makes() -> None:
    """`model.parse` with a cache that read the last version (range mode)
    splits and checks only the changed lines; the Document, and what the
    model refuses (a conflict marker, bad UTF-8), are a fresh parse's."""
    from mergedrv import model

    rows = b"".join(b"| K-%d | row %d |\n" % (i, i) for i in range(300))
    base = b"# Log\n\nintro\n\n| ID | v |\n|---|---|\n" + rows + b"\n## After\n\ntext\n"
    cache = model.ParseCache()
    model.parse(base, "ID", cache=cache)
    assert cache.last is not None
    for new in (base.replace(b"row 7 |", b"row seven |"), base + b"more\n", b"x" + base, base.replace(b"| K-9 |", b"| K-9b |\n| K-10b |"),
                base[:-10], base.replace(b"intro\n", b"")):
        doc = model.parse(new, "ID", cache=cache)
        fresh = model.parse(new, "ID")
        assert doc.lines == fresh.lines and [(t.start, t.end, [(r.line, r.key) for r in t.rows]) for t in doc.tables] == [
            (t.start, t.end, [(r.line, r.key) for r in t.rows]) for t in fresh.tables]
    for bad, why in ((base.replace(b"row 200 |", b"row 200 |\n<<<<<<< ours"), "conflict marker"), (base.replace(b"row 5", b"row \xff"), "UTF-8")):
        model.parse(base, "ID", cache=cache)
        try:
            model.parse(bad, "ID", cache=cache)
        except model.Unmodelable as exc:
            assert why in str(exc)
        else:
            raise AssertionError(f"{why}: not refused")


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from([b"a\n", b"b\n", b"\n"]), max_size=300), st.data())
def test_same_run_counts_the_equal_lines_shared_or_not(old, data):
    # edits.same_run compares chunks as lists (the lines two versions share are one object) and finds the first
    # difference in the chunk that has one; equal lines that are distinct objects count as equal
    from mergedrv.model.edits import same_run

    new = [bytes(bytearray(x)) if data.draw(st.booleans()) else x for x in old]  # some lines copies, some the same objects
    if new and data.draw(st.booleans()):
        at = data.draw(st.integers(0, len(new) - 1))
        new[at] = b"z\n"
    i = data.draw(st.integers(0, len(old)))
    limit = data.draw(st.integers(0, len(old) - i))
    want = next((n for n in range(limit) if old[i + n] != new[i + n]), limit)
    assert same_run(old, i, new, i, limit) == want
