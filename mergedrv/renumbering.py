"""Moving numbered keys (`mergedrv renumber`, `update-branch --renumber`): which keys
a branch added that REF took too, their next free numbers, and the move itself
(the row, whole-word references and file names in the branch's changes, git mv,
a commit); and the record reading `mergedrv next` shares."""

from __future__ import annotations

import os
import posixpath

from . import config, model, numbering
from .atomic import atomic_write
from .errors import Error
from .git import GitRev, git, git_or_none, operation, toplevel
from .values import Value


class Move(Value):
    """One key moved: ``old`` -> ``new``, the record file and 1-based line of
    the branch's row, the row, and the files renamed (old path -> new path)."""

    __slots__ = ("old", "new", "path", "line", "row", "renames")

    def __init__(self, old: str, new: str, path: str, line: int, row: str, renames: dict[str, str] | None = None) -> None:
        self.old = old
        self.new = new
        self.path = path
        self.line = line
        self.row = row
        self.renames = renames or {}


def load_config(root: str) -> config.Config:
    """The repository's configuration; an error if it has none."""
    path = os.path.join(root, config.CONFIG_NAME)
    if not os.path.exists(path):
        raise Error(f"{config.CONFIG_NAME}: not found at the top of the working tree; run `mergedrv init`")
    return config.load(path)


def record_rows(cfg: config.Config, record: config.Record, snap) -> dict[str, tuple[str, int, str]]:
    """Every key of ``record`` in a snapshot: key -> (path, 1-based line, row text).
    Keys of a second key column (namespaced) are left out."""
    out: dict[str, tuple[str, int, str]] = {}
    for path in snap.paths():
        if cfg.record_for(path) is not record:
            continue
        data = snap.read(path)
        if not data or b"\0" in data:
            continue
        try:
            doc = model.parse(data, record.key, False, record.key_pattern)
        except (model.Unmodelable, ValueError):
            continue  # conflict markers, or not UTF-8: no keys read here
        for row in doc.rows():
            if row.key and model.NS not in row.key and row.key not in out:
                out[row.key] = (path, row.line + 1, row.lines[0].decode("utf-8", "replace"))
    return out


def numbered_records(cfg: config.Config) -> list:
    return [r for r in cfg.records if numbering.is_numbered(r)]


def _commit_of(root: str, rev: str) -> str:
    out = git_or_none(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if out is None:
        raise Error(f"--onto {rev}: not a commit (a branch, tag or revision this repository has)")
    return out.decode().strip()


def _changed(root: str, base: str, only: str = "d") -> list[str]:
    """The files this branch changed since ``base`` that HEAD still has (``only="A"``: the files it added)."""
    out = git(root, "diff", "--name-only", "-z", "--no-renames", f"--diff-filter={only}", base, "HEAD")
    return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]


def plan(root: str, cfg: config.Config, onto: str) -> tuple[list[Move], list[str], list[str]]:
    """The moves, the keys it cannot move (``path:line: why``) and the files the branch changed."""
    ref = _commit_of(root, onto)
    base_out = git_or_none(root, "merge-base", "HEAD", ref)
    if base_out is None:
        raise Error(f"--onto {onto}: this branch and {onto} share no history (no merge base)")
    base = base_out.decode().strip()
    changed = _changed(root, base)
    added = set(_changed(root, base, "A"))
    moves: list[Move] = []
    stuck: list[str] = []
    snaps = [GitRev(root, rev) for rev in (base, "HEAD", ref)]
    for record in numbered_records(cfg):
        o, a, b = (record_rows(cfg, record, s) for s in snaps)
        colliding = [k for k in a if k not in o and k in b and numbering.split(k) and a[k][2].strip() != b[k][2].strip()]
        movable = []
        for k in colliding:
            why = _cannot_move(k, cfg, snaps, changed)
            if why is None:
                movable.append(k)
            else:
                stuck.append(f"{a[k][0]}:{a[k][1]}: {k}: cannot move: {why}")
        for old, new in numbering.moves(movable, a.keys(), b.keys(), o.keys()).items():
            path, line, row = a[old]
            moves.append(Move(old, new, path, line, row, _renames(old, new, path, row, (changed, added), snaps[1], root)))
    return moves, stuck, changed


def _cannot_move(key: str, cfg: config.Config, snaps: list, changed: list[str]) -> str | None:
    """Why ``key`` cannot move: a row the base had, that the branch and REF
    both changed, cites it (the merge of that row cannot tell whose key it means)."""
    for record in cfg.records:
        o, a, b = (record_rows(cfg, record, s) for s in snaps)
        for k, (path, line, row) in a.items():
            if k == key or k not in o or k not in b or path not in changed:
                continue
            if row != o[k][2] and b[k][2] != o[k][2] and numbering.rewrite(row, {key: key})[1]:
                return f"row {k} ({path}:{line}) cites it, and this branch and REF both changed that row"
    return None


def _renames(old: str, new: str, path: str, row: str, files: tuple[list[str], set[str]], head, root: str) -> dict[str, str]:
    """Files the branch changed that the row links to, that carry the key in
    their name, or that the branch added named from the number on
    (``0013-use-z.md``): old path -> new path."""
    changed, added = files
    digits = old[len(old) - (numbering.split(old) or ("", 0, 0))[2]:]
    linked = set()
    for target in numbering.link_targets(row):
        if "://" in target:
            continue
        linked.add(posixpath.normpath(posixpath.join(posixpath.dirname(path), target)))
    out: dict[str, str] = {}
    for p in changed:
        name = posixpath.basename(p)
        named = p in added and name.startswith(digits) and not name[len(digits):][:1].isdigit()
        if p not in linked and not named and numbering.rewrite(name, {old: old})[1] == 0:
            continue
        fresh = numbering.renamed_name(name, old, new)
        if fresh is None:
            continue
        dest = posixpath.join(posixpath.dirname(p), fresh)
        if head.has(dest) or os.path.lexists(os.path.join(root, dest)):
            raise Error(f"{p}: cannot rename it to {dest}: that file exists")
        out[p] = dest
    return out


def _mapping(moves: list[Move]) -> dict[str, str]:
    """Every word the moves rewrite: keys, and the renamed files' names."""
    out = {m.old: m.new for m in moves}
    for m in moves:
        for src, dest in m.renames.items():
            out[posixpath.basename(src)] = posixpath.basename(dest)
    return out


def _require_clean(root: str) -> None:
    state = operation(root)
    if state is not None:
        raise Error(f"a {state[0]} is in progress: finish or abort it first (git {state[0]} --abort), renumber, then {state[0]} again")
    dirty = git(root, "status", "--porcelain", "--untracked-files=no").decode().strip()
    if dirty:
        raise Error("the working tree has uncommitted changes; commit or stash them first (`mergedrv renumber` commits its move)")


def apply(root: str, moves: list[Move], changed: list[str]) -> list[tuple[str, int]]:
    """Rename the files (git mv) and rewrite the changed files: [(path, replacements)]."""
    renames = {src: dest for m in moves for src, dest in m.renames.items()}
    for src, dest in renames.items():
        os.makedirs(os.path.dirname(os.path.join(root, dest)) or root, exist_ok=True)
        git(root, "mv", "--", src, dest)
    mapping = _mapping(moves)
    done = []
    for p in changed:
        p = renames.get(p, p)
        full = os.path.join(root, p)
        try:
            with open(full, "rb") as fh:
                data = fh.read()
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # a binary or unreadable file carries no reference to rewrite
        if os.path.islink(full) or "\0" in text:
            continue
        new, n = numbering.rewrite(text, mapping)
        if n:
            atomic_write(full, new.encode("utf-8"))
            git(root, "add", "--", p)
            done.append((p, n))
    return done


def describe(moves: list[Move], onto: str) -> list[str]:
    lines = []
    for m in moves:
        lines.append(f"{m.path}:{m.line}: {m.old} -> {m.new} ({m.old} is taken on {onto})")
        lines.extend(f"  rename {src} -> {dest}" for src, dest in m.renames.items())
    return lines


def move(root: str, onto: str, say, dry_run: bool = False, commit: bool = True, verify: bool = True) -> tuple[list[Move], list[str]]:
    """Plan and make the moves (committed unless ``commit`` is False): (moves, keys it cannot move)."""
    cfg = load_config(root)
    if not numbered_records(cfg):
        raise Error(f"{config.CONFIG_NAME}: no record has numbered keys (a key_pattern ending in digits, or numbered = true)")
    if not dry_run:
        _require_clean(root)
    moves, stuck, changed = plan(root, cfg, onto)
    for line in describe(moves, onto):
        say(line)
    if dry_run or not moves:
        return moves, stuck
    for p, n in apply(root, moves, changed):
        say(f"  rewrote {p} ({n} occurrence{'s' if n != 1 else ''})")
    if commit:
        shown = ", ".join(f"{m.old} -> {m.new}" for m in moves)
        git(root, "commit", "-q", *([] if verify else ["--no-verify"]), "-m", f"renumber {shown}: the numbers are taken on {onto}")
        say(f"committed: renumber {shown}")
    return moves, stuck
