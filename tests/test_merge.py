"""Unit tests of merge.py beyond the case corpus: scale, the virtual base of
a criss-cross merge, and pins merged as counters."""

from __future__ import annotations

from mergedrv.merge import Options, merge, virtual_base
from mergedrv.pins import merge_config, merged_pins
from mergedrv.textmerge import Markers


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


def test_virtual_base_replaces_inner_conflicts_by_their_base():
    inner = (
        b"| ID | v |\n|---|---|\n"
        b"<<<<<<<<< ours\n| A | x |\n||||||||| base\n| A | 1 |\n=========\n| A | y |\n>>>>>>>>> theirs\n"
        b"| B | 2 |\n"
    )
    assert virtual_base(inner) == b"| ID | v |\n|---|---|\n| A | 1 |\n| B | 2 |\n"
    no_base = inner.replace(b"||||||||| base\n| A | 1 |\n", b"")
    assert virtual_base(no_base) == b"| ID | v |\n|---|---|\n| B | 2 |\n"


def test_pins_merge_as_counters_including_toml_underscores():
    def cfg(pin: str) -> bytes:
        return f'[[record]]\nname = "MODEL"\npath = "m.md"\nkey = "ID"\npin = {pin}\n'.encode()

    assert merged_pins(cfg("326"), cfg("327"), cfg("327")) == {"MODEL": 328}
    assert merged_pins(cfg("1_000"), cfg("1001"), cfg("1002")) == {"MODEL": 1003}
    assert merged_pins(cfg("326"), cfg("327"), cfg("326")) == {}  # one side: an ordinary change
    result = merge_config(cfg("326"), cfg("327"), cfg("330"), Markers())
    assert b"pin = 331\n" in result.data and not result.conflicts
