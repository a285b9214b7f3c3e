"""`mergedrv merge`: git's merge-driver contract around the keyed merge.

Reads %O %A %B, picks the record or log declared for %P in `.mergedrv.toml`,
merges, writes %A atomically and exits 0 (clean) or 1 (conflicts).  Any
failure falls back to git's text merge; no traceback reaches the user and no
side's content is lost.
"""

from __future__ import annotations

import os
import sys

from .textmerge import Markers

_LITERAL = {"%S", "%X", "%Y", "%L", "%P", ""}


class DriverArgs:
    """The driver's command line: %O %A %B, then %P %L %S %X %Y and options."""

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
    if args.marker_size and args.marker_size.isdigit() and int(args.marker_size) > 0:
        size = int(args.marker_size)
    return Markers(size, label(args.ours_label, "ours"), label(args.base_label, "base"), label(args.theirs_label, "theirs"))


def atomic_write(path: str, data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` so that no reader sees a partial file.

    The file keeps its permissions (a new one gets the umask's), unless
    ``mode`` sets them (an executable hook).
    """
    folder = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(folder, f".mergedrv-{os.getpid()}-{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        try:
            os.chmod(tmp, mode if mode is not None else os.stat(path).st_mode & 0o7777)
        except OSError:
            pass
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _read(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def options_for(path: str | None, config_path: str | None, markers: Markers, strict: bool, no_cell: bool, say):
    """Merge options for ``path`` from the configuration (plain text if undeclared)."""
    from . import config as cfgmod
    from .merge import Options

    opts = Options(markers=markers, strict_additions=strict, cell_merge=not no_cell)
    where = config_path or cfgmod.find_path(".")
    if where is None or path is None:
        return opts, None
    try:
        cfg = cfgmod.load(where)
    except cfgmod.ConfigError as exc:
        say(f"mergedrv: {exc}; merging {path} as plain text")
        return opts, None
    opts.strict_additions = strict or cfg.merge.strict_additions
    opts.cell_merge = (not no_cell) and cfg.merge.cell_merge
    record = cfg.record_for(path)
    if record is not None:
        opts.key = record.key
        opts.key_pattern = record.key_pattern
        if record.counts or record.rollups:
            from .derived import Recompute

            opts.recompute = Recompute(record)
    elif cfg.log_for(path) is not None:
        opts.log = True
    return opts, cfg


def run(args: DriverArgs) -> int:
    """Run one merge; always returns 0 or 1."""
    import gc

    gc.disable()  # a short-lived process making many small acyclic objects
    say = lambda msg: print(msg, file=sys.stderr)  # noqa: E731
    markers = markers_for(args)
    shown = args.path if args.path and args.path not in _LITERAL else args.ours
    try:
        base, ours, theirs = _read(args.base), _read(args.ours), _read(args.theirs)
    except OSError as exc:
        say(f"mergedrv: {shown}: cannot read an input: {exc.strerror}: {exc.filename}")
        return 1
    opts = cfg = None
    try:
        from .merge import merge

        opts, cfg = options_for(args.path if args.path not in _LITERAL else None, args.config, markers, args.strict, args.no_cell_merge, say)
        if cfg is not None and args.path and os.path.basename(args.path) == ".mergedrv.toml":
            from .pins import merge_config

            result = merge_config(base, ours, theirs, markers)
        elif opts.recompute is not None:  # derived counts: kept out of the text merge
            from .derived import merge_counted

            result = merge_counted(base, ours, theirs, opts, merge)
        else:
            result = merge(base, ours, theirs, opts)
    except Exception as exc:  # never a traceback: git's own merge instead
        from .merge import text_result

        result = text_result(ours, base, theirs, markers, f"internal error ({type(exc).__name__}: {exc})")
    if result.fallback:
        say(f"mergedrv: {shown}: merged as plain text: {result.fallback}")
    for note in result.notes:
        say(f"{shown}:{note}")
    for c in result.conflicts:
        say(f"{shown}:{c.line}: conflict: {c.kind}: {c.key}: {c.why}")
    if result.data != ours:
        try:
            atomic_write(args.ours, result.data)
        except OSError as exc:
            say(f"mergedrv: {shown}: cannot write the result: {exc.strerror}")
            return 1
    if cfg is not None and opts is not None and (opts.key is not None or opts.log):
        log_merge(shown, base, ours, theirs, result, markers)
    return 1 if result.conflicts else 0


def log_merge(path: str, base: bytes, ours: bytes, theirs: bytes, result, markers: Markers) -> None:
    """Keep the merge in the bounded decision log `mergedrv review` reads; never fails the merge."""
    try:
        from .commands.mergelog import record

        record(path, base, ours, theirs, result, (markers.base, markers.ours, markers.theirs))
    except Exception:  # noqa: BLE001 - a log must not cost a merge
        pass
