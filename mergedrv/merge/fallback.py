"""Line-based text merge, delegated to `git merge-file` (the one place in
the merge that writes files: the three versions, to a temporary folder, for
git to read): the whole-file fallback (`text_result`), the virtual ancestor
of a criss-cross merge, and reading git's conflict markers back (`hunks`).

mergedrv never writes its own diff3: prose, undeclared files and every
fallback go through git's own merge, so they come out exactly as git would
merge them.
"""

from __future__ import annotations

import os
from .. import rx

from .. import model
from .values import Conflict, Markers, Result


class TextMerge:
    """Merged bytes and the number of conflict hunks (-1: git refused)."""

    __slots__ = ("data", "conflicts")

    def __init__(self, data: bytes, conflicts: int) -> None:
        self.data = data
        self.conflicts = conflicts


def git_merge_file(base: bytes, ours: bytes, theirs: bytes, markers: Markers) -> TextMerge:
    """`git merge-file --diff3` of three byte strings, written to a temporary
    folder for it (git 2.39 merges files only), run through the one process
    runner (`mergedrv.spawn`) in the current folder."""
    import tempfile  # only when both sides changed the same file's text

    from ..spawn import captured

    with tempfile.TemporaryDirectory(prefix="mergedrv-") as tmp:
        paths = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = os.path.join(tmp, name)
            with open(path, "wb") as fh:
                fh.write(data)
            paths.append(path)
        cmd = ["git", "merge-file", "-p", "--diff3", f"--marker-size={markers.size}",
               "-L", markers.ours, "-L", markers.base, "-L", markers.theirs, *paths]
        try:
            rc, out, _ = captured(os.curdir, cmd)
        except OSError:
            return TextMerge(b"", -1)
    if rc < 0 or rc > 127:
        return TextMerge(out, -1)
    return TextMerge(out, rc)


def trivial(base: bytes, ours: bytes, theirs: bytes) -> bytes | None:
    """The result when at most one side changed anything, else None."""
    if ours == base or ours == theirs:
        return theirs
    if theirs == base:
        return ours
    return None


def merge_text(base: bytes, ours: bytes, theirs: bytes, markers: Markers) -> TextMerge:
    """Three-way text merge; when git refuses (binary), one whole-file conflict."""
    quick = trivial(base, ours, theirs)
    if quick is not None:
        return TextMerge(quick, 0)
    result = git_merge_file(base, ours, theirs, markers)
    if result.conflicts < 0:
        lines = markers.block(_lines(base), _lines(ours), _lines(theirs))
        return TextMerge(b"".join(lines), 1)
    return result


def text_result(base: bytes, ours: bytes, theirs: bytes, markers: Markers, why: str | None) -> Result:
    """git's text merge of the whole file, each conflict hunk reported."""
    merged = merge_text(base, ours, theirs, markers)
    conflicts = []
    line = 1
    # git's exit code says whether it wrote conflicts: a clean merge may hold
    # markers a side committed, or prose that reads as markers of a small size
    if merged.conflicts == 0:
        return Result(merged.data, [], [], why)
    for hunk in hunks(merged.data, markers.size):
        if hunk.clean is None:
            conflicts.append(Conflict("text", "-", "both sides changed the same lines", line))
            line += 4 + len(hunk.ours) + len(hunk.base) + len(hunk.theirs)
        else:
            line += len(hunk.clean)
    if merged.conflicts and not conflicts:  # binary: one whole-file conflict
        conflicts.append(Conflict("text", "-", "git cannot merge this content; both sides kept", 1))
    return Result(merged.data, conflicts, [], why)


MARKER_LINE = rb"^(<{7,})(?: |\r?$)"  # (re's cache compiles it when a base holds a run of 7 "<")


def ancestor(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    """The base to merge from: git's virtual ancestor without its inner
    conflicts when only the base holds conflict markers, else the base."""
    if model.has_run(base, b"<") and rx.compile(MARKER_LINE, rx.M).search(base) and not any(rx.compile(MARKER_LINE, rx.M).search(x) for x in (ours, theirs)):
        return virtual_base(base)
    return base


def virtual_base(base: bytes) -> bytes:
    """A base without the conflicts of an inner merge.

    In a criss-cross merge git first merges the two merge bases into a
    virtual ancestor, conflicts and all (with longer markers), and passes it
    as %O.  Each conflict there is replaced by its own base section (empty
    if it has none): an older state both sides descend from, so a key in
    the conflict counts as added by the sides that have it; a double
    definition still conflicts and nothing is taken for deleted.
    """
    for _ in range(4):  # nested inner merges use longer markers each
        m = rx.compile(MARKER_LINE, rx.M).search(base)
        if m is None:
            break
        out = []
        for h in hunks(base, len(m.group(1))):
            out.extend(h.clean if h.clean is not None else h.base)
        base = b"".join(out)
    return base


_LINE = rx.compile(rb"[^\n]*\n|[^\n]+")


def _lines(data: bytes) -> list[bytes]:
    """Lines split on b"\\n" only: a lone CR is part of its line, as for git."""
    return _LINE.findall(data)


class Hunk:
    """A stretch of merged lines: clean (``clean`` set) or one conflict."""

    __slots__ = ("clean", "ours", "base", "theirs", "ours_marker", "base_marker", "sep_marker", "theirs_marker")

    def __init__(self, clean: list[bytes] | None, ours: list[bytes], base: list[bytes], theirs: list[bytes], ours_marker: bytes = b"") -> None:
        self.clean = clean
        self.ours = ours
        self.base = base
        self.theirs = theirs
        self.ours_marker = ours_marker
        self.base_marker = b""
        self.sep_marker = b""
        self.theirs_marker = b""


def hunks(data: bytes, size: int) -> list[Hunk]:
    """Split git's diff3 output into clean stretches and conflict hunks."""
    lt, bar, eq, gt = b"<" * size, b"|" * size, b"=" * size, b">" * size

    def is_marker(line: bytes, prefix: bytes, label: bool) -> bool:
        if not line.startswith(prefix):
            return False
        rest = line[size:]
        if rest in (b"\n", b"\r\n", b""):
            return True
        return label and rest[:1] == b" "

    out: list[Hunk] = []
    clean: list[bytes] = []
    state = None
    cur: Hunk | None = None
    for line in _lines(data):
        if state is None:
            if is_marker(line, lt, True):
                if clean:
                    out.append(Hunk(clean, [], [], []))
                    clean = []
                cur = Hunk(None, [], [], [], ours_marker=line)
                state = "ours"
            else:
                clean.append(line)
        elif state == "ours" and is_marker(line, bar, True):
            assert cur is not None  # (a state other than None: a hunk is open)
            cur.base_marker = line
            state = "base"
        elif state in ("ours", "base") and is_marker(line, eq, False):
            assert cur is not None  # (a state other than None: a hunk is open)
            cur.sep_marker = line
            state = "theirs"
        elif state == "theirs" and is_marker(line, gt, True):
            assert cur is not None  # (a state other than None: a hunk is open)
            cur.theirs_marker = line
            out.append(cur)
            cur = None
            state = None
        else:
            getattr(cur, state).append(line)
    if cur is not None:  # unterminated: keep every line as clean text
        clean.extend([cur.ours_marker, *cur.ours])
        if cur.base_marker:
            clean.extend([cur.base_marker, *cur.base])
        if cur.sep_marker:
            clean.extend([cur.sep_marker, *cur.theirs])
    if clean:
        out.append(Hunk(clean, [], [], []))
    return out
