"""The pre-commit hook's fixes (`check --staged --fix`): the derived values the
staged change left behind (counts, rollups, grids, pins, and the counts of
other files: a checker's constant), written to the index and to the work tree
where the work tree file is the index's, one line each."""

from __future__ import annotations

import os
import sys

from .. import config as cfgmod
from ..errors import Error
from ..git import git, git_or_none, merge_in_progress

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..derived import Number


def pin_fixes(ctx, parent_ctx, lower: bool = True) -> tuple[bytes | None, list[str]]:
    """`.mergedrv.toml`'s text with each pin the change's added keys left
    behind raised to the count, and each pin the change raised above the keys
    it counts lowered to them (never below the parent's pin: keys the parent
    had and the change lost stay the ratchet's finding); None when no pin
    moves, and a line per pin.  ``lower`` False (a merge being concluded,
    whose pins move by both sides' counts): raised only."""
    from ..checks.ratchet import pinned
    from ..pins import pin_lines, set_pin

    data = ctx.config_data
    if data is None:
        return None, []
    new, said = data, []
    lines = pin_lines(data)
    was = pin_lines(parent_ctx.read(cfgmod.CONFIG_NAME) or b"") if parent_ctx is not None else {}
    for record in ctx.records():
        if record.pin is None or record.name not in lines or not ctx.record_docs(record):
            continue
        count = len(pinned(record, ctx.keys(record)))
        index = lines[record.name][0]
        value = lowered_pin(count, record.pin, was[record.name][1] if record.name in was else None) if lower else None
        if value is not None:  # (a row added, the pin fixed, the row taken out again)
            new = set_pin(new, index, value)
            said.append(f"{cfgmod.CONFIG_NAME}:{index + 1}: fixed: {record.name} pin {record.pin} -> {value} "
                        "(the change raised it above the keys it counts)")
            continue
        before = len(pinned(record, parent_ctx.keys(record))) if parent_ctx is not None and parent_ctx.record_docs(record) else None
        if count <= record.pin or before == count:  # not moved by this change: not its fix
            continue
        new = set_pin(new, index, count)
        said.append(f"{cfgmod.CONFIG_NAME}:{index + 1}: fixed: {record.name} pin {record.pin} -> {count} (the keys it counts)")
    return (new if new != data else None), said


def lowered_pin(count: int, pin: int, parent_pin: int | None) -> int | None:
    """The pin a change raised above the keys it counts goes back to them,
    never below the parent's pin (keys the parent had and the change lost stay
    the ratchet's finding); None when the change did not raise it so."""
    if parent_pin is None or count >= pin or parent_pin >= pin:
        return None
    return max(count, parent_pin)


def stale_since_parent(root: str, cfg) -> tuple[dict[tuple, int], dict[tuple, int]]:
    """(HEAD's stale numbers, HEAD^'s): what HEAD's own commit left stale is
    in the first and not the second (`stale_numbers`)."""
    from ..checks import Context
    from ..git import GitRev

    head, parent = GitRev(root, "HEAD"), GitRev(root, "HEAD^")
    at_head = stale_numbers(Context(cfg, head)) if head.exists else {}
    return at_head, stale_numbers(Context(cfg, parent)) if parent.exists else {}


def stale_numbers(ctx) -> dict[tuple, int]:
    """(path, source, what, found) -> the value the rows give, for every
    derived number that is wrong in ``ctx``'s snapshot."""

    out = {}
    for record in ctx.records():
        if not record.rollups and not record.counts and not record.grids:
            continue
        rows = ctx.rows(record)
        for path, doc in ctx.record_docs(record):
            for n in ctx.derive(record, doc, rows).numbers:
                if n.found != n.want:
                    out[(path, n.source, n.what, n.found)] = n.want
        for path, n in counted_numbers(ctx, record, rows):
            if n.found != n.want:
                out[(path, n.source, n.what, n.found)] = n.want
    return out


def counted_numbers(ctx, record, rows) -> list[tuple[str, Number]]:
    """(path, `derived.Number`) of each number ``record``'s counts find in the
    other files they name (``[[record.count]] file``)."""
    return [(path, n) for path, _, found in ctx.counted(record, rows) if found is not None for n in found.numbers]


def untouched(before: dict[tuple, int], path: str, n) -> bool:
    """A stale number the change did not touch: HEAD had it so, and the rows
    the change edited do not move what it should say."""
    return before.get((path, n.source, n.what, n.found)) == n.want


def left_alone(path: str, record, n) -> str:
    """The line saying a stale number HEAD already had is not this change's to fix."""
    return (f"{path}:{n.line}: rollup: {record.name}: {n.what}: {n.found}, the rows give {n.want}: "
            "already so before this change; left alone (`mergedrv fix --all` sets it)")


def number_fixes(ctx, parent_ctx, everything: bool, counted_only: bool = False) -> tuple[dict[str, bytes], list[str], list[str]]:
    """The record files, and the files their counts name, with the derived
    numbers the change made wrong set right: ({path: new text}, a line per
    fix, a line per stale number left alone because HEAD already had it so
    (all are fixed when ``everything``)); ``counted_only``: the files counts
    name alone (a merge: the driver set the record files' own)."""
    from .. import derived, model

    before = stale_numbers(parent_ctx) if parent_ctx is not None and not everything else {}
    out: dict[str, bytes] = {}
    said: list[str] = []
    left: list[str] = []
    other: dict[str, list] = {}  # a counted file's wrong numbers, of every record naming it (rewritten once)
    for record in ctx.records():
        if not record.rollups and not record.counts and not record.grids:
            continue
        rows = ctx.rows(record)
        numbers = [] if counted_only else [(path, doc, n) for path, doc in ctx.record_docs(record) for n in ctx.derive(record, doc, rows).numbers]
        numbers += [(path, None, n) for path, n in counted_numbers(ctx, record, rows)]
        wrong: dict[str, list] = {}
        for path, doc, n in numbers:
            if n.found == n.want:
                continue
            if untouched(before, path, n):
                left.append(left_alone(path, record, n))
            elif doc is not None or all(m.start != n.start for m in other.get(path, ())):
                (wrong if doc is not None else other).setdefault(path, []).append(n)
                said.append(f"{path}:{n.line}: fixed: {record.name} {n.what} {n.found} -> {n.want}")
        for path, found in wrong.items():
            new = derived.rewrite(out.get(path, ctx.read(path)), found, lambda n: n.want)
            try:  # never write what cannot be read back; read as the check after the fix reads it (one parse)
                _read_back(ctx, path, new, record)
            except model.Unmodelable:
                said = [line for line in said if not line.startswith(f"{path}:")]
                continue  # the check reports it
            out[path] = new
    for path, found in other.items():  # (not markdown: nothing to read back)
        out[path] = derived.rewrite(ctx.read(path), found, lambda n: n.want)
    return out, said, left


def _read_back(ctx, path: str, new: bytes, record) -> None:
    """``new`` parsed (raises model.Unmodelable), kept by its blob id in the
    check's parses for the check of the restaged index."""
    from .. import model
    from ..git import blob_id_of

    if ctx.parses is None:
        model.parse(new, record.key)
        return
    digits = len(getattr(ctx.snap, "blob_id", lambda p: None)(path) or "x" * 40)
    ctx.parses.parse_blob(path, blob_id_of(new, digits), new, record.key, False, record.key_pattern)


def unstaged(root: str, paths: list[str]) -> set[str]:
    """Which of ``paths`` differ between the index and the work tree (git's
    filters applied, as `git diff` sees them); a symlink counts as different."""
    out = git(root, "diff", "--name-only", "-z", "--", *paths)
    changed = {p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}
    return changed | {p for p in paths if os.path.islink(os.path.join(root, p))}


def apply(root: str, req, s) -> tuple[int, int, bool]:
    """Fix what the staged change left behind, read from ``s`` (the check's
    Setup of the index: its snapshots' blobs already read): (how many values
    were fixed, how many could not be because a file has unstaged changes,
    whether every file fixed is the parent's again: the fix may have undone the change)."""
    from ..atomic import atomic_write
    from ..checks import Context

    parses = s.context.get("parses")  # the check's parses: the index and HEAD are not parsed again
    scoped = getattr(s, "scoped", None)
    paths = scoped[0].paths() if scoped is not None else None  # the records the change touched (the check's scope)
    ctx = Context(s.cfg, s.snap, s.parent, paths=paths, parses=parses,
                  **{k: v for k, v in s.context.items() if k in ("config_path", "config_data")})
    parent_ctx = Context(s.cfg, s.parent, paths=paths, parses=parses) if s.parent is not None else None
    files, said, _ = number_fixes(ctx, parent_ctx, bool(getattr(req, "all", False)))
    config, pins = pin_fixes(ctx, parent_ctx, lower=not merge_in_progress(root))
    if config is not None:
        files[cfgmod.CONFIG_NAME] = config
    said += pins
    if not files:  # stale numbers HEAD already had: the check counts them as inherited
        return 0, 0, False
    dirty = unstaged(root, sorted(files))
    for path in sorted(dirty):
        n = sum(1 for line in said if line.startswith(f"{path}:"))
        print(f"{path}:1: not fixed: it has unstaged changes, which the fix would take into the commit; "
              f"stage or drop them, or run `mergedrv fix` and `git add {path}` ({n} value{'s' if n != 1 else ''} to fix)")
    if dirty:  # all or none: half the fixes would leave the commit blocked and the index half changed
        print(f"mergedrv: nothing fixed ({len(said)} value{'s' if len(said) != 1 else ''} to fix); the check below says what is left",
              file=sys.stderr)
        return 0, len(said), False
    done = sorted(files)
    for path in done:
        try:
            atomic_write(os.path.join(root, path), files[path])
        except OSError as exc:
            raise Error(f"{path}: not rewritten: {exc.strerror}") from None
    if done and git_or_none(root, "add", "--", *done) is None:
        raise Error(f"could not restage {', '.join(done)} (git add failed); the work tree holds the fixes")
    offer = getattr(s.snap, "offer", None)
    if offer is not None:
        for path in done:
            offer(path, files[path])  # the check of the restaged index reads them from here (if git stored these bytes)
    for line in said:
        print(line)
    return len(said), 0, s.parent is not None and all(s.parent.read(p) == files[p] for p in done)


def merged_count_fixes(root: str, s) -> list[str]:
    """While a merge is concluded: the numbers of the files counts name (a
    checker's constant), which git merged as text (326 -> 327 on both sides
    stays 327), set from the merged rows of the index (``s``: the check's
    Setup of it), in the index and the work tree, unless such a file has
    unstaged changes; a line per number."""
    from ..atomic import atomic_write
    from ..checks import Context

    if not any(r.counted_files() for r in s.cfg.records):
        return []
    ctx = Context(s.cfg, s.snap, **{k: v for k, v in s.context.items() if k in ("config_path", "config_data")})
    parent_ctx = Context(s.cfg, s.parent) if s.parent is not None else None
    files, said, _ = number_fixes(ctx, parent_ctx, False, counted_only=True)
    dirty = unstaged(root, sorted(files)) if files else set()
    for path in sorted(dirty):
        print(f"{path}:1: not fixed: it has unstaged changes, which the fix would take into the commit; "
              f"stage or drop them, or run `mergedrv fix` and `git add {path}`")
    if not files or dirty:
        return []
    for path in sorted(files):
        try:
            atomic_write(os.path.join(root, path), files[path])
        except OSError as exc:
            raise Error(f"{path}: not rewritten: {exc.strerror}") from None
    if git_or_none(root, "add", "--", *sorted(files)) is None:
        raise Error(f"could not restage {', '.join(sorted(files))} (git add failed); the work tree holds the fixes")
    for line in said:
        print(line)
    return said


def merged_pin_fixes(root: str) -> list[str]:
    """While a merge is concluded (`git commit` after `git merge` stopped or
    its pre-merge-commit hook refused): each pin both sides moved, set in the
    index to the base plus both moves, less the keys both added (git takes a
    `.mergedrv.toml` both sides changed alike without calling the driver, so
    326 -> 327 twice stays 327), and in the work tree where that file holds
    the index's bytes or already the fix (`mergedrv fix` ran); a line per pin."""
    from ..atomic import atomic_write
    from ..git import git_text
    from ..merge.counted import merged_pins
    from ..pins import added_on_both_sides, pin_lines, set_pin

    name = cfgmod.CONFIG_NAME
    base = git_text(root, "merge-base", "HEAD", "MERGE_HEAD")
    staged = git_or_none(root, "show", f":0:{name}")
    if not base or staged is None:
        return []  # no merge base, or the file is conflicted: its resolution is a person's

    def show(rev: str) -> bytes:
        return git_or_none(root, "show", f"{rev}:{name}") or b""

    try:
        cfg = cfgmod.load_bytes(staged)
    except cfgmod.ConfigError:
        return []  # the check reports the configuration
    sums = merged_pins(show(base), show("HEAD"), show("MERGE_HEAD"),
                       lambda n: added_on_both_sides(root, cfg.record_named(n), base, "HEAD", "MERGE_HEAD"))
    new, said = staged, []
    for pin, (index, value) in pin_lines(staged).items():
        want = sums.get(pin)
        if want is not None and want != value:
            new = set_pin(new, index, want)
            said.append(f"{name}:{index + 1}: fixed: {pin} pin {value} -> {want} (both sides of the merge moved it: base plus both moves)")
    if new == staged:
        return []
    path = os.path.join(root, name)
    try:
        with open(path, "rb") as fh:
            work = fh.read()
    except OSError:
        work = None
    if os.path.islink(path) or work not in (staged, new):
        print(f"{name}:1: not fixed: it has unstaged changes, which the fix would take into the commit; "
              f"stage or drop them, or run `mergedrv fix` and `git add {name}`")
        return []
    atomic_write(path, new)
    if git_or_none(root, "add", "--", name) is None:
        raise Error(f"could not restage {name} (git add failed); the work tree holds the fixes")
    for line in said:
        print(line)
    return said
