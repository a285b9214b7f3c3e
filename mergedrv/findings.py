"""Findings: what a check reports, and how it is printed (text or JSON)."""

from __future__ import annotations

from .values import Value


class Finding(Value):
    """``path:line: check: message``; line is 1-based (0: the whole file);
    ``commit`` is the short hash in range mode."""

    __slots__ = ("path", "line", "check", "message", "commit")

    def __init__(self, path: str, line: int, check: str, message: str, commit: str | None = None) -> None:
        self.path = path
        self.line = line
        self.check = check
        self.message = message
        self.commit = commit

    def text(self) -> str:
        where = f"{self.commit}:" if self.commit else ""
        return f"{where}{self.path}:{self.line}: {self.check}: {self.message}"


def render(findings: list[Finding], fmt: str = "text") -> str:
    """All findings in the requested format ("text" or "json")."""
    if fmt == "json":
        import json

        return json.dumps([f.as_dict() for f in findings], indent=2, ensure_ascii=False)
    return "\n".join(f.text() for f in findings)
