"""git's merge-driver contract around the keyed merge: the request (%O %A
%B %P %L %S %X %Y), its markers, the merge of three versions as
`.mergedrv.toml` declares them (`merge_bytes`; any failure is git's own text
merge), the report, and one driver run, which writes %A atomically and
exits 0 (clean) or 1 (conflicts) with no traceback and no side lost.
`mergedrv merge` (commands/merge.py) reads the arguments; `mergedrv
resolve` and `mergedrv mergetool` merge through the same entry."""

from __future__ import annotations

import os
import sys

from ..atomic import atomic_write
from ..names import CONFIG_NAME
from ..pins import DriverCount, remember_uncounted
from ..values import Value
from .values import Markers, Result

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TextIO

    from ..config import Config

    Say = Callable[[str], None]  # where a message goes (kept until %A is written)

_LITERAL = {"%S", "%X", "%Y", "%L", "%P", ""}
MAX_MARKER_SIZE = 256  # a larger %L (git passes conflict-marker-size as given) is clamped


class DriverArgs(Value):
    """The driver's request: %O %A %B, then %P %L %S %X %Y and options (from fast_args or cli.py)."""

    __slots__ = ("base", "ours", "theirs", "path", "marker_size", "base_label", "ours_label", "theirs_label", "config", "strict", "no_cell_merge", "fmt")

    def __init__(
        self,
        base: str,
        ours: str,
        theirs: str,
        path: str | None = None,
        marker_size: str | None = None,
        base_label: str | None = None,
        ours_label: str | None = None,
        theirs_label: str | None = None,
        config: str | None = None,
        strict: bool = False,
        no_cell_merge: bool = False,
        fmt: str = "text",
    ) -> None:
        self.fmt = fmt  # "json": the decision record on stdout too (asked for on the command line; git never asks)
        self.base = base
        self.ours = ours
        self.theirs = theirs
        self.path = path
        self.marker_size = marker_size
        self.base_label = base_label
        self.ours_label = ours_label
        self.theirs_label = theirs_label
        self.config = config
        self.strict = strict
        self.no_cell_merge = no_cell_merge


# the options git's driver line passes, each with one value: short -> field
VALUE_FLAGS = {"-p": "path", "-l": "marker_size", "-s": "base_label", "-x": "ours_label", "-y": "theirs_label"}
LONG_FLAGS = {"--path": "path", "--marker-size": "marker_size", "--base-label": "base_label", "--ours-label": "ours_label",
              "--theirs-label": "theirs_label", "--config": "config"}
BOOL_FLAGS = {"--strict": "strict", "--no-cell-merge": "no_cell_merge"}


def markers_for(args: DriverArgs) -> Markers:
    """Marker size and labels; git older than 2.44 passes %S %X %Y literally."""

    def label(value: str | None, default: str) -> str:
        return default if value is None or value in _LITERAL else value

    size = 7
    if args.marker_size and args.marker_size.isascii() and args.marker_size.isdigit() and int(args.marker_size) > 0:
        size = min(int(args.marker_size), MAX_MARKER_SIZE)
    ours, theirs = "ours", "theirs"
    if args.ours_label in _LITERAL or args.theirs_label in _LITERAL:  # git < 2.44: a merge names its other head
        named = [v for k, v in os.environ.items() if k.startswith("GITHEAD_") and v]
        if len(named) == 1 and named[0].isprintable() and len(named[0]) <= 200:
            ours, theirs = "HEAD", named[0]  # the labels git's own text merge writes
    return Markers(size, label(args.base_label, "base"), label(args.ours_label, ours), label(args.theirs_label, theirs))


def _read(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def load_config(path: str | None, config_path: str | None, say: Say) -> Config | None:
    """The configuration that declares ``path`` (None: merge as plain text)."""
    from .. import config as cfgmod

    where = config_path or cfgmod.find_path(".")
    if where is None or path is None:
        return None
    try:
        return cfgmod.load(where)
    except cfgmod.ConfigError as exc:
        say(f"mergedrv: {exc}; merging {path} as plain text")
        return None


def merge_bytes(path: str | None, base: bytes, ours: bytes, theirs: bytes, config_path: str | None, markers: Markers, say: Say,
                strict: bool = False, no_cell: bool = False) -> Result:
    """The merge ``path`` is declared for, on three versions in memory; any
    failure is git's own text merge instead."""
    return merge_declared(path, base, ours, theirs, load_config(path, config_path, say), markers, strict, no_cell)


def merge_declared(path: str | None, base: bytes, ours: bytes, theirs: bytes, cfg: Config | None, markers: Markers,
                   strict: bool = False, no_cell: bool = False) -> Result:
    """`merge_bytes` with the configuration already loaded (None: plain text)."""
    try:
        from . import merge_path

        from . import counted_by

        twice = None
        config = bool(path) and os.path.basename(path or "") == CONFIG_NAME
        if cfg is not None and path and (config or counted_by(path, cfg)):  # (pins, and the numbers counts find in another file, merge as counters)
            twice = DriverCount(cfg, path, (markers.base, markers.ours, markers.theirs), base, theirs)
        result = merge_path(path, base, ours, theirs, cfg, markers, strict, no_cell, twice)
        if config and twice is not None and twice.unknown:
            remember_uncounted(".", twice.unknown, base, ours, theirs, result.data)
        return result
    except Exception as exc:  # never a traceback: git's own merge instead
        from . import text_result

        return text_result(base, ours, theirs, markers, f"internal error ({type(exc).__name__}: {exc})")


def report(result: Result, shown: str, say: Say) -> None:
    """One line for a fallback, each note and each conflict, given to ``say``
    (the driver keeps them until %A is written)."""
    if result.fallback:
        say(f"mergedrv: {shown}: merged as plain text: {result.fallback}")
    for note in result.notes:
        say(f"{shown}:{note}")
    for c in result.conflicts:
        say(f"{shown}:{c.line}: conflict: {c.kind}: {c.key}: {c.why}")


def driver_merge(path: str, base: bytes, ours: bytes, theirs: bytes, cfg_path: str | os.PathLike[str], markers: Markers) -> tuple[bytes, bool]:
    """Merge three versions as the driver would: (result, clean).

    The record, log or pin merge for ``path`` is picked as the driver picks
    it, and one stderr line is printed per note and conflict, exactly as under git.
    """
    say = lambda msg: print(msg, file=sys.stderr)  # noqa: E731
    result = merge_bytes(path, base, ours, theirs, str(cfg_path), markers, say)
    report(result, path, say)
    return result.data, not result.conflicts


def run(args: DriverArgs) -> int:
    """Run one merge; always returns 0 or 1.  %A is written (atomically)
    before anything is said: every message is kept until then, and a
    stream that cannot take it (closed, full, a broken pipe) changes
    neither the result nor the exit code."""
    import gc

    gc.disable()  # a short-lived process making many small acyclic objects
    open_standard_fds()
    said: list[str] = []
    say = said.append
    markers = markers_for(args)
    shown = args.path if args.path and args.path not in _LITERAL else args.ours
    if markers.size == MAX_MARKER_SIZE and args.marker_size != str(MAX_MARKER_SIZE):
        assert args.marker_size is not None  # (a size at the maximum came from -l)
        say(f"mergedrv: {shown}: conflict-marker-size {args.marker_size[:40]} is too large; using {MAX_MARKER_SIZE}")
    try:
        base, ours, theirs = _read(args.base), _read(args.ours), _read(args.theirs)
    except OSError as exc:
        which = {args.base: "the base (%O)", args.ours: "ours (%A)", args.theirs: "theirs (%B)"}.get(exc.filename, "an input")
        say(f"mergedrv: {shown}: cannot read {which} {exc.filename}: {exc.strerror}; {args.ours} left as it was (a conflict)")
        return tell(said, 1)
    path = args.path if args.path not in _LITERAL else None
    cfg = load_config(path, args.config, say)
    result = merge_declared(path, base, ours, theirs, cfg, markers, args.strict, args.no_cell_merge)
    if result.data != ours:
        try:
            atomic_write(args.ours, result.data)
        except OSError as exc:
            report(result, shown, say)
            say(f"mergedrv: {shown}: cannot write the result: {exc.strerror}")
            return tell(said, 1)
    report(result, shown, say)
    if cfg is not None and path is not None and (cfg.record_for(path) is not None or cfg.log_for(path) is not None):
        log_merge(shown, base, ours, theirs, result, markers)
    if args.fmt == "json":
        print_decision(shown, base, ours, theirs, result, markers)
    return tell(said, 1 if result.conflicts else 0)


def print_decision(path: str, base: bytes, ours: bytes, theirs: bytes, result: Result, markers: Markers) -> None:
    """`merge --format json`: the decision record (what the log keeps, conflicts named) on stdout, once %A is written."""
    import json

    from ..mergelog import decision

    got = decision(path, base, ours, theirs, result, (markers.base, markers.ours, markers.theirs))
    got["clean"] = not result.conflicts
    got["conflicts"] = [dict(zip(("line", "kind", "key", "why"), c)) for c in got["conflicts"]]
    try:
        sys.stdout.write(json.dumps(got, indent=1) + "\n")
        sys.stdout.flush()
    except (OSError, ValueError):
        pass  # a closed or full stdout changes neither %A nor the exit status


def open_standard_fds() -> None:
    """Give a closed stdin, stdout or stderr /dev/null, as git does for
    itself: else the next file opened (the temporary %A) would take its
    number, and a git run for the text merge would write into it."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                got = os.open(os.devnull, os.O_RDWR)
                if got != fd:
                    os.dup2(got, fd)
                    os.close(got)
            except OSError:
                pass


def tell(lines: list[str], code: int) -> int:
    """Write the driver's messages to stderr once %A is settled, and return
    ``code`` whatever happens to them: a stream that fails (closed, full,
    EPIPE, EBADF) is pointed at /dev/null, so that nothing pending fails
    again when the interpreter flushes it at exit."""
    stream = sys.stderr
    if not lines or stream is None:
        return code
    try:
        stream.write("".join(line + "\n" for line in lines))
        stream.flush()
    except Exception:  # noqa: BLE001 - a message must not cost a merge
        silence(stream, 2)
    return code


def silence(stream: TextIO, default_fd: int) -> None:
    """Point ``stream``'s descriptor at /dev/null and drop what it holds."""
    try:
        fd = stream.fileno()
    except Exception:  # noqa: BLE001 - a closed or detached stream
        fd = default_fd
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except OSError:
        pass
    try:
        stream.flush()  # what was pending now goes to /dev/null
    except Exception:  # noqa: BLE001
        pass


def log_merge(path: str, base: bytes, ours: bytes, theirs: bytes, result: Result, markers: Markers) -> None:
    """Keep the merge in the bounded decision log `mergedrv review` reads; never fails the merge."""
    try:
        from ..mergelog import record

        record(path, base, ours, theirs, result, (markers.base, markers.ours, markers.theirs))
    except Exception:  # noqa: BLE001 - a log must not cost a merge
        pass
