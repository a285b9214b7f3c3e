"""`mergedrv resolve`: the keyed merge, after the fact, on files git left conflicted.

Reads index stages 1, 2 and 3 of each conflicted record file (mid-merge,
mid-rebase, mid-cherry-pick), merges them as the driver would have, keeps what
was in the working tree under the git folder (`.git/mergedrv/resolve/PATH`,
where `git add -A` does not see it), and with `--add` stages clean results.
A conflicted `.mergedrv.toml` is merged first (pins as counters), and the
records are merged with the merged configuration.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..git import GitError, git, git_path, merge_in_progress, operation, toplevel
from ..merge.values import Markers
from ..merge.driver import driver_merge
from ..revisions import three_revisions
from ..errors import Error
from ..values import Value

REGULAR = {"100644", "100755"}


ResolveError = Error  # a problem to show as one line; the command exits 2


@dataclass(slots=True)
class Conflicted:
    """One path with unmerged index entries: stage number -> (mode, blob id)."""

    path: str  # relative to the top of the working tree
    stages: dict[int, tuple[str, str]] = field(default_factory=dict)


def conflicted(root: Path, pathspecs: list[str]) -> list[Conflicted]:
    """Unmerged paths of the index, in index order."""
    out: dict[str, Conflicted] = {}
    raw = git(root, "ls-files", "-u", "-z", "--", *pathspecs)
    for entry in raw.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, blob, stage = meta.decode().split()
        name = path.decode("utf-8", "surrogateescape")
        out.setdefault(name, Conflicted(name)).stages[int(stage)] = (mode, blob)
    return list(out.values())


def _describe(root: Path, ref: str) -> str:
    """``abc1234 (subject)`` of a commit, as git labels a picked commit."""
    out = git(root, "log", "-1", "--format=%h (%s)", ref).decode("utf-8", "replace").strip()
    return out[:60]


def labels(root: Path) -> tuple[str, str, str, str]:
    """(operation, ours, base, theirs) conflict labels for what git is in the middle of.

    In a rebase, "ours" (stage 2) is the upstream being rebased onto and
    "theirs" (stage 3) is the commit being replayed.
    """
    head = git(root, "rev-parse", "--short", "HEAD").decode().strip()
    doing = operation(root)
    if doing is None:
        return "merge", "ours", "base", "theirs"
    op, ref = doing
    if op == "rebase":
        return "rebase", f"upstream {head} (ours in a rebase)", "base", f"{_describe(root, ref)} (being rebased)"
    return op, f"HEAD {head}", "base", _describe(root, ref)


def marker_size(root: Path, path: str) -> int:
    out = git(root, "check-attr", "conflict-marker-size", "--", path).decode().strip()
    value = out.rsplit(": ", 1)[-1]
    return int(value) if value.isdigit() and int(value) > 0 else 7


def _blob(root: Path, stage: tuple[str, str] | None) -> bytes:
    return b"" if stage is None else git(root, "cat-file", "blob", stage[1])


def _declared(cfg_path: Path, path: str) -> bool:
    from .. import config as cfgmod

    if os.path.basename(path) == cfgmod.CONFIG_NAME:
        return True
    from ..merge import counted_by

    cfg = cfgmod.load(cfg_path)
    return cfg.record_for(path) is not None or cfg.log_for(path) is not None or bool(counted_by(path, cfg))


def _counted_only(cfg_path: Path, path: str) -> bool:
    """A file records' counts name (a checker's constant) that no record or
    log declares: its counted numbers merge as counters, the rest as text."""
    from .. import config as cfgmod
    from ..merge import counted_by

    cfg = cfgmod.load(cfg_path)
    return cfg.record_for(path) is None and cfg.log_for(path) is None and bool(counted_by(path, cfg))


BACKUPS = "mergedrv/resolve"  # inside the git folder: never staged by `git add -A`


def _shown_path(root: Path, path: Path) -> str:
    rel = os.path.relpath(path, root)
    return str(path) if rel.startswith("..") else rel


def keep_copy(root: Path, rel: str) -> str | None:
    """Copy the work tree's ``rel`` to ``.git/mergedrv/resolve/REL`` (``REL.1``,
    ``REL.2``... when taken: a file there, which resolve may not have created,
    is never overwritten).  Returns the copy's path as shown, None if absent."""
    source = root / rel
    if not source.is_file():
        return None
    first = Path(git_path(root, BACKUPS)) / rel
    first.parent.mkdir(parents=True, exist_ok=True)
    for n in range(1000):
        dest = first if n == 0 else first.with_name(f"{first.name}.{n}")
        try:  # O_EXCL: an existing file, or a symlink, is never written through
            fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as fh:
            fh.write(source.read_bytes())
        shutil.copymode(source, dest)
        return _shown_path(root, dest)
    raise ResolveError(f"{_shown_path(root, first)}: 1000 copies exist already; remove them")


def write_keeping_copy(root: Path, rel: str, data: bytes) -> str:
    """Replace the work tree's ``rel`` atomically, its old content kept by `keep_copy`."""
    from ..atomic import atomic_write

    kept = keep_copy(root, rel)
    atomic_write(str(root / rel), data)
    return kept or "nothing: the file was absent"


def repair_pins(root: Path, op: str, markers: Markers, say, warn) -> bool:
    """Add up pins both sides moved, where git merged `.mergedrv.toml` cleanly as text.

    Git merges identical changes (327 and 327 from 326) without asking any
    driver; the pins are counters, so the right answer is 328.
    """
    from ..config import CONFIG_NAME
    from ..merge.counted import merged_pins

    revs = three_revisions(root, op)
    target = root / CONFIG_NAME
    if revs is None or not target.is_file():
        return False
    try:
        base, ours, theirs = (git(root, "show", f"{rev}:{CONFIG_NAME}") for rev in revs)
    except ResolveError:
        return False
    if not merged_pins(base, ours, theirs):
        return False
    current = target.read_bytes()
    if git(root, "diff", "--name-only", "--", CONFIG_NAME).strip():
        warn(f"{CONFIG_NAME}: edited since git merged it; pins not recounted")
        return False
    data, ok = driver_merge(CONFIG_NAME, base, ours, theirs, root / CONFIG_NAME, markers)
    if not ok or data == current:
        return False
    kept = write_keeping_copy(root, CONFIG_NAME, data)
    say(f"{CONFIG_NAME}: pins both sides moved added up as counters (was kept as {kept})")
    return True


def _left_alone(item: Conflicted, cfg_path: Path) -> str | None:
    """Why a conflicted path is not merged by key (then git's result stays), or None."""
    from .. import config as cfgmod

    if 2 not in item.stages or 3 not in item.stages:
        side = "ours" if 2 not in item.stages else "theirs"
        return f"deleted by {side}; keep or remove it with git add / git rm"
    if not {m for m, _ in item.stages.values()} <= REGULAR:
        return "not a regular file in every stage; left as git left it"
    if not _declared(cfg_path, item.path):
        return f"not a record, a log or a file counts name in {cfgmod.CONFIG_NAME}; left as git left it"
    return None


def config_first(root: Path, item: Conflicted, labels4: tuple[str, str, str, str], say, warn) -> bool:
    """A conflicted `.mergedrv.toml`, merged before the records need it (pins
    as counters, the rest as git's text merge, as the driver merges it).

    True when the work tree then holds a configuration that loads (merged
    here, or already resolved by hand, which is left as it is); False when it
    still conflicts.
    """
    from .. import config as cfgmod
    from ..merge.counted import merge_config
    from ..merge.driver import report
    from ..pins import added_twice_between, remember_uncounted

    name = cfgmod.CONFIG_NAME
    try:
        cfgmod.load(root / name)
        say(f"{name}: resolved in the work tree already; used as it is")
        return True
    except cfgmod.ConfigError:
        pass
    why = _left_alone(item, root / name)
    if why is not None:
        warn(f"{name}: {why}")
        return False
    _, ours_label, base_label, theirs_label = labels4
    markers = Markers(marker_size(root, name), base_label, ours_label, theirs_label)
    base, ours, theirs = (_blob(root, item.stages.get(n)) for n in (1, 2, 3))
    counter = added_twice_between(str(root), three_revisions(root, labels4[0]), [ours, theirs])  # a key both sides added: once
    unknown: list[str] = []  # no commit to read the keys from (`git am -3`): left for `mergedrv fix`

    def twice(name: str) -> int | None:
        n = counter(name)
        if n is None:
            unknown.append(name)
        return n

    result = merge_config(base, ours, theirs, markers, twice)
    if unknown:
        remember_uncounted(str(root), unknown, base, ours, theirs, result.data)
    report(result, name, warn)
    kept = write_keeping_copy(root, name, result.data)
    if result.conflicts:
        say(f"{name}: conflicts left for you, marked in the file (was kept as {kept}); "
            f"resolve {name} first (the records are read with it), then run `mergedrv resolve` again")
        return False
    say(f"{name}: merged, pins as counters, clean (was kept as {kept})")
    cfgmod.load(root / name)  # a merged configuration that does not load: an error naming its line
    return True


def _merge_items(root: Path, items: list[Conflicted], cfg_path: Path, labels4, say, warn) -> tuple[int, list[str]]:
    """Merge each conflicted record file by key: (files still conflicted, files clean)."""
    _, ours_label, base_label, theirs_label = labels4
    remaining = 0
    clean: list[str] = []
    for item in items:
        shown = item.path
        why = _left_alone(item, cfg_path)
        if why is not None:
            warn(f"{shown}: {why}")
            remaining += 1
            continue
        markers = Markers(marker_size(root, item.path), base_label, ours_label, theirs_label)
        base, ours, theirs = (_blob(root, item.stages.get(n)) for n in (1, 2, 3))
        counted_only = _counted_only(cfg_path, item.path)
        if counted_only and b"<<<<<<<" not in ((root / item.path).read_bytes() if (root / item.path).is_file() else b"<<<<<<<"):
            warn(f"{shown}: resolved by hand already (no conflict markers); left as it is: `git add {shown}`")
            remaining += 1
            continue
        data, ok = driver_merge(item.path, base, ours, theirs, cfg_path, markers)
        if counted_only and not ok:  # (a code file: git's own conflict stays, in the style its user chose)
            warn(f"{shown}: lines other than its counted numbers conflict; left as git left it")
            remaining += 1
            continue
        kept = write_keeping_copy(root, item.path, data)
        if not ok:
            remaining += 1
            say(f"{shown}: conflicts left for you, marked in the file (was kept as {kept})")
        else:
            clean.append(item.path)
            say(f"{shown}: merged by key, clean (was kept as {kept})")
    return remaining, clean


def resolve(start: str | os.PathLike, paths: list[str], add: bool, say, warn) -> int:
    from .. import config as cfgmod

    root = Path(toplevel(start))  # a GitError: an Error, exit 2
    cfg_path = root / cfgmod.CONFIG_NAME
    config_item = next(iter(conflicted(root, [f":(top){cfgmod.CONFIG_NAME}"])), None)
    if not cfg_path.is_file() and config_item is None:
        raise ResolveError(f"{root} has no {cfgmod.CONFIG_NAME}; run `mergedrv init` to propose one")
    if config_item is None:
        cfgmod.load(cfg_path)  # a broken configuration is an error here, not a silent text merge
    specs = [os.path.relpath(os.path.abspath(p), root) for p in paths]
    items = conflicted(root, [f":(top){s}" for s in specs] if specs else [])
    found = {i.path for i in items}
    missing = [s for s in specs if not any(f == s or f.startswith(s.rstrip("/") + "/") for f in found)]
    for s in missing:
        warn(f"mergedrv resolve: {s}: not conflicted in the index")
    if not items:
        say("mergedrv resolve: no conflicted files")
        return 2 if missing else 0
    labels4 = labels(root)
    op = labels4[0]
    if config_item is not None:
        if not config_first(root, config_item, labels4, say, warn):
            say(f"mergedrv resolve: the records are left as git left them; fix {cfgmod.CONFIG_NAME}, then run it again")
            return 1
        items = [i for i in items if i.path != cfgmod.CONFIG_NAME]
    remaining, clean = _merge_items(root, items, cfg_path, labels4, say, warn)
    if config_item is not None:
        clean.append(cfgmod.CONFIG_NAME)
    else:
        _, ours_label, base_label, theirs_label = labels4
        if repair_pins(root, op, Markers(7, base_label, ours_label, theirs_label), say, warn):
            clean.append(cfgmod.CONFIG_NAME)
    if add and clean:
        git(root, "add", "--", *clean)
        say(f"staged: {' '.join(clean)}")
    if remaining:
        say(f"mergedrv resolve: {remaining} file(s) still conflicted; fix them, git add, then git {op} --continue")
        return 1
    step = f"git {op} --continue" if op != "merge" or merge_in_progress(root) else "git commit"
    say(f"mergedrv resolve: all clean; next: {'' if add else 'git add the files, then '}{step}")
    return 0


class Request(Value):
    """`mergedrv resolve [PATH...] [--add]` (built once, in cli.py)."""

    __slots__ = ("paths", "add")

    def __init__(self, paths: list[str] | None = None, add: bool = False) -> None:
        self.paths = list(paths or [])
        self.add = add


def run(req: Request) -> int:
    """`mergedrv resolve [PATH...] [--add]`: 0 clean, 1 conflicts remain (an Error: 2, from the CLI)."""
    paths, add = req.paths, req.add
    say = lambda msg: print(msg)  # noqa: E731
    warn = lambda msg: print(msg, file=sys.stderr)  # noqa: E731
    try:
        return resolve(".", paths, add, say, warn)
    except OSError as exc:
        raise Error(f"{exc.filename or ''}: {exc.strerror}") from None
