"""Git access, the one way: `run` (the one git runner: status, stdout, stderr),
the repository's state (toplevel, git paths, the operation in progress), and
snapshots of the files a check reads (working tree, index, a commit).  The
checks import pygit2 only here and only when a snapshot needs it (the
anchors read their upstream in anchors/upstream.py).
"""

from __future__ import annotations

import os

from .errors import Error
from .values import Value

GitError = Error  # a git problem to show the user as one line (no traceback)


class Ran(Value):
    """What one git process did: its exit status and its output, as bytes."""

    __slots__ = ("status", "stdout", "stderr")

    def __init__(self, status: int, stdout: bytes, stderr: bytes) -> None:
        self.status = status
        self.stdout = stdout
        self.stderr = stderr

    @property
    def ok(self) -> bool:
        return self.status == 0

    def text(self) -> str:
        """stdout as text, stripped."""
        return self.stdout.decode("utf-8", "surrogateescape").strip()

    def why(self) -> str:
        """git's own message for a failure (its stderr), or the exit status."""
        return self.stderr.decode("utf-8", "replace").strip() or f"exit {self.status}"


def run(cwd: str | os.PathLike, *args: str, input: bytes | None = None, env: dict[str, str] | None = None) -> Ran:
    """``git ARGS`` in ``cwd``, whatever its exit status; a GitError only when git cannot run."""
    from .spawn import captured

    try:
        return Ran(*captured(cwd, ["git", *args], input, env))
    except OSError as exc:
        raise _cannot_run(cwd, exc) from None


def _cannot_run(cwd: str | os.PathLike, exc: OSError) -> GitError:
    return GitError(f"cannot run git: {exc.strerror}" if os.path.isdir(cwd)
                    else f"{os.fspath(cwd)}: {'not a directory' if os.path.exists(cwd) else 'no such directory'}")


class Pending:
    """A git process started in the background by `start`; ``ran()`` waits for it (a
    GitError only when git cannot run, as `run` raises it)."""

    __slots__ = ("cwd", "args", "input", "child")

    def __init__(self, cwd: str | os.PathLike, args: tuple[str, ...], input: bytes | None) -> None:
        from .spawn import started

        self.cwd, self.args, self.input = cwd, args, input
        try:
            self.child = started(cwd, ["git", *args], input)
        except OSError as exc:
            raise _cannot_run(cwd, exc) from None

    def ran(self) -> Ran:
        if self.child is None:  # (no background process here: run it now)
            return run(self.cwd, *self.args, input=self.input)
        return Ran(*self.child.result())


def start(cwd: str | os.PathLike, *args: str, input: bytes | None = None) -> Pending:
    """``git ARGS`` started in ``cwd`` while the caller goes on; `Pending.ran` gives what `run` gives."""
    return Pending(cwd, args, input)


def git(cwd: str | os.PathLike, *args: str, input: bytes | None = None, env: dict[str, str] | None = None) -> bytes:
    """``git ARGS`` in ``cwd``: its output; a GitError with git's own message
    when it fails or cannot run."""
    ran = run(cwd, *args, input=input, env=env)
    if not ran.ok:
        raise GitError(f"git {' '.join(args)}: {ran.why()}")
    return ran.stdout


def git_or_none(cwd: str | os.PathLike, *args: str) -> bytes | None:
    """``git ARGS``' output, or None when it fails (a question git answers by failing)."""
    ran = run(cwd, *args)
    return ran.stdout if ran.ok else None


def git_text(root: str | os.PathLike, *args: str) -> str | None:
    """The output of a git command as stripped text, or None if it failed."""
    out = git_or_none(root, *args)
    return None if out is None else out.decode("utf-8", "surrogateescape").strip()


# --- the repository's state ----------------------------------------------------


def git_path(root: str | os.PathLike, name: str) -> str:
    """``name`` inside the git folder (`rev-parse --git-path`: linked worktrees too), as a path."""
    return os.path.join(root, git(root, "rev-parse", "--git-path", name).decode("utf-8", "surrogateescape").strip())


def batch_blobs(out: bytes) -> list[bytes] | None:
    """The blobs `git cat-file --batch` printed, in order (None if an object
    is missing or not a blob, or the output is cut short)."""
    found, at = [], 0
    while at < len(out):
        end = out.find(b"\n", at)
        fields = out[at:end].split() if end >= 0 else []
        if len(fields) != 3 or fields[1] != b"blob" or not fields[2].isdigit():
            return None
        size = int(fields[2])
        found.append(out[end + 1 : end + 1 + size])
        at = end + 2 + size
    return found


def merge_in_progress(root: str | os.PathLike) -> bool:
    """Whether a merge is being concluded: MERGE_HEAD exists (in a linked worktree too).

    Without a git process when the git folder is plain to see and holds no
    MERGE_HEAD (every commit's hook asks); git itself decides otherwise."""
    folder = _plain_git_dir(root)
    if folder is not None and not os.path.lexists(os.path.join(folder, "MERGE_HEAD")):
        return False
    return run(root, "rev-parse", "-q", "--verify", "MERGE_HEAD").ok


def _plain_git_dir(root: str | os.PathLike) -> str | None:
    """The (worktree's) git folder of the work tree at ``root``: $GIT_DIR, or
    its ``.git`` folder, or the folder a ``.git`` file names; None if unsure."""
    env = os.environ.get("GIT_DIR")
    found = os.path.join(root, env) if env else os.path.join(root, ".git")
    if os.path.isdir(found):
        return found
    if env or not os.path.isfile(found):
        return None
    try:
        with open(found, encoding="utf-8") as fh:
            line = fh.readline().strip()
    except (OSError, UnicodeDecodeError):
        return None
    target = os.path.join(root, line[7:].strip()) if line.startswith("gitdir:") else ""
    return target if target and os.path.isdir(target) else None


OPERATIONS = (("cherry-pick", "CHERRY_PICK_HEAD"), ("revert", "REVERT_HEAD"), ("merge", "MERGE_HEAD"))


def operation(root: str | os.PathLike) -> tuple[str, str] | None:
    """What git is in the middle of, and the ref naming the commit it applies:
    ("rebase", "REBASE_HEAD"), ("cherry-pick", ...), ("revert", ...), ("merge", "MERGE_HEAD"), or None."""
    rebasing = os.path.isdir(git_path(root, "rebase-merge")) or os.path.isdir(git_path(root, "rebase-apply"))
    if rebasing and os.path.isfile(git_path(root, "REBASE_HEAD")):
        return "rebase", "REBASE_HEAD"
    for op, ref in OPERATIONS:
        if os.path.isfile(git_path(root, ref)):
            return op, ref
    return None


def toplevel(start: str | os.PathLike = ".") -> str:
    """The top of the working tree that holds ``start``."""
    out = git_or_none(start, "rev-parse", "--show-toplevel")
    if out is None:
        raise GitError(f"{os.path.abspath(start)} is not inside a git working tree")
    return out.decode("utf-8", "surrogateescape").strip()


def core():
    """pygit2, imported when a snapshot first needs it (never on the merge
    driver's path)."""
    import pygit2

    return pygit2


def repository(start: str | os.PathLike = ".", *, index: bool = False):
    """The repository holding ``start``, a pygit2.Repository (commits, trees,
    blobs, and the index; ``index`` is kept for the callers that say so)."""
    git2 = core()
    path = git2.discover_repository(str(start))
    if path is None:
        raise GitError(f"{os.path.abspath(start)} is not inside a git repository")
    return git2.Repository(path)


def config_value(repo, name: str) -> str | None:
    """``git config --get NAME`` in ``repo`` (git's own reading: includes, env)."""
    out = git_or_none(repo.workdir or repo.path, "config", "--get", name)
    return None if out is None else out.decode("utf-8", "replace").strip()


class Snapshot:
    """Read-only view of a set of files: ``read(path)`` and ``paths()``."""

    label = ""

    def read(self, path: str) -> bytes | None:  # pragma: no cover - interface
        raise NotImplementedError

    def paths(self) -> list[str]:  # pragma: no cover - interface
        raise NotImplementedError


class WorkTree(Snapshot):
    """The files as they are on disk (tracked and untracked, not ignored)."""

    label = "working tree"

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = os.fspath(root)

    def read(self, path: str) -> bytes | None:
        """The file's bytes as git would store them: a symlink is its target's
        name (never the content it points to), and a path through a symlinked
        folder, or leading outside the repository, is no file."""
        full = os.path.join(self.root, path)
        try:
            if os.path.islink(full):
                return os.fsencode(os.readlink(full))
            top = os.path.realpath(self.root)
            if os.path.commonpath([top, os.path.realpath(full)]) != top or os.path.realpath(os.path.dirname(full)) != os.path.join(top, os.path.dirname(os.path.normpath(path))).rstrip("/"):
                return None
            with open(full, "rb") as f:
                return f.read()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError, ValueError):
            return None

    def paths(self) -> list[str]:
        out = git_or_none(self.root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
        if out:
            names = {p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}
            return sorted(p for p in names if os.path.isfile(os.path.join(self.root, p)) or os.path.islink(os.path.join(self.root, p)))
        found = []
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = [d for d in dirs if d != ".git"]
            rel = os.path.relpath(folder, self.root)
            found += [name if rel == "." else f"{rel}/{name}" for name in files]
        return sorted(found)


class GitRev(Snapshot):
    """Files of a revision read with git's plumbing (no pygit2).

    The parent of a working-tree check: one `git ls-tree` gives each file's
    blob id, so an unchanged file is never read (see `blob_id`), and a changed
    one is read with `git cat-file` when a check asks for it.
    """

    def __init__(self, root: str, rev: str, paths: list[str] | None = None) -> None:
        self._list(root, rev, paths)

    def _list(self, root: str, rev: str, paths: list[str] | None) -> None:
        """Start over from one `git ls-tree` of ``rev`` (``paths``: of these alone)."""
        self.root = root
        self.rev = rev
        self.label = rev
        self._data: dict[str, bytes | None] = {}
        self._ids: dict[str, str] = {}
        self.offered: dict[str, bytes] = {}
        self._peer: GitRev | None = None
        self._all = paths is None
        limit = [] if paths is None else ["--", *[f":(literal){p}" for p in paths]]
        out = git_or_none(root, "ls-tree", "-r", "-z", "--full-tree", rev, *limit)
        self.exists = out is not None
        for entry in (out or b"").split(b"\0"):
            meta, _, name = entry.partition(b"\t")
            fields = meta.split()
            if len(fields) == 3 and fields[1] == b"blob":
                self._ids[name.decode("utf-8", "surrogateescape")] = fields[2].decode()

    def blob_id(self, path: str) -> str | None:
        return self._ids.get(path)

    @property
    def lists_every_file(self) -> bool:
        """Whether the listing is the whole tree's (not the configured paths' alone)."""
        return self._all

    def prefetch(self, paths: list[str], other: GitRev | None = None) -> None:
        """Read these files in one `git cat-file --batch` (a hook reads every
        configured file; one process instead of one per file); ``other``:
        its versions of them too, where they are other blobs (HEAD beside
        the index: the touched files' old bytes), in the same process."""
        owners = [self] if other is None else [self, other]
        wanted = []
        for snap in owners:
            for p in dict.fromkeys(paths):
                oid = snap._ids.get(p)
                if oid is None or p in snap._data or (snap is other and self._ids.get(p) == oid):
                    continue
                wanted.append((snap, p, oid))
        if len(wanted) < 2:
            return
        ran = run(self.root, "cat-file", "--batch", input="".join(f"{oid}\n" for _, _, oid in wanted).encode())
        if not ran.ok:
            return
        found = batch_blobs(ran.stdout)
        if found is None or len(found) != len(wanted):
            return  # anything unexpected: read file by file
        for (snap, path, _), data in zip(wanted, found):
            snap._data[path] = data

    def seed(self, other: GitRev) -> None:
        """Take the bytes ``other`` read of each file that is the same blob here
        (the index after `check --fix` restaged: only the fixed files differ),
        and those offered to it (`offer`) that are this snapshot's blobs."""
        for path, data in other._data.items():
            blob = self._ids.get(path)
            if blob is not None and blob == other._ids.get(path) and path not in self._data:
                self._data[path] = data
        for path, data in other.offered.items():
            blob = self._ids.get(path)
            if blob is not None and path not in self._data and blob_id_of(data, len(blob)) == blob:
                self._data[path] = data

    def share(self, other: GitRev) -> None:
        """Read a file that is the same blob in ``other`` from what ``other``
        read of it (HEAD beside the index: the files a change did not touch)."""
        self._peer = other

    def offer(self, path: str, data: bytes) -> None:
        """Bytes a later snapshot may hold for ``path`` (what `--fix` restaged), taken by `seed` if they are its blob."""
        self.offered[path] = data

    def has(self, path: str) -> bool:
        return path in self._ids

    def read(self, path: str) -> bytes | None:
        if path not in self._data:
            blob = self._ids.get(path)
            peer = self._peer
            if blob is not None and peer is not None and path in peer._data and peer._ids.get(path) == blob:
                self._data[path] = peer._data[path]
            elif blob is None and self._all:
                self._data[path] = None
            elif blob is not None and (same := _on_disk(self.root, path, blob)) is not None:
                self._data[path] = same  # the work tree holds these very bytes (a hook's config): no git process
            else:
                self._data[path] = git_or_none(self.root, "cat-file", "blob", blob or f"{self.rev}:{path}")
        return self._data[path]

    def paths(self) -> list[str]:
        if not self._all:
            self._list(self.root, self.rev, None)
        return sorted(self._ids)


_ON_DISK_MAX = 8 << 20  # hashing 8 MiB costs less than starting one git process to read them


def _on_disk(root: str, path: str, blob: str) -> bytes | None:
    """The bytes of the regular file ``root/path`` (up to 8 MiB) if git's id of them is ``blob``, else None."""
    import stat

    full = os.path.join(root, path)
    try:
        if not stat.S_ISREG(os.lstat(full).st_mode) or os.path.getsize(full) > _ON_DISK_MAX:
            return None
        with open(full, "rb") as fh:
            data = fh.read(_ON_DISK_MAX + 1)
    except OSError:
        return None
    return data if blob_id_of(data, len(blob)) == blob else None


def blob_id_of(data: bytes, digits: int = 40) -> str:
    """git's id of a blob holding ``data`` (``digits``: 64 in a SHA-256 repository)."""
    import hashlib

    h = hashlib.sha256() if digits == 64 else hashlib.sha1()
    h.update(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()


class Tree(Snapshot):
    """The files of a git tree (a commit's, or one written from the index)."""

    def __init__(self, repo, tree, label: str = "") -> None:
        self.repo = repo
        self.tree = tree
        self.label = label
        self._paths: list[str] | None = None

    def read(self, path: str) -> bytes | None:
        try:
            entry = self.tree[path]
        except KeyError:
            return None
        obj = self.repo.get(entry.id)
        if obj is None or obj.type_str != "blob":
            return None
        return obj.data

    def paths(self) -> list[str]:
        if self._paths is None:
            out: list[str] = []

            def walk(tree, prefix: str) -> None:
                for entry in tree:
                    name = prefix + entry.name
                    if entry.type_str == "tree":
                        walk(self.repo.get(entry.id), name + "/")
                    elif entry.type_str == "blob":
                        out.append(name)

            walk(self.tree, "")
            self._paths = sorted(out)
        return self._paths


def resolve_commit(repo, rev: str, what: str = "revision"):
    """The commit ``rev`` names; a GitError if it names nothing or no commit
    (a tree, a blob, a tag of either)."""
    git2 = core()
    try:
        obj = repo.revparse_single(rev)
    except (KeyError, ValueError, git2.GitError, git2.InvalidSpecError):
        hint = "e.g. `git fetch --unshallow`" if repo.is_shallow else "or check its spelling"
        raise GitError(f"{what} {rev!r}: no commit yet (the repository is empty)" if rev == "HEAD" and repo.head_is_unborn
                       else f"{what} {rev!r} does not exist in this repository (fetch it, {hint})") from None
    try:
        return obj.peel(git2.Commit)
    except (KeyError, ValueError, git2.GitError, git2.InvalidSpecError):
        kind = obj.type_str
        if kind == "tag":
            kind = f"tag of a {obj.peel(None).type_str}"
        raise GitError(f"{what} {rev!r} names a {kind}, not a commit") from None


def commit_snapshot(repo, rev: str) -> Tree:
    """The tree of commit ``rev``."""
    commit = resolve_commit(repo, rev)
    return Tree(repo, commit.tree, commit.short_id)


def index_snapshot(repo) -> Tree:
    """The staged tree (what the next commit would record).

    Inside a hook git may name another index in GIT_INDEX_FILE (``git commit
    -a`` and ``git commit PATH`` stage into a temporary one): read that one.
    """
    return Tree(repo, index_tree(repo), "index")


def index_tree(repo):
    """The tree object the next commit would record (GIT_INDEX_FILE honoured);
    ``repo`` is one opened with ``repository(..., index=True)``."""
    import pygit2

    if not isinstance(repo, pygit2.Repository):
        raise TypeError("index_tree needs repository(..., index=True)")
    other = os.environ.get("GIT_INDEX_FILE")
    try:
        if other:
            index = pygit2.Index(os.path.abspath(other))
        else:
            index = repo.index
            index.read()
        if index.conflicts is not None:
            raise GitError("the index has unresolved conflicts; resolve them (or run `mergedrv resolve`) first")
        return repo.get(index.write_tree(repo))
    except pygit2.GitError as exc:
        raise GitError(f"cannot read the index: {exc}") from None


def merge_sides(repo, commits) -> dict:
    """For a merge: each parent's tree and the merge base's, as the checks'
    ``sides`` and ``base`` (the ratchet names what each side added)."""
    if len(commits) < 2:
        return {}
    sides = [Tree(repo, c.tree, c.short_id) for c in commits]
    base_id = repo.merge_base(commits[0].id, commits[1].id)
    base = Tree(repo, repo.get(base_id).tree, "base") if base_id is not None else None
    return {"sides": sides, "base": base}
