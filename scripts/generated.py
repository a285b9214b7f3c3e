"""Write a generated page of docs/, or with `--check` exit 1 when the committed one is stale."""

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"


def write_or_check(name: str, text: str, script: str) -> None:
    page = DOCS / name
    if "--check" in sys.argv[1:]:
        current = page.read_text(encoding="utf-8") if page.is_file() else ""
        sys.exit(f"{page}: stale; run: python scripts/{script}" if current != text else 0)
    page.write_text(text, encoding="utf-8")
