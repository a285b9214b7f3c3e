"""Findings: what a check reports, and how it is printed (text or JSON)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass


@dataclass(slots=True, order=True)
class Finding:
    path: str
    line: int  # 1-based; 0 when the finding is about the file as a whole
    check: str  # check id, e.g. "keys-unique"
    message: str
    commit: str | None = None  # short hash, in range mode

    def text(self) -> str:
        where = f"{self.commit}:" if self.commit else ""
        return f"{where}{self.path}:{self.line}: {self.check}: {self.message}"


def render(findings: list[Finding], fmt: str = "text") -> str:
    """All findings in the requested format ("text" or "json")."""
    if fmt == "json":
        return json.dumps([asdict(f) for f in findings], indent=2, ensure_ascii=False)
    return "\n".join(f.text() for f in findings)
