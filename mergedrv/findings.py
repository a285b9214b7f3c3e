"""Findings: what a check reports, and how it is printed (text or JSON)."""

from __future__ import annotations

from .values import Value


class Finding(Value):
    """``path:line: check: message``; line is 1-based (0: the whole file);
    ``commit`` is the short hash in range mode; ``inherited``: the parent
    already had it (shown marked, does not fail the check)."""

    __slots__ = ("path", "line", "check", "message", "commit", "inherited")

    def __init__(self, path: str, line: int, check: str, message: str, commit: str | None = None,
                 inherited: bool = False) -> None:
        self.path = path
        self.line = line
        self.check = check
        self.message = message
        self.commit = commit
        self.inherited = inherited

    def text(self) -> str:
        where = f"{self.commit}:" if self.commit else ""
        mark = " (inherited)" if self.inherited else ""
        return f"{where}{self.path}:{self.line}: {self.check}: {self.message}{mark}"


_LINE_REF = None


def shape(f: Finding) -> tuple[str, str, str]:
    """A finding without its line numbers, commit hashes and the snapshot it
    names: the same problem, moved by a line shift or seen in the parent, has
    the same shape (a ratchet finding: its count and pin, not what it says of
    the parent)."""
    global _LINE_REF
    if _LINE_REF is None:
        import re

        # (and the snapshot a "matches no file in index|HEAD|working tree|<commit>," names)
        _LINE_REF = re.compile(r"\bline \d+|(?<=\.md):\d+|\b[0-9a-f]{7,40}\b|(?<=matches no file in )[^,]+(?=,)")
    message = f.message
    if f.check == "ratchet":  # what follows the count and the pin compares with a parent, which differs per commit
        message = message.split("; ", 1)[0]
    return (f.path, f.check, _LINE_REF.sub("#", message))


def render(findings: list[Finding], fmt: str = "text") -> str:
    """All findings in the requested format ("text" or "json")."""
    if fmt == "json":
        import json

        return json.dumps([f.as_dict() for f in findings], indent=2, ensure_ascii=False)
    return "\n".join(f.text() for f in findings)
