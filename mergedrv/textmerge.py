"""Line-based three-way merge of text, delegated to `git merge-file`.

mergedrv never writes its own diff3: prose, undeclared files and every
fallback go through git's own merge, so they come out exactly as git would
merge them.  This module also renders and reads git's conflict markers.
"""

from __future__ import annotations

import os
import re


class Markers:
    """Conflict-marker size and the three labels (ours, base, theirs)."""

    __slots__ = ("size", "ours", "base", "theirs")

    def __init__(self, size: int = 7, ours: str = "ours", base: str = "base", theirs: str = "theirs") -> None:
        self.size = size
        self.ours = ours
        self.base = base
        self.theirs = theirs

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Markers) and (self.size, self.ours, self.base, self.theirs) == (
            other.size,
            other.ours,
            other.base,
            other.theirs,
        )

    def __repr__(self) -> str:
        return f"Markers({self.size}, {self.ours!r}, {self.base!r}, {self.theirs!r})"

    def block(self, ours: list[bytes], base: list[bytes], theirs: list[bytes], eol: bytes = b"\n") -> list[bytes]:
        """A diff3-style conflict block; every section line ends with a newline."""
        n = self.size

        def section(lines: list[bytes]) -> list[bytes]:
            if lines and not lines[-1].endswith(b"\n"):
                return [*lines[:-1], lines[-1] + eol]
            return list(lines)

        def marker(ch: bytes, label: str) -> bytes:
            text = ch * n
            if label:
                text += b" " + label.encode("utf-8", "replace")
            return text + eol

        return [
            marker(b"<", self.ours),
            *section(ours),
            marker(b"|", self.base),
            *section(base),
            marker(b"=", ""),
            *section(theirs),
            marker(b">", self.theirs),
        ]


class TextMerge:
    """Merged bytes and the number of conflict hunks (-1: git refused)."""

    __slots__ = ("data", "conflicts")

    def __init__(self, data: bytes, conflicts: int) -> None:
        self.data = data
        self.conflicts = conflicts


def git_merge_file(ours: bytes, base: bytes, theirs: bytes, markers: Markers) -> TextMerge:
    """Run `git merge-file --diff3` on three byte strings."""
    import subprocess  # only when both sides changed the same file's text
    import tempfile

    with tempfile.TemporaryDirectory(prefix="mergedrv-") as tmp:
        paths = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = os.path.join(tmp, name)
            with open(path, "wb") as fh:
                fh.write(data)
            paths.append(path)
        cmd = [
            "git",
            "merge-file",
            "-p",
            "--diff3",
            f"--marker-size={markers.size}",
            "-L",
            markers.ours,
            "-L",
            markers.base,
            "-L",
            markers.theirs,
            *paths,
        ]
        try:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        except OSError:
            return TextMerge(b"", -1)
    rc = proc.returncode
    if rc < 0 or rc > 127:
        return TextMerge(proc.stdout, -1)
    return TextMerge(proc.stdout, rc)


def trivial(ours: bytes, base: bytes, theirs: bytes) -> bytes | None:
    """The result when at most one side changed anything, else None."""
    if ours == base or ours == theirs:
        return theirs
    if theirs == base:
        return ours
    return None


def merge_text(ours: bytes, base: bytes, theirs: bytes, markers: Markers) -> TextMerge:
    """Three-way text merge; when git refuses (binary), one whole-file conflict."""
    quick = trivial(ours, base, theirs)
    if quick is not None:
        return TextMerge(quick, 0)
    result = git_merge_file(ours, base, theirs, markers)
    if result.conflicts < 0:
        lines = markers.block(_lines(ours), _lines(base), _lines(theirs))
        return TextMerge(b"".join(lines), 1)
    return result


_LINE = re.compile(rb"[^\n]*\n|[^\n]+")


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
            cur.base_marker = line
            state = "base"
        elif state in ("ours", "base") and is_marker(line, eq, False):
            cur.sep_marker = line
            state = "theirs"
        elif state == "theirs" and is_marker(line, gt, True):
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
