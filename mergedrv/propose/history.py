"""What `mergedrv init` learns from history: one `git log` for every markdown file.

One ``git log --raw`` pass (no merges, renames followed, no content read)
gives, per file, which commits changed it, by whom and when.  `measure` then
reads, in one ``git diff-tree --stdin -p -U1``, the diffs of a spread sample
of the changes of the files that hold tables: how many only appended at the
end, added, removed or rewrote table rows.  With one line of context a hunk
that reaches the end of the file has no context line after its last change,
so "grew at its end" needs no second read of the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Error
from ..git import Pending, start as start_git

ARCHIVE_WORDS = {"archive", "archives", "archived", "attic", "old", "obsolete", "deprecated", "legacy", "retired", "history",
                 "completed", "superseded", "historical", "frozen"}
_DATED = re.compile(rb"[\s>*#-]*(?:\*\*|__)?\[?\d{4}-\d{2}-\d{2}")
# a table row without its leading pipe (`Name | https://x | USA`, GitHub's
# table too): two unescaped pipes after text that opens no code, prompt,
# quote, heading, list item or HTML, or a link and one pipe with a space each
# side (`[Android](https://x) | Resources`: a two-column table's row; prose
# and code such as `ls | wc -l` open with no link)
_PIPELESS_ROW = re.compile(rb" {0,3}(?:(?![-*+] )[^\s|`$>#<][^|`]*(?<!\\)\|[^|]*(?<!\\)\||\[[^\]|]+\]\([^)|]*\)[^|`]* (?<!\\)\| )")


def row_line(line: bytes) -> bool:
    """Does a line of a diff (without its +/-) read as a table row, with or without its leading pipe?"""
    return line.lstrip()[:1] == b"|" or (b"|" in line and _PIPELESS_ROW.match(line) is not None)

FROZEN_AFTER = 20  # commits of the repository after a file's last change that make it frozen


@dataclass(slots=True)
class FileHistory:
    """One markdown file's history (non-merge commits, newest name)."""

    commits: int = 0  # commits that changed its content, its addition included
    seen: int = 0  # changes (not the addition) whose diff `measure` read
    appends: int = 0  # of those, changes that only added lines at its end
    entries: int = 0  # appends that added a table row or a dated entry
    row_adds: int = 0  # changes that added more table rows than they removed
    row_removals: int = 0  # changes that removed more table rows than they added
    row_edits: int = 0  # changes that rewrote table rows in place
    tail_only: int = 0  # appends that changed nothing above the old end (the old last line may be extended)
    added: bool = False  # the addition is in the history read
    last_index: int = -1  # position of its newest change in the log (0: newest commit)
    first_time: int = 0
    last_time: int = 0
    authors: set[str] = field(default_factory=set)
    samples: list[tuple[str, str]] = field(default_factory=list)  # (commit, name then) spread over its history, newest first
    changed: list[tuple[str, str]] = field(default_factory=list)  # (commit, name then) of its changes, newest first
    adders: set[str] = field(default_factory=set)  # authors of the changes read that added table rows
    merges: list[tuple[str, tuple[str, ...], str]] = field(default_factory=list)  # (merge, parents, name then): both sides changed it
    removed: list[bytes] = field(default_factory=list)  # table rows the changes read removed or rewrote

    @property
    def changes(self) -> int:
        """Commits after its addition."""
        return self.commits - (1 if self.added else 0)


@dataclass(slots=True)
class History:
    files: dict[str, FileHistory] = field(default_factory=dict)
    commits: int = 0  # non-merge commits that changed any markdown file
    authors: dict[str, str] = field(default_factory=dict)  # commit -> author
    added: dict[str, set[str]] = field(default_factory=dict)  # commit -> the names it added (a rename's new name too)
    deleted: dict[str, set[str]] = field(default_factory=dict)  # commit -> the names it deleted (a rename's old name too)

    def of(self, path: str) -> FileHistory:
        return self.files.get(path) or FileHistory()

    def frozen(self, path: str) -> str | None:
        """Why history shows ``path`` frozen, or None."""
        hit = archive_folder(path)
        if hit:
            return f"it sits under the archive folder {hit}/"
        h = self.of(path)
        if h.commits and h.changes == 0 and h.added and h.last_index >= FROZEN_AFTER:
            return f"it never changed after it was added, {h.last_index} commits ago"
        if h.commits >= 2 and len(h.authors) == 1 and h.last_time - h.first_time < 86400 and h.last_index >= FROZEN_AFTER:
            return f"one author wrote it within a day and nobody changed it in the {h.last_index} commits since"
        return None


def archive_folder(path: str) -> str | None:
    """The archive folder ``path`` sits under (`completed/`, `archive/`, `.archive/`, `_old/` …), or None: frozen, whatever history shows."""
    for part in path.split("/")[:-1]:
        word = part.lower().lstrip("._-")
        if word in ARCHIVE_WORDS or word.startswith("archive"):
            return part
    return None


def _unquote(path: bytes) -> str:
    if path.startswith(b'"') and path.endswith(b'"'):
        import codecs

        raw = codecs.escape_decode(path[1:-1])[0]
        return raw.decode("utf-8", "surrogateescape")
    return path.decode("utf-8", "surrogateescape")


def _strip(path: str, prefix: str) -> str:
    return path[len(prefix):] if path.startswith(prefix) else path


class _Change:
    __slots__ = ("path", "old", "plus", "minus", "plus_rows", "minus_rows", "hunks", "tail_context", "new", "minus_text", "plus_text",
                 "entries", "rows_out")

    def __init__(self, path: str) -> None:
        self.path = path
        self.old = path
        self.plus = self.minus = self.plus_rows = self.minus_rows = self.hunks = self.entries = 0
        self.tail_context = False
        self.new = False
        self.minus_text: list[bytes] = []
        self.plus_text: set[bytes] = set()
        self.rows_out: list[bytes] = []

    def appended(self) -> bool:
        """The file grew at its end: its last hunk reaches the end, it adds
        more lines than it removes, and no table row was removed or rewritten
        (prose above may be touched up: a log's check looks at rows only)."""
        if self.new or not self.hunks or self.tail_context or self.plus <= self.minus:
            return False
        return self.minus_rows == 0

    def tail_only(self) -> bool:
        """Only lines added at the end, in one hunk: a prose log's check allows
        nothing more (but the old last line extended)."""
        if not self.appended() or self.hunks != 1:
            return False
        return self.minus == 0 or (self.minus == 1 and any(p.startswith(self.minus_text[0].rstrip(b"\r\n")) for p in self.plus_text))


def _start(root, args: list[str], data: bytes | None = None) -> Pending | None:
    """``git ARGS`` started through mergedrv.git's runner; None when git cannot run."""
    try:
        return start_git(root, "-c", "core.quotepath=off", "-c", "diff.renames=true", *args, input=data)
    except Error:
        return None


def _output(pending: Pending | None) -> bytes | None:
    """A started git's output; None when it failed or git could not run (no history read)."""
    try:
        ran = pending.ran() if pending is not None else None
    except Error:
        return None
    return ran.stdout if ran is not None and ran.ok else None


def _git(root, args: list[str], data: bytes | None = None) -> bytes | None:
    """``git ARGS``' output; None when it fails or git cannot run."""
    return _output(_start(root, args, data))


PATHSPEC = ["--", "*.md", "*.markdown"]
PER_FILE = 20  # changes of one file whose diff is read
PER_CALL = 120  # files measured by one `git diff-tree` each (more: one for all)
MAX_PATHSPEC = 3000  # files measured that are named to `git diff-tree` (more: every markdown file)


MAX_MERGES = 40  # merges of one file whose versions are read


def read(root: str | Path, max_samples: int = 4) -> History:
    """Which commits changed every markdown file under ``root``: one
    `git log --raw` (no content read), and one more for the merges in
    which both sides had changed a file.  An empty History outside git."""
    return start_read(root).history(max_samples)


class Reading:
    """The two `git log` processes of `read`, running while the caller goes on."""

    __slots__ = ("log", "merges")

    def __init__(self, root: str | Path) -> None:
        self.log = _start(root, ["log", "--no-merges", "-M", "--raw", "--format=%x00%H %at %ae", *PATHSPEC])
        self.merges = _start(root, ["log", "--merges", "-c", "--raw", "--no-renames", "--format=%x00%H %P", *PATHSPEC])

    def history(self, max_samples: int = 4) -> History:
        hist = parse_raw(_output(self.log) or b"", max_samples)
        parse_merges(hist, _output(self.merges) or b"")
        return hist


def start_read(root: str | Path) -> Reading:
    """`read`'s git processes started; ``.history()`` waits for them and reads their output."""
    return Reading(root)


def parse_merges(hist: History, out: bytes) -> None:
    """Each merge that differs from every parent in a file (`git log -c
    --raw` lists those): both sides had changed it, and the merge joined them."""
    sha, parents = "", ()
    for line in out.split(b"\n"):
        if line.startswith(b"\0"):
            parts = line[1:].decode().split()
            sha, parents = (parts[0], tuple(parts[1:])) if parts else ("", ())
            continue
        if not line.startswith(b"::") or b"\t" not in line:
            continue
        path = _unquote(line.split(b"\t")[-1])
        h = hist.files.get(path)
        if h is not None and len(h.merges) < MAX_MERGES and len(parents) == 2:
            h.merges.append((sha, parents, path))


def parse_raw(out: bytes, max_samples: int = 4) -> History:
    hist = History()
    alias: dict[str, str] = {}  # an older name -> the file's newest name
    index = -1
    sha, when, author = "", 0, ""
    for line in out.split(b"\n"):
        if line.startswith(b"\0"):
            index += 1
            parts = line[1:].split(b" ")
            sha = parts[0].decode()
            when = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
            author = parts[2].decode("utf-8", "replace") if len(parts) > 2 else ""
            continue
        if not line.startswith(b":"):
            continue
        fields = line.split(b"\t")
        meta = fields[0].split()
        status = meta[-1][:1] if meta else b""
        paths = [_unquote(f) for f in fields[1:]]
        if paths and status in (b"A", b"D", b"R", b"C"):
            if status in (b"D", b"R"):
                hist.deleted.setdefault(sha, set()).add(paths[0])
            if status != b"D":
                hist.added.setdefault(sha, set()).add(paths[-1])
        if status == b"D" or not paths:
            continue
        path = paths[-1]
        name = alias.get(path, path)
        if status in (b"R", b"C") and len(paths) == 2:
            if status == b"R":
                alias[paths[0]] = name
            if meta[-1] == b"R100":
                continue  # a pure rename is no change of content
        h = hist.files.setdefault(name, FileHistory())
        h.commits += 1
        if h.last_index < 0:
            h.last_index, h.last_time = index, when
        h.first_time = when
        h.authors.add(author)
        hist.authors[sha] = author
        if status == b"A":
            h.added = True
        elif len(h.changed) < 400:
            h.changed.append((sha, path))
        if len(h.samples) < 5000:
            h.samples.append((sha, path))
    hist.commits = index + 1
    for h in hist.files.values():
        h.samples = _spread(h.samples, max_samples)
    return hist


def measure(root: str | Path, hist: History, paths: list[str], per_file: int = PER_FILE) -> None:
    """Read the diffs of up to ``per_file`` changes of each of ``paths`` and
    fill in how each changed: appended at its end, rows added, removed or
    rewritten.  Up to PER_CALL files get a `git diff-tree --stdin` each, limited
    to that file (a commit's patches of the other files are most of the bytes
    otherwise); more files share one, limited to the files measured."""
    start_measure(root, hist, paths, per_file).finish()


IN_FLIGHT = 64  # `git diff-tree` processes of `measure` running at once (all of them, on most trees: one started only once an earlier is waited for starts late)


class Measuring:
    """`measure`'s git processes, up to IN_FLIGHT running while the caller
    goes on; ``finish()`` waits for each in turn (starting the next) and tallies it."""

    __slots__ = ("root", "hist", "wanted", "calls", "running")

    def __init__(self, root: str | Path, hist: History, wanted: dict, calls: list[tuple[list[str] | None, list[str]]]) -> None:
        self.root, self.hist, self.wanted, self.calls = root, hist, wanted, calls
        self.running = [self._start(i) for i in range(min(IN_FLIGHT, len(calls)))]

    def _start(self, i: int) -> Pending | None:
        names, shas = self.calls[i]
        spec = ["--", *(":(literal)" + n for n in names)] if names else PATHSPEC
        return _start(self.root, ["diff-tree", "--stdin", "--no-color", "--no-ext-diff", "--no-textconv", "-M", "-p", "-U1",
                                  "--format=%x00%H", *spec], "".join(s + "\n" for s in shas).encode())

    def finish(self) -> None:
        for i in range(len(self.calls)):
            out = _output(self.running[i])
            if len(self.running) < len(self.calls):
                self.running.append(self._start(len(self.running)))
            _tally(self.hist, self.wanted, out or b"")


def start_measure(root: str | Path, hist: History, paths: list[str], per_file: int = PER_FILE) -> Measuring:
    """`measure`'s git processes started; ``.finish()`` reads them into ``hist``."""
    wanted: dict[tuple[str, str], FileHistory] = {}
    for path in paths:
        h = hist.of(path)
        for sha, name in _spread(h.changed, per_file):
            wanted[(sha, name)] = h
    by_name: dict[str, list[str]] = {}
    for sha, name in wanted:
        by_name.setdefault(name, []).append(sha)
    calls: list[tuple[list[str] | None, list[str]]]
    if len(by_name) <= PER_CALL:
        calls = _grouped(hist, by_name, {name: wanted[(shas[0], name)] for name, shas in by_name.items()}, per_file)
    else:
        names = sorted(by_name)
        calls = [(names if len(names) <= MAX_PATHSPEC else None, list(dict.fromkeys(sha for sha, _ in wanted)))] if wanted else []
    return Measuring(root, hist, wanted, calls)


GROUP = 16  # files whose every change is read that share one `git diff-tree`


def _grouped(hist: History, by_name: dict[str, list[str]], owner: dict[str, FileHistory],
             per_file: int) -> list[tuple[list[str] | None, list[str]]]:
    """One `git diff-tree` call for each name measured, but names of files
    whose every change is read share one, up to GROUP: their diffs at the
    others' commits are diffs they want.  Each diff reads as in a call of its
    own: no commit of a shared call both adds a name of it and deletes one
    (a rename between two of its names would read as a change, not as the
    new file its own call shows), and the commits go in the log's order, each
    file's in the order its own call reads them."""
    calls: list[tuple[list[str] | None, list[str]]] = []
    groups: list[tuple[list[str], list[str], set[str]]] = []  # (names, commits, names' set)
    for name, shas in by_name.items():
        h = owner[name]
        if len(h.changed) > per_file or len(h.changed) >= 400:
            calls.append(([name], shas))
            continue
        for names, commits, known in groups:
            if len(names) < GROUP and _apart(hist, known | {name}, commits + shas):
                names.append(name)
                known.add(name)
                commits += [s for s in shas if s not in commits]
                break
        else:
            groups.append(([name], list(shas), {name}))
    at = {sha: i for i, sha in enumerate(hist.authors)}  # (the log's order, newest first: each file's diffs come in its own order)
    return calls + [(names, sorted(commits, key=lambda c: at.get(c, len(at)))) for names, commits, _ in groups]


def _apart(hist: History, names: set[str], commits: list[str]) -> bool:
    """No commit of ``commits`` both adds one of ``names`` and deletes one."""
    return not any(names & hist.added.get(c, set()) and names & hist.deleted.get(c, set()) for c in commits)


def _tally(hist: History, wanted: dict, out: bytes) -> None:
    for sha, change in _patches(out):
        h = wanted.pop((sha, change.path), None)
        if h is None or change.new:
            continue
        h.seen += 1
        if change.plus_rows > change.minus_rows:
            h.adders.add(hist.authors.get(sha, sha))
        h.appends += change.appended()
        h.entries += change.appended() and change.entries > 0
        h.tail_only += change.tail_only()
        if change.plus_rows > change.minus_rows:
            h.row_adds += 1
        elif change.minus_rows > change.plus_rows:
            h.row_removals += 1
        if change.minus_rows and change.plus_rows:
            h.row_edits += 1
        if len(h.removed) < 5000:
            h.removed += [r for r in change.rows_out if r not in change.plus_text]


def _patches(out: bytes) -> list[tuple[str, _Change]]:
    """(commit, change) of every file in patch output whose commits start with NUL."""
    found: list[tuple[str, _Change]] = []
    sha = ""
    change: _Change | None = None
    in_hunk = False
    last_kind = b""
    for line in out.split(b"\n"):
        if in_hunk:
            assert change is not None  # (a hunk is read inside a file's change)
            c0 = line[:1]
            if c0 == b"+":
                change.plus += 1
                change.plus_text.add(line[1:])
                change.plus_rows += row_line(line[1:])
                change.entries += bool(_DATED.match(line, 1))
                last_kind = c0
                continue
            if c0 == b"-":
                change.minus += 1
                if change.minus <= 2:
                    change.minus_text.append(line[1:])
                if row_line(line[1:]):
                    change.minus_rows += 1
                    if len(change.rows_out) < 500:
                        change.rows_out.append(line[1:])
                last_kind = c0
                continue
            if c0 == b" ":
                last_kind = c0
                continue
            if c0 == b"\\":
                continue
            change.tail_context = last_kind == b" "
            in_hunk = False
        if line.startswith(b"\0"):
            sha, change = line[1:].split(b" ")[0].decode(), None
        elif line.startswith(b"@@"):
            if change is not None:
                change.hunks += 1
                in_hunk, last_kind = True, b""
        elif line.startswith(b"diff --git "):
            change = _Change("")
            found.append((sha, change))
        elif change is None:
            continue
        elif line.startswith(b"new file mode") or line == b"--- /dev/null":
            change.new = True
        elif line.startswith(b"+++ "):
            change.path = "" if line == b"+++ /dev/null" else _strip(_unquote(line[4:]), "b/")
        elif line.startswith(b"rename to "):
            change.path = _unquote(line[10:])
    if in_hunk and change is not None:
        change.tail_context = last_kind == b" "
    return found


def _spread(shas: list[tuple[str, str]], n: int) -> list[tuple[str, str]]:
    """Up to ``n`` commits spread over ``shas`` (newest first), the newest included."""
    if len(shas) <= n:
        return shas
    step = (len(shas) - 1) / (n - 1)
    return [shas[round(i * step)] for i in range(n)]


def read_versions(root: str | Path, wanted: list[tuple[str, str]]) -> dict[tuple[str, str], bytes]:
    """The content of each (commit, path), in one `git cat-file --batch`."""
    return start_versions(root, wanted).versions()


class ReadingVersions:
    """`read_versions`' git process, running while the caller goes on."""

    __slots__ = ("wanted", "pending")

    def __init__(self, root: str | Path, wanted: list[tuple[str, str]]) -> None:
        self.wanted = wanted
        data = b"".join(f"{sha}:{path}\n".encode("utf-8", "surrogateescape") for sha, path in wanted)
        try:
            self.pending: Pending | None = start_git(root, "cat-file", "--batch", input=data) if wanted else None
        except Error:
            self.pending = None

    def versions(self) -> dict[tuple[str, str], bytes]:
        try:
            ran = self.pending.ran() if self.pending is not None else None
        except Error:
            ran = None
        return _batch(self.wanted, ran.stdout) if ran is not None else {}


def start_versions(root: str | Path, wanted: list[tuple[str, str]]) -> ReadingVersions:
    """`read_versions`' git process started; ``.versions()`` waits for it and reads its output."""
    return ReadingVersions(root, wanted)


def _batch(wanted: list[tuple[str, str]], buf: bytes) -> dict[tuple[str, str], bytes]:
    """Each wanted version's content in `git cat-file --batch` output."""
    out: dict[tuple[str, str], bytes] = {}
    pos = 0
    for item in wanted:
        nl = buf.find(b"\n", pos)
        if nl < 0:
            break
        head = buf[pos:nl].split()
        pos = nl + 1
        if len(head) < 3 or head[1] != b"blob":
            continue
        size = int(head[2])
        out[item] = buf[pos : pos + size]
        pos += size + 1
    return out
