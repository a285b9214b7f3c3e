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

        twice = _added_twice(cfg, path, markers, base, theirs) if cfg is not None and path and os.path.basename(path) == CONFIG_NAME else None
        result = merge_path(path, base, ours, theirs, cfg, markers, strict, no_cell, twice)
        if twice is not None and twice.unknown:
            from .fix import remember_uncounted

            remember_uncounted(".", twice.unknown, base, ours, theirs, result.data)
        return result
    except Exception as exc:  # never a traceback: git's own merge instead
        from ..merge import text_result

        return text_result(base, ours, theirs, markers, f"internal error ({type(exc).__name__}: {exc})")


def _added_twice(cfg, path: str = "", markers: Markers | None = None, base: bytes = b"", theirs: bytes = b""):
    """For pins merged as counters: record name -> how many of its keys
    both sides of the merge (or rebase step, or cherry-pick) git is running
    added, each one key in the merged record (a double definition too), so
    counted once; as `mergedrv fix` counts them.  Read lazily, only for a
    pin both sides moved; None where the revisions cannot be known (a
    single cherry-pick before git 2.44, `git am`: the names are kept in
    ``count.unknown``)."""
    revs: list = []

    def count(name: str) -> int | None:
        if not revs:
            revs.append(_merge_revisions(".", path, base, theirs) or _labelled_revisions(".", path, markers, base, theirs))
        if revs[0] is None:
            count.unknown.append(name)
            return None
        from .fix import added_on_both_sides

        try:
            return added_on_both_sides(".", cfg.record_named(name), *revs[0])
        except Exception:  # noqa: BLE001 - a pin must not cost a merge
            count.unknown.append(name)
            return None

    count.unknown = []
    return count


def _labelled_revisions(root: str, path: str, markers: Markers | None, base: bytes, theirs: bytes) -> tuple[str, str, str] | None:
    """(base, ours, theirs) of a cherry-pick or revert from the labels git
    2.44 and later passes (%S %X %Y): theirs ``abc1234 (subject)`` and the
    base ``parent of abc1234 (subject)`` (a revert: the other way round),
    trusted only if that commit and its parent hold the very base and
    theirs git gave the driver."""
    import re

    from ..git import git_or_none

    if markers is None or markers.ours != "HEAD" or not path:
        return None
    named = re.compile(r"([0-9a-f]{4,64}) \(.*\)", re.S)
    if markers.base == f"parent of {markers.theirs}" and named.fullmatch(markers.theirs):
        picked = named.fullmatch(markers.theirs).group(1)
        revs = (f"{picked}^", "HEAD", picked)
    elif markers.theirs == f"parent of {markers.base}" and named.fullmatch(markers.base):
        picked = named.fullmatch(markers.base).group(1)
        revs = (picked, "HEAD", f"{picked}^")
    else:
        return None
    full = git_or_none(root, "rev-parse", "-q", "--verify", f"{picked}^{{commit}}")
    if full is None:
        return None
    picked_s = full.decode().strip()
    return _holds(root, tuple(r.replace(picked, picked_s) for r in revs), path, base, theirs)


def _holds(root: str, revs: tuple[str, str, str] | None, path: str | None, base: bytes | None, theirs: bytes | None):
    """``revs`` if its base and theirs hold at ``path`` the very versions git
    gave the driver (or nothing is given to compare), else None."""
    from ..git import git_or_none

    if revs is None or not path or base is None or theirs is None:
        return revs
    same = git_or_none(root, "cat-file", "blob", f"{revs[0]}:{path}") == base and git_or_none(root, "cat-file", "blob", f"{revs[2]}:{path}") == theirs
    return revs if same else None


def _merge_revisions(root: str, path: str | None = None, base: bytes | None = None, theirs: bytes | None = None) -> tuple[str, str, str] | None:
    """(base, ours, theirs) of what git is merging: `git merge` names its
    other head in GITHEAD_<hash> (MERGE_HEAD once it stopped); a rebase
    step picks the last commit of its done list onto HEAD, from that
    commit's parent; `rebase --apply` names it in rebase-apply/original-commit,
    a range cherry-pick or revert on the first line of its sequencer todo (a
    stopped one: CHERRY_PICK_HEAD, REVERT_HEAD).  These last are trusted
    only if that commit (and its parent) hold at ``path`` the ``base`` and
    ``theirs`` git gave the driver (another merge run mid-pick, a stash,
    is not that commit's)."""
    import re

    from ..git import git_or_none

    heads = [k[8:] for k in os.environ if re.fullmatch(r"GITHEAD_[0-9a-f]{40,64}", k)]
    if not heads:  # after git stopped (`mergedrv resolve`): the merge it is in
        merging = git_or_none(root, "rev-parse", "-q", "--verify", "MERGE_HEAD")
        heads = [merging.decode().strip()] if merging else []
    if len(heads) == 1:
        found = git_or_none(root, "merge-base", "HEAD", heads[0])
        return (found.decode().split()[0], "HEAD", heads[0]) if found else None

    def state(name: str) -> bytes | None:
        where = git_or_none(root, "rev-parse", "--git-path", name)
        try:
            with open(os.path.join(root, where.decode("utf-8", "surrogateescape").strip()), "rb") as fh:
                return fh.read()
        except (OSError, AttributeError):
            return None

    def commit(rev: bytes) -> str | None:
        found = git_or_none(root, "rev-parse", "--verify", "-q", rev.decode("ascii", "replace") + "^{commit}")
        return found.decode().strip() if found else None

    done = [ln.split() for ln in (state("rebase-merge/done") or b"").splitlines() if ln.strip() and not ln.startswith(b"#")]
    if done:
        if len(done[-1]) < 2 or done[-1][0] not in (b"pick", b"p", b"edit", b"e", b"reword", b"r", b"squash", b"s", b"fixup", b"f"):
            return None
        picked_s = commit(done[-1][1])
        return (f"{picked_s}^", "HEAD", picked_s) if picked_s else None
    if state("rebase-apply/rebasing") is not None:  # `rebase --apply`: git am replaying the original commit
        original = (state("rebase-apply/original-commit") or b"").strip()
        picked_s = commit(original) if original else None
        return _holds(root, (f"{picked_s}^", "HEAD", picked_s), path, base, theirs) if picked_s else None
    todo = [ln.split() for ln in (state("sequencer/todo") or b"").splitlines() if ln.strip() and not ln.startswith(b"#")]
    if todo and len(todo[0]) >= 2:  # a range cherry-pick or revert: the first line of its todo is the commit being applied
        picked_s = commit(todo[0][1])
        if picked_s and todo[0][0] in (b"pick", b"p"):
            return _holds(root, (f"{picked_s}^", "HEAD", picked_s), path, base, theirs)
        if picked_s and todo[0][0] == b"revert":
            return _holds(root, (picked_s, "HEAD", f"{picked_s}^"), path, base, theirs)
        return None
    for ref, picking in (("CHERRY_PICK_HEAD", True), ("REVERT_HEAD", False)):  # a cherry-pick or revert that stopped
        found = git_or_none(root, "rev-parse", "-q", "--verify", ref)
        if found:
            x = found.decode().strip()
            return _holds(root, (f"{x}^", "HEAD", x) if picking else (x, "HEAD", f"{x}^"), path, base, theirs)
    return None


def report(result, shown: str, say) -> None:
    """One line for a fallback, each note and each conflict, given to ``say``
    (the driver keeps them until %A is written)."""
    if result.fallback:
        say(f"mergedrv: {shown}: merged as plain text: {result.fallback}")
    for note in result.notes:
        say(f"{shown}:{note}")
    for c in result.conflicts:
        say(f"{shown}:{c.line}: conflict: {c.kind}: {c.key}: {c.why}")


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


def print_decision(path: str, base: bytes, ours: bytes, theirs: bytes, result, markers: Markers) -> None:
    """`merge --format json`: the decision record (what the log keeps, conflicts named) on stdout, once %A is written."""
    import json

    from ..mergelog import decision

    got = decision(path, base, ours, theirs, result, (markers.base, markers.ours, markers.theirs))
    got["clean"] = not result.conflicts
    got["conflicts"] = [dict(zip(("line", "kind", "key", "why"), c)) for c in got["conflicts"]]
    sys.stdout.write(json.dumps(got, indent=1) + "\n")


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


def silence(stream, default_fd: int) -> None:
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


def log_merge(path: str, base: bytes, ours: bytes, theirs: bytes, result, markers: Markers) -> None:
    """Keep the merge in the bounded decision log `mergedrv review` reads; never fails the merge."""
    try:
        from ..mergelog import record

        record(path, base, ours, theirs, result, (markers.base, markers.ours, markers.theirs))
    except Exception:  # noqa: BLE001 - a log must not cost a merge
        pass
