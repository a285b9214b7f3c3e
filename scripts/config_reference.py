"""Write docs/configuration.md from the schema (`--check`: exit 1 when it is stale)."""

import sys
from pathlib import Path

from mergedrv.config.reference import reference

PAGE = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"

if __name__ == "__main__":
    text = reference()
    if "--check" in sys.argv[1:]:
        current = PAGE.read_text(encoding="utf-8") if PAGE.is_file() else ""
        if current != text:
            sys.exit(f"{PAGE}: stale; run: python scripts/config_reference.py")
        sys.exit(0)
    PAGE.write_text(text, encoding="utf-8")
