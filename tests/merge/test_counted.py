"""merge/counted.py and merge_path: pins merged as counters, and the merge
picked per path (pins, keyed, plain text)."""

from __future__ import annotations

from mergedrv import config
from mergedrv.merge import Markers, merge_config, merge_path, merged_pins


def test_pins_merge_as_counters_including_toml_underscores():
    def cfg(pin: str) -> bytes:
        return f'[[record]]\nname = "MODEL"\npath = "m.md"\nkey = "ID"\npin = {pin}\n'.encode()

    assert merged_pins(cfg("326"), cfg("327"), cfg("327")) == {"MODEL": 328}
    assert merged_pins(cfg("1_000"), cfg("1001"), cfg("1002")) == {"MODEL": 1003}
    assert merged_pins(cfg("326"), cfg("327"), cfg("326")) == {}  # one side: an ordinary change
    result = merge_config(cfg("326"), cfg("327"), cfg("330"), Markers())
    assert b"pin = 331\n" in result.data and not result.conflicts


def test_merge_path_picks_the_merge_its_path_is_declared_for(tmp_path):
    cfg_file = tmp_path / ".mergedrv.toml"
    cfg_file.write_text('[[record]]\nname = "R"\npath = "rec.md"\nkey = "ID"\npin = 1\n')
    cfg = config.load(cfg_file)
    base = b"| ID | v |\n|---|---|\n| A | 1 |\n"
    ours = base + b"| B | 2 |\n"
    theirs = base + b"| C | 3 |\n"
    keyed = merge_path("rec.md", base, ours, theirs, cfg, Markers())
    assert not keyed.conflicts and b"| B | 2 |" in keyed.data and b"| C | 3 |" in keyed.data
    plain = merge_path("other.md", base, ours, theirs, cfg, Markers())
    assert [c.kind for c in plain.conflicts] == ["text"]
    assert merge_path("rec.md", base, ours, theirs, None, Markers()).conflicts  # no configuration: plain text
    pins = cfg_file.read_bytes()
    moved = merge_path(".mergedrv.toml", pins, pins.replace(b"pin = 1", b"pin = 2"), pins.replace(b"pin = 1", b"pin = 3"), cfg, Markers())
    assert b"pin = 4\n" in moved.data and not moved.conflicts
