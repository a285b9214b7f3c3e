"""Building real git histories for the history-check tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

MATRIX = ".agents/model-matrix.md"

CONFIG = """\
[[record]]
name = "MODEL"
path = ".agents/model-matrix.md"
key = "ID"

[[checkpoint]]
when = ["src/**", ".agents/model-matrix.md"]
require = ["README.md", "docs/STATUS.md"]
"""


def git(cwd, *args: str, check: bool = True, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check, input=input)


def table(*rows: str | tuple[str, str]) -> str:
    """A record file: a heading and a keyed table; a row is an ID or (ID, state)."""
    lines = ["# Models", "", "| ID | State |", "|----|-------|"]
    for row in rows:
        key, state = (row, "TODO") if isinstance(row, str) else row
        lines.append(f"| `{key}` | {state} |")
    return "\n".join(lines) + "\n"


def write(repo: Path, files: dict[str, str | None]) -> None:
    for name, text in files.items():
        path = repo / name
        if text is None:
            git(repo, "rm", "-q", "--", name)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        git(repo, "add", "--", name)


def commit(repo: Path, message: str, files: dict[str, str | None] | None = None) -> str:
    """Write ``files`` (None deletes), commit them, return the full hash."""
    write(repo, files or {})
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return head(repo)


def head(repo: Path, rev: str = "HEAD") -> str:
    return git(repo, "rev-parse", rev).stdout.strip()


def short(repo: Path, rev: str) -> str:
    return git(repo, "rev-parse", "--short", rev).stdout.strip()


def merge(repo: Path, *branches: str, message: str = "merge", check: bool = True):
    return git(repo, "merge", "-q", "--no-ff", "-m", message, *branches, check=check)
