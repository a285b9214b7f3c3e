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
