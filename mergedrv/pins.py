"""Pins in `.mergedrv.toml`: reading each record's ``pin = N`` line and
setting it (merging pins as counters is `mergedrv.merge.counted`)."""

from __future__ import annotations

from . import rx

_HEADER = rx.compile(rb"^\s*\[")
_NAME = rx.compile(rb"""^\s*name\s*=\s*["']([^"']*)["']""")
_PIN = rx.compile(rb"^(\s*pin\s*=\s*)([-+]?\d[\d_]*)(.*)$", rx.S)  # TOML allows 1_000


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
    assert m is not None, f"line {index + 1} holds no pin"  # (the caller found the pin there)
    lines[index] = m.group(1) + str(value).encode() + m.group(3)
    return b"".join(lines)
