"""Reading `.mergedrv.toml` pins and names as text (`mergedrv/pins.py`), and
a message's claims: what the hooks read without loading the configuration."""

from __future__ import annotations

from mergedrv import config, pins

TEXT = b"""[[record]]
name = "BOB'S"
path = "b.md"
key = "ID"
pin = 4

[[record]]
name = 'SAY "HI"'
path = "s.md"
key = "ID"
pin=1_000
"""


def test_names_and_pins_are_read_as_toml_reads_them():
    loaded = config.loads(TEXT.decode())
    assert pins.record_names(TEXT) == [r.name for r in loaded.records] == ["BOB'S", 'SAY "HI"']
    assert {name: pin for name, (_, pin) in pins.pin_lines(TEXT).items()} == {r.name: r.pin for r in loaded.records}


def test_a_claim_stands_on_its_own_line_crlf_or_not():
    names = ["BOB'S", "MODEL"]
    assert pins.claims("rows\r\n\r\nBOB'S 4 -> 5\r\n- `MODEL pin 1 -> 2`.\r\n", names) == [("BOB'S", 4, 5, 3), ("MODEL", 1, 2, 4)]
    assert pins.claims("check.py: MODEL 327 -> 326 (expected)\n", names) == []
