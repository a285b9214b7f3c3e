"""`mergedrv merge`: git's merge-driver contract around the keyed merge.

Reads %O %A %B, picks the record or log declared for %P in `.mergedrv.toml`,
merges, writes %A atomically and exits 0 (clean) or 1 (conflicts).  Any
failure falls back to git's text merge; no traceback reaches the user and no
side's content is lost.
"""

from __future__ import annotations

import os
import sys

from ..atomic import atomic_write
from ..merge.options import Markers
from ..values import Value

_LITERAL = {"%S", "%X", "%Y", "%L", "%P", ""}
MAX_MARKER_SIZE = 256  # a larger %L (git passes conflict-marker-size as given) is clamped


class DriverArgs(Value):
    """The driver's request: %O %A %B, then %P %L %S %X %Y and options (from fast_args or cli.py)."""

    __slots__ = ("base", "ours", "theirs", "path", "marker_size", "base_label", "ours_label", "theirs_label", "config", "strict", "no_cell_merge")

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
    ) -> None:
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


def fast_args(argv: list[str]) -> DriverArgs | None:
    """``merge O A B -p P -l L ...`` as git writes it, read without building
    the argument parser (the driver starts once per file per merge); None
    for anything else (help, a mistake), which the full CLI then handles."""
    if len(argv) < 4 or argv[0] != "merge":
        return None
    values: dict = {}
    files: list[str] = []
    i = 1
    while i < len(argv):
        arg = argv[i]
        name = VALUE_FLAGS.get(arg) or LONG_FLAGS.get(arg)
        if name is not None and i + 1 < len(argv):
            values[name] = argv[i + 1]
            i += 2
        elif arg in BOOL_FLAGS:
            values[BOOL_FLAGS[arg]] = True
            i += 1
        elif arg.startswith("-"):
            return None
        else:
            files.append(arg)
            i += 1
    if len(files) != 3:
        return None
    return DriverArgs(*files, **values)


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


def load_config(path: str | None, config_path: str | None, say):
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


def merge_bytes(path: str | None, base: bytes, ours: bytes, theirs: bytes, config_path: str | None, markers: Markers, say,
                strict: bool = False, no_cell: bool = False):
    """The merge ``path`` is declared for, on three versions in memory; any
    failure is git's own text merge instead."""
    return merge_declared(path, base, ours, theirs, load_config(path, config_path, say), markers, strict, no_cell)


def merge_declared(path: str | None, base: bytes, ours: bytes, theirs: bytes, cfg, markers: Markers,
                   strict: bool = False, no_cell: bool = False):
    """`merge_bytes` with the configuration already loaded (None: plain text)."""
    try:
        from ..merge import CONFIG_NAME, merge_path

        twice = _added_twice(cfg) if cfg is not None and path and os.path.basename(path) == CONFIG_NAME else None
        return merge_path(path, base, ours, theirs, cfg, markers, strict, no_cell, twice)
    except Exception as exc:  # never a traceback: git's own merge instead
        from ..merge import text_result

        return text_result(base, ours, theirs, markers, f"internal error ({type(exc).__name__}: {exc})")


def _added_twice(cfg):
    """For pins merged as counters: record name -> how many of its keys
    both sides of the merge (or rebase step) git is running added, each one
    key in the merged record (a double definition too), so counted once;
    as `mergedrv fix` counts them.  Read lazily, only for a pin both sides
    moved; 0 where the revisions cannot be known (a cherry-pick)."""
    revs: list = []

    def count(name: str) -> int:
        if not revs:
            revs.append(_merge_revisions("."))
        if revs[0] is None:
            return 0
        from .fix import added_on_both_sides

        try:
            return added_on_both_sides(".", cfg.record_named(name), *revs[0])
        except Exception:  # noqa: BLE001 - a pin must not cost a merge
            return 0

    return count


def _merge_revisions(root: str) -> tuple[str, str, str] | None:
    """(base, ours, theirs) of what git is merging: `git merge` names its
    other head in GITHEAD_<hash> (MERGE_HEAD once it stopped); a rebase
    step picks the last commit of its done list onto HEAD, from that
    commit's parent (a stopped cherry-pick: CHERRY_PICK_HEAD)."""
    import re

    from ..git import git_or_none

    heads = [k[8:] for k in os.environ if re.fullmatch(r"GITHEAD_[0-9a-f]{40,64}", k)]
    if not heads:  # after git stopped (`mergedrv resolve`): the merge it is in
        merging = git_or_none(root, "rev-parse", "-q", "--verify", "MERGE_HEAD")
        heads = [merging.decode().strip()] if merging else []
    if len(heads) == 1:
        base = git_or_none(root, "merge-base", "HEAD", heads[0])
        return (base.decode().split()[0], "HEAD", heads[0]) if base else None
    where = git_or_none(root, "rev-parse", "--git-path", "rebase-merge/done")
    done: list = []
    try:
        if where is not None:
            with open(os.path.join(root, where.decode("utf-8", "surrogateescape").strip()), "rb") as fh:
                done = [ln.split() for ln in fh.read().splitlines() if ln.strip() and not ln.startswith(b"#")]
    except OSError:
        pass
    if not done:  # a cherry-pick that stopped
        picked = git_or_none(root, "rev-parse", "-q", "--verify", "CHERRY_PICK_HEAD")
        return (f"{picked.decode().strip()}^", "HEAD", picked.decode().strip()) if picked else None
    if not done or len(done[-1]) < 2 or done[-1][0] not in (b"pick", b"p", b"edit", b"e", b"reword", b"r", b"squash", b"s", b"fixup", b"f"):
        return None
    picked = git_or_none(root, "rev-parse", "--verify", "-q", done[-1][1].decode("ascii", "replace") + "^{commit}")
    if picked is None:
        return None
    picked_s = picked.decode().strip()
    return f"{picked_s}^", "HEAD", picked_s


def report(result, shown: str, say) -> None:
    """One stderr line for a fallback, each note and each conflict."""
    if result.fallback:
        say(f"mergedrv: {shown}: merged as plain text: {result.fallback}")
    for note in result.notes:
        say(f"{shown}:{note}")
    for c in result.conflicts:
        say(f"{shown}:{c.line}: conflict: {c.kind}: {c.key}: {c.why}")


def run(args: DriverArgs) -> int:
    """Run one merge; always returns 0 or 1."""
    import gc

    gc.disable()  # a short-lived process making many small acyclic objects
    say = lambda msg: print(msg, file=sys.stderr)  # noqa: E731
    markers = markers_for(args)
    shown = args.path if args.path and args.path not in _LITERAL else args.ours
    if markers.size == MAX_MARKER_SIZE and args.marker_size != str(MAX_MARKER_SIZE):
        say(f"mergedrv: {shown}: conflict-marker-size {args.marker_size[:40]} is too large; using {MAX_MARKER_SIZE}")
    try:
        base, ours, theirs = _read(args.base), _read(args.ours), _read(args.theirs)
    except OSError as exc:
        which = {args.base: "the base (%O)", args.ours: "ours (%A)", args.theirs: "theirs (%B)"}.get(exc.filename, "an input")
        say(f"mergedrv: {shown}: cannot read {which} {exc.filename}: {exc.strerror}; {args.ours} left as it was (a conflict)")
        return 1
    path = args.path if args.path not in _LITERAL else None
    cfg = load_config(path, args.config, say)
    result = merge_declared(path, base, ours, theirs, cfg, markers, args.strict, args.no_cell_merge)
    report(result, shown, say)
    if result.data != ours:
        try:
            atomic_write(args.ours, result.data)
        except OSError as exc:
            say(f"mergedrv: {shown}: cannot write the result: {exc.strerror}")
            return 1
    if cfg is not None and path is not None and (cfg.record_for(path) is not None or cfg.log_for(path) is not None):
        log_merge(shown, base, ours, theirs, result, markers)
    return 1 if result.conflicts else 0


def log_merge(path: str, base: bytes, ours: bytes, theirs: bytes, result, markers: Markers) -> None:
    """Keep the merge in the bounded decision log `mergedrv review` reads; never fails the merge."""
    try:
        from ..mergelog import record

        record(path, base, ours, theirs, result, (markers.base, markers.ours, markers.theirs))
    except Exception:  # noqa: BLE001 - a log must not cost a merge
        pass
