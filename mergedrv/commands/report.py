"""-q, -v and --color for the commands that report (check, fix, doctor, review, anchors, update-branch):
which of their lines are printed, and colour on a terminal only (off with NO_COLOR or --color never)."""

from __future__ import annotations

import io
import os
import re
import sys
import time

REPORTING = ("check", "fix", "doctor", "review", "anchors", "update-branch")
_FIXED = re.compile(r".*:\d+: fixed: ")
# stdout lines -q drops: what is neither a finding nor an error
QUIET_DROP = {
    "doctor": lambda line: line.startswith("ok: "),
    "fix": lambda line: bool(_FIXED.match(line)),
    "update-branch": lambda line: bool(_FIXED.match(line)),
    "review": lambda line: "conflict" not in line,
}
_FINDING = re.compile(r"^(?P<where>.+?:\d+:)(?P<kind> [\w-]+:)?(?P<rest>.*)$", re.S)
_STATE = {"ok: ": "32", "problem: ": "31"}


def use_color(choice: str, stream) -> bool:
    """--color always|never, or auto: a terminal, NO_COLOR unset or empty, TERM not dumb."""
    if choice != "auto":
        return choice == "always"
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    return tty and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def paint(line: str) -> str:
    """One report line in colour: `path:line:` bold, the check or kind red; ok green, problem red."""
    for prefix, code in _STATE.items():
        if line.startswith(prefix):
            return f"\033[{code}m{prefix.rstrip()}\033[0m {line[len(prefix):]}"
    m = _FINDING.match(line)
    if not m or m["where"].startswith(("mergedrv", "note")):
        return line
    kind = f"\033[31m{m['kind']}\033[0m" if m["kind"] else ""
    return f"\033[1m{m['where']}\033[0m{kind}{m['rest']}"


class Lines(io.TextIOBase):
    """A text stream that passes each complete line through ``keep`` and ``paint`` to ``target``."""

    def __init__(self, target, keep=None, color: bool = False) -> None:
        super().__init__()
        self.target, self.keep, self.color, self.pending = target, keep, color, ""

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:  # no progress bars through a filter
        return False

    def write(self, text: str) -> int:
        lines = (self.pending + text).split("\n")
        self.pending = lines.pop()
        for line in lines:
            self._emit(line)
        return len(text)

    def _emit(self, line: str) -> None:
        if self.keep is None or self.keep(line):
            self.target.write((paint(line) if self.color else line) + "\n")

    def flush(self) -> None:
        if self.pending:
            self._emit(self.pending)
            self.pending = ""
        self.target.flush()


def run(command: str, ns, runner) -> int:
    """Run ``runner(ns)`` with -q / -v / --color applied to what it prints."""
    started = time.monotonic()
    quiet, verbose = getattr(ns, "quiet", False), getattr(ns, "verbose", False)
    text = getattr(ns, "format", "text") != "json"
    color = text and use_color(getattr(ns, "color", "auto"), sys.stdout)
    drop = QUIET_DROP.get(command) if quiet and text else None
    out, err = sys.stdout, sys.stderr
    if drop is not None or color:
        sys.stdout = Lines(out, (lambda line: not drop(line)) if drop else None, color)
    if quiet:  # notes and summaries go; the errors cli.py prints come after
        sys.stderr = Lines(err, lambda line: not line.startswith(("note:", "  note:", f"mergedrv {command}:", f"mergedrv {command} --")))
    try:
        code = runner(ns)
    finally:
        for stream in (sys.stdout, sys.stderr):
            if isinstance(stream, Lines):
                stream.flush()
        sys.stdout, sys.stderr = out, err
    if verbose:
        print(f"mergedrv {command}: exit {code} after {time.monotonic() - started:.2f} s in {os.getcwd()}", file=sys.stderr)
    return code
