"""merge/placement.py: where rows only one side has go, at scale."""

from __future__ import annotations

from mergedrv.merge import Options, merge


def test_thousands_of_rows_added_in_a_row_by_theirs():
    base = b"| ID | v |\n|---|---|\n| B | 1 |\n| A | 2 |\n"
    ours = base.replace(b"|---|---|\n", b"|---|---|\n| X | ours |\n")
    added = b"".join(b"| N%04d | n |\n" % i for i in range(1200))
    theirs = base + added + b"| X | theirs |\n"
    result = merge(base, ours, theirs, Options(key="ID"))
    assert result.fallback is None
    assert [c.kind for c in result.conflicts] == ["double-definition"]
    assert result.data.count(b"| N0000 |") == result.data.count(b"| N1199 |") == 1
    assert result.data.index(b"| N0000 |") < result.data.index(b"| N1199 |")
