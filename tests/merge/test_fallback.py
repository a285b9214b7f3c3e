"""merge/fallback.py: the virtual ancestor of a criss-cross merge."""

from __future__ import annotations

from mergedrv.merge import virtual_base


def test_virtual_base_replaces_inner_conflicts_by_their_base():
    inner = (
        b"| ID | v |\n|---|---|\n"
        b"<<<<<<<<< ours\n| A | x |\n||||||||| base\n| A | 1 |\n=========\n| A | y |\n>>>>>>>>> theirs\n"
        b"| B | 2 |\n"
    )
    assert virtual_base(inner) == b"| ID | v |\n|---|---|\n| A | 1 |\n| B | 2 |\n"
    no_base = inner.replace(b"||||||||| base\n| A | 1 |\n", b"")
    assert virtual_base(no_base) == b"| ID | v |\n|---|---|\n| B | 2 |\n"
