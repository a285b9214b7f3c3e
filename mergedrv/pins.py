"""Pins as counters: merging `.mergedrv.toml` where both sides moved a pin.

326 in the base, 327 on each side: the merged pin is 328, the base plus both
moves.  Everything else in the file is merged as text.
"""

from __future__ import annotations

import re

from .textmerge import Markers

_HEADER = re.compile(rb"^\s*\[")
_NAME = re.compile(rb"""^\s*name\s*=\s*["']([^"']*)["']""")
_PIN = re.compile(rb"^(\s*pin\s*=\s*)([-+]?\d[\d_]*)(.*)$", re.S)  # TOML allows 1_000


def pin_lines(text: bytes) -> dict[str, tuple[int, int]]:
    """Record name -> (line index, pin value) for every ``pin = N`` line."""
    out: dict[str, tuple[int, int]] = {}
    lines = text.splitlines(keepends=True)
    name = None
    pin = None
    in_record = False

    def flush() -> None:
        if in_record and name is not None and pin is not None:
            out[name] = pin

    for i, line in enumerate(lines):
        if _HEADER.match(line):
            flush()
            in_record = line.strip().startswith(b"[[record]]")
            name = pin = None
            continue
        if not in_record:
            continue
        m = _NAME.match(line)
        if m:
            name = m.group(1).decode("utf-8", "replace")
        m = _PIN.match(line)
        if m:
            pin = (i, int(m.group(2).replace(b"_", b"")))
    flush()
    return out


def set_pin(text: bytes, index: int, value: int) -> bytes:
    """``text`` with the pin on line ``index`` (0-based) set to ``value``, the rest as it was."""
    lines = text.splitlines(keepends=True)
    m = _PIN.match(lines[index])
    lines[index] = m.group(1) + str(value).encode() + m.group(3)
    return b"".join(lines)


def merged_pins(base: bytes, ours: bytes, theirs: bytes) -> dict[str, int]:
    """Names whose pin both sides moved, with base + both moves."""
    po, pa, pb = pin_lines(base), pin_lines(ours), pin_lines(theirs)
    out = {}
    for name, (_, vo) in po.items():
        if name in pa and name in pb:
            va, vb = pa[name][1], pb[name][1]
            if va != vo and vb != vo:
                out[name] = vo + (va - vo) + (vb - vo)
    return out


def merge_config(base: bytes, ours: bytes, theirs: bytes, markers: Markers):
    """Merge the configuration file with pins added up as counters."""
    from .merge import Result, text_result

    sums = merged_pins(base, ours, theirs)
    notes = []
    if sums:
        pa, pb = pin_lines(ours), pin_lines(theirs)
        for name, value in sums.items():
            ours = set_pin(ours, pa[name][0], value)
            theirs = set_pin(theirs, pb[name][0], value)
            notes.append(f"{pa[name][0] + 1}: note: {name}: both sides moved the pin; merged as a counter: {value}")
    result: Result = text_result(ours, base, theirs, markers, None)
    result.notes.extend(notes)
    return result
