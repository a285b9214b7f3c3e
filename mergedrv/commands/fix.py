"""`mergedrv fix`: rewrite rollup tables, prose counts and the counts of other
files (a checker's constant) from the rows, the pins both sides of a merge
moved and pins left below their count; every file written atomically."""

from __future__ import annotations

import os
import sys

from .. import config as cfgmod
from ..git import WorkTree, git_or_none, git_text, merge_in_progress
from ..errors import Error
from ..values import Value
from ..pins import added_on_both_sides
from .workdir import config_for, enter, records_as_at_head
from .fix_staged import left_alone, lowered_pin, stale_numbers, stale_since_parent, untouched


class Request(Value):
    """`mergedrv fix [--config PATH]` (built once, in cli.py); ``config_file`` as in check.Request."""

    __slots__ = ("config", "config_file", "all")

    def __init__(self, config: str | None = None, all: bool = False) -> None:
        self.config = config
        self.all = all  # also the stale numbers HEAD already had (not the change's)
        self.config_file = os.path.abspath(config) if config else None


def run(req: Request) -> int:
    """`mergedrv fix`: rewrite rollups and prose counts from the rows, atomically."""
    from .. import derived

    root = enter()
    snap = WorkTree(root)
    cfg, context = config_for(req, snap, "the working tree")
    from ..checks import Context

    ctx = Context(cfg, snap, **context)
    left = 0
    own = not req.all and not merge_in_progress(root) and records_as_at_head(root, cfg)  # (before any write)
    if not req.config and _fix_merged_pins(root):
        cfg, context = config_for(req, snap, "the working tree")
        ctx = Context(cfg, snap, **context)
    if not req.config:
        raised, short = _pins_to_counts(root, ctx, None if merge_in_progress(root) else "HEAD^" if own else "HEAD")
        left += short
        if raised:
            cfg, context = config_for(req, snap, "the working tree")
            ctx = Context(cfg, snap, **context)
    before = _stale_at_head(root, cfg, req, own)
    other: dict[str, list] = {}  # the files counts name (a checker's constant): rewritten once, for every record naming them
    for record in cfg.records:
        if not record.rollups and not record.counts and not record.grids:
            continue
        rows = ctx.rows(record)
        for path, doc in ctx.record_docs(record):
            found = derived.derive(doc, record, rows)
            wrong = _wanted(before, path, record, found.numbers)
            left += _unfixable(ctx, path, record, found.problems)
            if wrong:
                left += _rewrite(root, ctx, path, record, wrong)
        for path, _, counted in ctx.counted(record, rows):
            if counted is None:
                continue  # (no such file, or a merge's conflicts in it: the check says which)
            left += _unfixable(ctx, path, record, counted.problems)
            kept = other.setdefault(path, [])
            kept += [(record, n) for n in _wanted(before, path, record, counted.numbers) if all(n.start != m.start for _, m in kept)]
    for path, wrong in other.items():
        if wrong:
            left += _rewrite(root, ctx, path, None, wrong)
    for f in ctx.findings:  # files that cannot be parsed
        left += 1
        print(f.text())
    return 1 if left else 0


def _unfixable(ctx, path: str, record, problems: list) -> int:
    """Say each problem no rewrite of numbers fixes (at its line, or at its entry's `.mergedrv.toml` line); their count."""
    from ..checks.rollup import config_line

    for p in problems:
        where = f"{path}:{p.line}" if p.line else f"{ctx.config_path}:{config_line(record, p.source)}"
        print(f"{where}: rollup: {record.name}: {p.message} (not fixable by rewriting numbers)")
    return len(problems)


def _wanted(before: dict, path: str, record, numbers: list) -> list:
    """The stale ``numbers`` of ``path`` to rewrite (those HEAD already had so are said and left alone)."""
    wrong = [n for n in numbers if n.found != n.want]
    for n in [n for n in wrong if untouched(before, path, n)]:
        print(left_alone(path, record, n))
    return [n for n in wrong if not untouched(before, path, n)]


def _rewrite(root: str, ctx, path: str, record, wrong: list) -> int:
    """Write ``path`` with the ``wrong`` numbers set (``record``: its record, whose
    file must read back; None: a counted file, ``wrong`` holding (record, number)
    pairs), atomically, a `fixed:` line each; 1 where it is left (a symlink)."""
    from .. import derived, model
    from ..atomic import atomic_write

    pairs = [(record, n) for n in wrong] if record is not None else wrong
    if os.path.islink(os.path.join(root, path)):  # git's link, not the file it names
        print(f"mergedrv: {path}: not rewritten: it is a symlink", file=sys.stderr)
        return 1
    data = ctx.read(path)
    assert data is not None  # the numbers were found in these bytes
    new = derived.rewrite(data, [n for _, n in pairs], lambda n: n.want)
    try:
        if record is not None:
            model.parse(new, record.key)  # never write what cannot be read back
        atomic_write(os.path.join(root, path), new)
    except (model.Unmodelable, OSError) as exc:
        raise Error(f"{path}: not rewritten: {exc}") from None
    for r, n in pairs:
        print(f"{path}:{n.line}: fixed: {r.name}: {n.what}: {n.found} -> {n.want}")
    return 0


def _stale_at_head(root: str, cfg, req: Request, own: bool = False) -> dict:
    """The stale numbers HEAD already had (see fix_staged.stale_numbers), which
    `fix` leaves alone unless --all: not what the change touched.  ``own``:
    the records are as HEAD has them, so the change is HEAD's commit, and what
    its parent already had is left alone."""
    from ..checks import Context
    from ..git import GitRev

    if req.all:
        return {}
    head = GitRev(root, "HEAD")
    if not head.exists:
        return {}
    if not own:
        return stale_numbers(Context(cfg, head))
    at_head, before = stale_since_parent(root, cfg)
    if any(before.get(k) != want for k, want in at_head.items()):
        short = git_text(root, "rev-parse", "--short", "HEAD") or "HEAD"
        print(f"mergedrv fix: the records are as HEAD has them, so the change is HEAD's own commit ({short}): what it "
              "left stale is set; what its parent already had wrong is left alone unless --all", file=sys.stderr)
    return before


def _added_on_both_sides(root: str, name: str, base: str) -> int:
    """How many keys of record ``name`` both sides of the merge added (a
    double definition counts once in the pin); 0 where that cannot be read."""
    try:
        record = cfgmod.load(os.path.join(root, cfgmod.CONFIG_NAME)).record_named(name)
    except Error:
        return 0
    return added_on_both_sides(root, record, base, "HEAD", "MERGE_HEAD")


def _fix_uncounted_pins(root: str) -> bool:
    """Set the pins the driver merged without the record's keys (a single
    cherry-pick, `git am`), while that replay is still the work tree's
    (HEAD is the commit it was replayed onto, or that commit's child):
    with the commit git stopped at, the keys both sides added count once;
    after the commit, the pin comes down to the key count, by at most the
    keys both sides may have added.  The note is then used up."""
    from ..atomic import atomic_write
    from ..checks.ratchet import pinned
    from ..git import git_path, operation
    from ..pins import UNCOUNTED, pin_lines, set_pin
    from ..revisions import three_revisions

    where = git_path(root, UNCOUNTED)
    try:
        with open(where, encoding="utf-8") as fh:
            notes = [ln.split(" ", 3) for ln in fh.read().splitlines()]
    except OSError:
        return False
    os.unlink(where)
    head = (git_or_none(root, "rev-parse", "-q", "--verify", "HEAD") or b"").decode().strip()
    parent = (git_or_none(root, "rev-parse", "-q", "--verify", "HEAD^") or b"").decode().strip()
    path = os.path.join(root, cfgmod.CONFIG_NAME)
    try:
        cfg = cfgmod.load(path)
        with open(path, "rb") as f:
            data = f.read()
    except (Error, OSError):
        return False
    doing = operation(root)
    revs = three_revisions(root, doing[0]) if doing is not None else None
    new = data
    for note in notes:
        if len(note) != 4 or not note[1].lstrip("-").isdigit() or not note[2].isdigit():
            continue
        at, value, most, name = note[0], int(note[1]), int(note[2]), note[3]
        record, pins = cfg.record_named(name), pin_lines(new)
        if record is None or name not in pins or pins[name][1] != value or at not in (head, parent) or not at:
            continue
        if at == head and revs is not None:  # git stopped the replay: its commit is known now
            want = value - added_on_both_sides(root, record, *revs)
        else:
            from ..checks import Context
            from ..git import WorkTree

            snap = WorkTree(root)
            keys = len(pinned(record, Context(cfg, snap).keys(record)))
            want = max(keys, value - most) if keys < value else value
        if want != value:
            new = set_pin(new, pins[name][0], want)
            print(f"{cfgmod.CONFIG_NAME}:{pins[name][0] + 1}: fixed: {name} pin: {value} -> {want} "
                  "(merged as a counter without the record's keys: a key both sides added counts once)")
    if new != data:
        atomic_write(path, new)
    return new != data


def _fix_merged_pins(root: str) -> bool:
    """During a merge, set each pin both sides moved to the base plus both moves.

    git resolves a `.mergedrv.toml` changed identically on both sides (326 to
    327 twice) without calling the merge driver, so the counter rule is
    applied here: `git merge --no-commit`, then `mergedrv fix`.
    """
    from ..atomic import atomic_write
    from ..merge.counted import merged_pins
    from ..pins import pin_lines, set_pin

    if not merge_in_progress(root):
        return _fix_uncounted_pins(root)

    def show(rev: str) -> bytes:
        return git_or_none(root, "show", f"{rev}:{cfgmod.CONFIG_NAME}") or b""

    base = git_text(root, "merge-base", "HEAD", "MERGE_HEAD")
    if not base:
        return False
    sums = merged_pins(show(base), show("HEAD"), show("MERGE_HEAD"))
    for name in sums:
        sums[name] -= _added_on_both_sides(root, name, base)
    path = os.path.join(root, cfgmod.CONFIG_NAME)
    with open(path, "rb") as f:
        data = f.read()
    new = data
    for name, (index, value) in pin_lines(data).items():
        want = sums.get(name)
        if want is not None and want != value:
            new = set_pin(new, index, want)
            print(f"{cfgmod.CONFIG_NAME}:{index + 1}: fixed: {name} pin: {value} -> {want} (both sides of the merge moved it: base plus both moves)")
    if new != data:
        atomic_write(path, new)
    return new != data


def _pins_to_counts(root: str, ctx, parent: str | None = "HEAD") -> tuple[bool, int]:
    """A pin below its count (keys added, the pin left behind: a rebase or a
    cherry-pick replaying a move both sides made, which git takes as it is)
    is raised to the count; a pin the change (since ``parent``) raised above
    its keys goes back to them, never below ``parent``'s pin; a pin above both
    means keys went missing, which only a person can settle: (whether
    .mergedrv.toml was rewritten, how many are left)."""
    from ..atomic import atomic_write
    from ..checks.ratchet import pinned
    from ..git import GitRev
    from ..pins import pin_lines, set_pin

    path = os.path.join(root, cfgmod.CONFIG_NAME)
    if ctx.config_data is None or os.path.islink(path):
        return False, 0
    data = new = ctx.config_data
    left = 0
    lines = pin_lines(data)
    was = pin_lines(GitRev(root, parent, [cfgmod.CONFIG_NAME]).read(cfgmod.CONFIG_NAME) or b"") if parent else {}  # (None: a merge)
    for record in ctx.records():  # a conflicted file's count waits for its resolution
        if record.pin is None or record.name not in lines or not ctx.record_docs(record):
            continue
        count = len(pinned(record, ctx.keys(record)))
        index = lines[record.name][0]
        lower = lowered_pin(count, record.pin, was[record.name][1] if record.name in was else None)
        if lower is not None:
            new = set_pin(new, index, lower)
            print(f"{cfgmod.CONFIG_NAME}:{index + 1}: fixed: {record.name} pin: {record.pin} -> {lower} (the change raised it above the keys it counts)")
            if lower > count:
                left += 1  # (keys its parent had are gone: the ratchet's finding, a person's to settle)
            continue
        if count > record.pin:
            new = set_pin(new, index, count)
            print(f"{cfgmod.CONFIG_NAME}:{index + 1}: fixed: {record.name} pin: {record.pin} -> {count} (the keys it counts)")
        elif count < record.pin:
            left += 1
            print(f"{cfgmod.CONFIG_NAME}:{index + 1}: ratchet: {record.name} has {count} keys but its pin is {record.pin}: "
                  "a key is missing; restore it, or retire it and lower the pin (not fixable by rewriting numbers)")
    if new != data:
        atomic_write(path, new)
    return new != data, left
