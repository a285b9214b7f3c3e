"""The history-check tests' records: the configuration and a keyed table (git and
commits come from tests/helpers.py)."""

from __future__ import annotations

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


def table(*rows: str | tuple[str, str]) -> str:
    """A record file: a heading and a keyed table; a row is an ID or (ID, state)."""
    lines = ["# Models", "", "| ID | State |", "|----|-------|"]
    for row in rows:
        key, state = (row, "TODO") if isinstance(row, str) else row
        lines.append(f"| `{key}` | {state} |")
    return "\n".join(lines) + "\n"
